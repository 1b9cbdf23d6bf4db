import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

function start() {
  const clock = new ManualClock(1_700_000_000_000_000);
  const server = createServer({ clock });
  return { clock, server, c: server.connect(), other: server.connect() };
}

describe('blocked clients', () => {
  it('BLPOP with a timeout past the int64 range is counted in the timeout table but never times out', () => {
    const { clock, server, c, other } = start();
    server.execute(c, ['BLPOP', 'k', '9223372036854775']);
    expect(server.blocking.count).toBe(1);
    expect(server.blocking.timedCount).toBe(1);
    // No timer is due for it, however far the clock goes.
    expect(server.nextTimerMs()).toBe(null);
    clock.advanceUs(1e15);
    server.runTimers();
    expect(server.blocking.count).toBe(1);
    server.execute(other, ['RPUSH', 'k', 'v']);
    expect(server.blocking.count).toBe(0);
    expect(server.blocking.timedCount).toBe(0);
  });

  it('BLPOP with timeout 0 waits outside the timeout table', () => {
    const { server, c } = start();
    server.execute(c, ['BLPOP', 'k', '0']);
    expect(server.blocking.count).toBe(1);
    expect(server.blocking.timedCount).toBe(0);
    expect(server.nextTimerMs()).toBe(null);
  });

  it('BLPOP timeouts of other clients still fire beside a wrapped one', () => {
    const { clock, server, c, other } = start();
    server.execute(c, ['BLPOP', 'k', '9223372036854775']);
    server.execute(other, ['BLPOP', 'k', '0.5']);
    expect(server.blocking.timedCount).toBe(2);
    const due = server.nextTimerMs()!;
    expect(due).toBe(server.nowMs + 501);
    clock.advanceUs(600_000);
    server.runTimers();
    expect(server.blocking.count).toBe(1);
    expect(server.blocking.timedCount).toBe(1);
  });

  it('a list that serves a BLPOP is touched once under an LFU policy', () => {
    const { server, c, other } = start();
    server.execute(other, ['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu']);
    server.execute(c, ['BLPOP', 'k', '0']);
    server.execute(other, ['RPUSH', 'k', 'a', 'b']);
    expect(server.blocking.count).toBe(0);
    expect(server.execute(other, ['OBJECT', 'FREQ', 'k'])).toBe(6);
  });
});
