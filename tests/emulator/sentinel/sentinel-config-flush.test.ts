/**
 * A sentinel saves its state as sentinelFlushConfig does: sentinel.conf
 * replaced through a synced temporary file and synced again, so that what
 * it has decided (a master's settings, an epoch) survives a power cut a
 * moment later; flushes asked for while one is being written land in
 * order, the last state last.
 */
import { describe, expect, it, vi } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { Sentinel } from '../../../emulator/sentinel/sentinel.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';

function setup(): { world: World; log: () => string; sentinel: () => Sentinel } {
  const world = new World({ seed: 11 });
  registerSentinel(world);
  for (const h of ['A', 'S1']) world.addHost(h);
  world.startRedis('A', { config: { save: '' } });
  world.host('S1').disk.writeFile('/sentinel.conf', bytesToArray('logfile "/sentinel.log"\nsentinel monitor mymaster 10.0.0.2 6379 1\n'));
  world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
  const sentinel = (): Sentinel => world.redis('S1', 26379)!.modules.find((m): m is Sentinel => m instanceof Sentinel)!;
  return { world, sentinel, log: () => bytesFromArray(world.host('S1').disk.readFile('/sentinel.log')) };
}

describe("a sentinel's config file", () => {
  it('holds what SENTINEL SET changed through a power cut a second later', async () => {
    const { world, log } = setup();
    world.advance(2000);
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(await world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'down-after-milliseconds', '7000'))).toBe('OK');
    world.advance(1000);
    // No temporary file is left beside it.
    expect(world.host('S1').disk.readdir('/').filter((f) => f.startsWith('sentinel.conf.'))).toEqual([]);
    expect(log()).toMatch(/\* Sentinel new configuration saved on disk\n(.*\n)*.*\* Sentinel new configuration saved on disk\n/);
    world.powerOff('S1');
    world.powerOn('S1');
    world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
    world.advance(1000);
    const again = world.connect({ from: 'S1', to: 'S1:26379' });
    const master = (await world.settle(again.call('SENTINEL', 'MASTER', 'mymaster'))) as string[];
    expect(master[master.indexOf('down-after-milliseconds') + 1]).toBe('7000');
  });

  it('ends with the last of several flushes asked for at once, each written in turn', () => {
    const { world, sentinel } = setup();
    world.advance(2000);
    const s = sentinel();
    for (const epoch of [3, 4, 5]) {
      s.config.currentEpoch = epoch;
      expect(s.flushConfig()).toBe(true);
    }
    // Each flush replaces the file in turn, in the order asked, once the one before it is done.
    const disk = world.host('S1').disk;
    const replaced: string[] = [];
    const original = disk.rename.bind(disk);
    const rename = vi.spyOn(disk, 'rename').mockImplementation((from, to) => {
      expect(disk.readdir('/').filter((f) => f.startsWith('sentinel.conf.'))).toHaveLength(1);
      if (to === '/sentinel.conf') replaced.push(/current-epoch (\d+)/.exec(bytesFromArray(disk.readFile(from)))![1]!);
      original(from, to);
    });
    world.advance(1000);
    rename.mockRestore();
    expect(replaced).toEqual(['3', '4', '5']);
    expect(world.host('S1').disk.readdir('/').filter((f) => f.startsWith('sentinel.conf.'))).toEqual([]);
    world.powerOff('S1');
    world.powerOn('S1');
    expect(bytesFromArray(world.host('S1').disk.readFile('/sentinel.conf'))).toContain('sentinel current-epoch 5\n');
  });
});
