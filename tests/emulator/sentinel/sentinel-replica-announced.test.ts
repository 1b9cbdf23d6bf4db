/**
 * SENTINEL REPLICAS leaves out the replicas whose INFO says
 * replica_announced:0 (`replica-announced no`), as
 * addReplyDictOfRedisInstances does; the sentinel still knows them.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';

describe('SENTINEL REPLICAS', () => {
  it('lists only the replicas that announce themselves', async () => {
    const world = new World({ seed: 9 });
    registerSentinel(world);
    for (const h of ['A', 'B', 'C', 'S1']) world.addHost(h);
    world.startRedis('A', { config: { save: '' } });
    world.startRedis('B', { config: { save: '', replicaof: '10.0.0.2 6379' } });
    world.startRedis('C', { config: { save: '', replicaof: '10.0.0.2 6379', 'replica-announced': 'no' } });
    world.host('S1').disk.writeFile('/sentinel.conf', bytesToArray('logfile "/s.log"\nsentinel monitor mymaster 10.0.0.2 6379 1\n'));
    world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
    const log = (): string => bytesFromArray(world.host('S1').disk.readFile('/s.log'));
    for (let t = 0; t < 30_000 && log().match(/\+slave slave/g)?.length !== 2; t += 1000) world.advance(1000);
    // Each replica's own INFO, read over its own link, says whether it is announced.
    world.advance(12_000);
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    const replicas = (await world.settle(c.call('SENTINEL', 'REPLICAS', 'mymaster'))) as string[][];
    expect(replicas.map((r) => r[r.indexOf('ip') + 1])).toEqual(['10.0.0.3']);
    const master = (await world.settle(c.call('SENTINEL', 'MASTER', 'mymaster'))) as string[];
    expect(master[master.indexOf('num-slaves') + 1]).toBe('2');
  });
});
