import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import type { Reply } from '../../../emulator/resp/reply.js';

function start() {
  const clock = new ManualClock();
  const server = createServer({ clock, seed: 1 });
  const c = server.connect();
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { server, clock, run };
}

describe("keys' access stamps", () => {
  it('keys made within one tick of the LRU clock keep no stamp of their own', () => {
    const { server, run } = start();
    for (let i = 0; i < 1000; i++) run('SET', `key:${i}`, 'v');
    run('GET', 'key:5');
    expect(server.dbs[0]!.access.ownStamps).toBe(0);
  });

  it('every key still answers its own idle time after some were touched later, deleted or made again', () => {
    const { server, clock, run } = start();
    for (let i = 0; i < 10; i++) run('SET', `k${i}`, 'v');
    clock.advanceMs(4000);
    run('GET', 'k1');
    run('SET', 'k2', 'w');
    run('DEL', 'k3');
    clock.advanceMs(3000);
    run('SET', 'k3', 'again');
    run('TOUCH', 'k4');
    clock.advanceMs(2000);
    const idle = Array.from({ length: 10 }, (_, i) => run('OBJECT', 'IDLETIME', `k${i}`));
    expect(idle).toEqual([9, 5, 5, 2, 2, 9, 9, 9, 9, 9]);
    expect(server.dbs[0]!.access.ownStamps).toBe(4);
    run('DEL', 'k1', 'k2', 'k3', 'k4');
    expect(server.dbs[0]!.access.ownStamps).toBe(0);
  });

  it('FLUSHALL and SWAPDB move the stamps with their keys', () => {
    const { clock, run } = start();
    run('SET', 'a', '1');
    clock.advanceMs(5000);
    run('SELECT', '1');
    run('SET', 'b', '1');
    run('SWAPDB', '0', '1');
    clock.advanceMs(1000);
    expect(run('OBJECT', 'IDLETIME', 'a')).toBe(6);
    run('SELECT', '0');
    expect(run('OBJECT', 'IDLETIME', 'b')).toBe(1);
    run('FLUSHALL');
    run('SET', 'b', '2');
    clock.advanceMs(2000);
    expect(run('OBJECT', 'IDLETIME', 'b')).toBe(2);
  });
});
