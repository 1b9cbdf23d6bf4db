import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { usedMemory } from '../../../emulator/server/info.js';
import { ErrorReply, type Reply } from '../../../emulator/resp/reply.js';

function setup() {
  const clock = new ManualClock(1_767_225_600_000_000);
  const server = createServer({ clock });
  const c = server.connect();
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { clock, server, run };
}

describe('maxmemory eviction', () => {
  it('allkeys-lru evicts keys idle longest and counts them', () => {
    const { clock, server, run } = setup();
    for (let i = 0; i < 100; i++) run('SET', `old:${i}`, 'x'.repeat(50));
    clock.advanceMs(60_000);
    for (let i = 0; i < 100; i++) run('SET', `new:${i}`, 'x'.repeat(50));
    const before = usedMemory(server);
    run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
    run('CONFIG', 'SET', 'maxmemory', String(before - 3000));
    expect(run('PING')).toBeTruthy();
    const evicted = Number(/evicted_keys:(\d+)/.exec(String((run('INFO', 'stats') as { text: string }).text))![1]);
    expect(evicted).toBeGreaterThan(0);
    expect(run('DBSIZE')).toBe(200 - evicted);
    // Sampled LRU is approximate, as in Redis: nearly every victim is an old key.
    let newGone = 0;
    for (let i = 0; i < 100; i++) if (run('EXISTS', `new:${i}`) === 0) newGone++;
    expect(newGone).toBeLessThanOrEqual(Math.floor(evicted / 10));
    expect(usedMemory(server)).toBeLessThanOrEqual(before - 3000 + 200);
  });

  it('volatile-ttl evicts the keys closest to expiring and spares keys without a TTL', () => {
    const { server, run } = setup();
    for (let i = 0; i < 20; i++) run('SET', `keep:${i}`, 'v'.repeat(40));
    for (let i = 0; i < 20; i++) run('SET', `t:${i}`, 'v'.repeat(40), 'EX', String(1000 + i));
    run('CONFIG', 'SET', 'maxmemory-policy', 'volatile-ttl');
    run('CONFIG', 'SET', 'maxmemory', String(usedMemory(server) - 500));
    run('PING');
    for (let i = 0; i < 20; i++) expect(run('EXISTS', `keep:${i}`)).toBe(1);
    expect(run('EXISTS', 't:19')).toBe(1);
    expect(run('EXISTS', 't:0')).toBe(0);
  });

  it('a policy with nothing left to evict refuses writes but serves reads', () => {
    const { run } = setup();
    run('SET', 'a', '1');
    run('CONFIG', 'SET', 'maxmemory-policy', 'volatile-random');
    run('CONFIG', 'SET', 'maxmemory', '1');
    expect(run('GET', 'a')).toBe('1');
    expect(run('SET', 'b', '1')).toEqual(new ErrorReply("OOM command not allowed when used memory > 'maxmemory'."));
  });
});
