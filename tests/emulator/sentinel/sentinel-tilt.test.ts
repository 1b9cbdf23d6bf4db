/**
 * TILT mode: when Sentinel's timer runs more than 2 s after the previous
 * run (its process was held up), it stops judging for 30 s (+tilt, then
 * -tilt): a master that dies meanwhile is not seen down until TILT is over,
 * and IS-MASTER-DOWN-BY-ADDR answers "not down". And the other sdown rule:
 * a master that has reported itself a replica for down-after plus two INFO
 * periods is subjectively down.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

function setup(seed: number): { world: World; a: RedisProcess; sentinel: RedisProcess; log: () => string } {
  const world = new World({ seed });
  registerSentinel(world);
  for (const h of ['A', 'B', 'S1']) world.addHost(h);
  const a = world.startRedis('A', { config: { save: '' } });
  world.startRedis('B', { config: { save: '' } });
  world.host('S1').disk.writeFile('/sentinel.conf', bytesToArray('logfile "/s.log"\nsentinel monitor mymaster 10.0.0.2 6379 1\nsentinel down-after-milliseconds mymaster 3000\n'));
  const sentinel = world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' }) as RedisProcess;
  return { world, a, sentinel, log: () => bytesFromArray(world.host('S1').disk.readFile('/s.log')) };
}

describe('sentinel TILT and sdown rules', () => {
  it('enters TILT when its timer is held up for more than 2 s, judges nothing for 30 s, then exits', async () => {
    const { world, a, sentinel, log } = setup(11);
    world.advance(5000);
    expect(log()).not.toContain('+tilt');
    // The process is held up for 3 s (as if stopped), then runs on.
    sentinel.stall(3_000_000);
    world.advance(4000);
    expect(log()).toContain('# +tilt #tilt mode entered\n');
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(String(await world.settle(c.call('INFO', 'sentinel')))).toMatch(/sentinel_tilt:1\r\nsentinel_tilt_since_seconds:\d+\r\n/);
    a.signal('KILL');
    world.advance(10_000);
    // Well past down-after-milliseconds, but in TILT: not judged down, and not said to be down.
    expect(log()).not.toContain('+sdown master');
    expect(await world.settle(c.call('SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '10.0.0.2', '6379', '0', '*'))).toEqual([0, '*', 0]);
    // SENTINEL DEBUG shortens the period, as Redis's own Sentinel suite does.
    expect(String(await world.settle(c.call('SENTINEL', 'DEBUG', 'tilt-period', '12000')))).toBe('OK');
    world.advance(3000);
    expect(log()).toMatch(/# -tilt #tilt mode exited\n(.*\n)?.*# \+sdown master mymaster 10\.0\.0\.2 6379\n/);
    expect(String(await world.settle(c.call('INFO', 'sentinel')))).toContain('sentinel_tilt:0\r\nsentinel_tilt_since_seconds:-1\r\n');
    expect(await world.settle(c.call('SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '10.0.0.2', '6379', '0', '*'))).toEqual([1, '*', 0]);
  });

  it('judges down a master that reports the replica role for down-after plus two INFO periods', async () => {
    const { world, log } = setup(12);
    world.advance(2000);
    const toA = world.connect({ from: 'S1', to: 'A:6379' });
    await world.settle(toA.call('REPLICAOF', '10.0.0.3', '6379'));
    // The next INFO (every 10 s) shows the role; 3 s + 2 x 10 s after that, down.
    world.advance(12_000);
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    const m = (await world.settle(c.call('SENTINEL', 'MASTER', 'mymaster'))) as string[];
    expect(m[m.indexOf('role-reported') + 1]).toBe('slave');
    expect(log()).not.toContain('+sdown');
    world.advance(25_000);
    expect(log()).toContain('# +sdown master mymaster 10.0.0.2 6379\n');
  });
});
