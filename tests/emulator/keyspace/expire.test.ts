import { describe, expect, it } from 'vitest';
import type { RedisServer } from '../../../emulator/server/server.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { activeExpireCycle } from '../../../emulator/keyspace/expire.js';

function start(): { server: RedisServer; clock: ManualClock; run: (...argv: string[]) => unknown } {
  const clock = new ManualClock();
  const server = createServer({ clock });
  const c = server.connect();
  return { server, clock, run: (...argv) => server.execute(c, argv) };
}

describe('active expiry cycle', () => {
  it('Redis should actively expire keys incrementally', () => {
    const { server, clock, run } = start();
    run('PSETEX', 'key1', '500', 'a');
    run('PSETEX', 'key2', '500', 'a');
    run('PSETEX', 'key3', '500', 'a');
    run('SET', 'keep', 'v');
    expect(run('DBSIZE')).toBe(4);
    clock.advanceMs(1000);
    server.cron();
    expect(server.dbs[0]!.size).toBe(1);
    expect(server.stats.expiredKeys).toBe(3);
  });

  it('keeps sampling a database while more than 10% of a sample expired', () => {
    const { server, clock, run } = start();
    for (let i = 0; i < 1000; i++) run('SET', `k${i}`, 'v', 'PX', '100');
    for (let i = 0; i < 100; i++) run('SET', `live${i}`, 'v', 'EX', '1000');
    clock.advanceMs(200);
    server.updateTime();
    const expired = activeExpireCycle(server);
    // All but the last sample or so were entirely stale.
    expect(expired).toBeGreaterThan(900);
    expect(server.dbs[0]!.expires.size).toBeLessThan(200);
  });

  it('stops at the time budget and resumes in the next cycle', () => {
    const { server, clock, run } = start();
    run('CONFIG', 'SET', 'hz', '500');
    for (let i = 0; i < 5000; i++) run('SET', `k${i}`, 'v', 'PX', '10');
    clock.advanceMs(20);
    server.updateTime();
    activeExpireCycle(server);
    expect(server.stats.expiredTimeCapReachedCount).toBe(1);
    expect(server.dbs[0]!.size).toBeGreaterThan(0);
    for (let i = 0; i < 20 && server.dbs[0]!.size > 0; i++) activeExpireCycle(server);
    expect(server.dbs[0]!.size).toBe(0);
  });

  it('visits every database in turn', () => {
    const { server, clock, run } = start();
    for (let db = 0; db < 16; db++) {
      run('SELECT', String(db));
      run('SET', 'k', 'v', 'PX', '10');
    }
    clock.advanceMs(20);
    server.cron();
    for (const db of server.dbs) expect(db.size).toBe(0);
  });

  it('does not run when disabled, or on a replica', () => {
    const { server, clock, run } = start();
    run('SET', 'k', 'v', 'PX', '10');
    clock.advanceMs(20);
    server.activeExpireEnabled = false;
    server.cron();
    expect(server.dbs[0]!.size).toBe(1);
    server.activeExpireEnabled = true;
    server.replication.masterHost = '10.0.0.9';
    server.cron();
    expect(server.dbs[0]!.size).toBe(1);
    server.replication.masterHost = null;
    server.cron();
    expect(server.dbs[0]!.size).toBe(0);
  });

  it('tracks the average TTL of the keys it samples', () => {
    const { server, run } = start();
    run('SET', 'a', 'v', 'EX', '100');
    run('SET', 'b', 'v', 'EX', '100');
    server.cron();
    expect(server.dbs[0]!.avgTtlMs).toBeGreaterThan(90_000);
    expect(server.dbs[0]!.avgTtlMs).toBeLessThanOrEqual(100_000);
  });
});
