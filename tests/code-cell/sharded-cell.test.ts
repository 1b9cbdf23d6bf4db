/**
 * A code cell's connection over shards (connect({ shards })): keys placed
 * by their slot, a transaction on one shard through a {hash tag}, one
 * across shards refused with an error the cell can catch, reads from the
 * replicas; and, since each server is reached through a recorded client,
 * a world restored from a checkpoint holds the same keys.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../emulator/world/world.js';
import { runCellInProcess } from '../../src/code-cell/run-in-process.js';
import { keySlot, shardOfSlot } from '../../emulator/client-library/key-slot.js';

function twoShards(): World {
  const world = new World({ seed: 20 });
  for (const h of ['app', 'A', 'A2', 'B', 'B2']) world.addHost(h);
  world.startRedis('A');
  world.startRedis('B');
  world.startRedis('A2', { config: { replicaof: `${world.network.ipOf('A')} 6379` } });
  world.startRedis('B2', { config: { replicaof: `${world.network.ipOf('B')} 6379` } });
  world.runUntil(() => ['A2', 'B2'].every((h) => world.redis(h)!.server.replication.replica.state === 'connected'), { maxMs: 30_000 });
  return world;
}

const SOURCE = `
const r = connect({ shards: [{ primary: 'A:6379', replicas: ['A2:6379'] }, { primary: 'B:6379', replicas: ['B2:6379'] }] });
await r.set('foo', 1);
await r.set('bar', 2);
print(JSON.stringify(await r.multi().set('{user:1}:name', 'Ann').incr('{user:1}:visits').exec()));
try {
  await r.multi().incr('foo').incr('bar').exec();
} catch (e) {
  print(e.name + ': ' + e.message);
}
await sleep(100);
print(await r.get('foo'), await r.get('bar'));
`;

const keysOn = (world: World, host: string) => [...world.redis(host)!.server.dbs[0]!.dict.keys()].sort();

describe('a sharded connection in a code cell', () => {
  it('spreads keys by slot, keeps a tagged transaction on one shard, refuses one across shards, and reads from replicas', async () => {
    const world = twoShards();
    const out = await runCellInProcess(world, { cellId: 'shards', from: 'app', source: SOURCE });
    expect(out.error).toBeNull();
    expect(out.output[0]).toBe('[[null,"OK"],[null,1]]');
    expect(out.output[1]).toMatch(/^CrossShardError: MULTI spans shards \(foo on shard 1, bar on shard 0\)/);
    expect(out.output[2]).toBe('1 2');
    // foo's slot (12182) is in B's half, bar's (5061) in A's; both {user:1} keys share a shard.
    const all = ['foo', 'bar', '{user:1}:name', '{user:1}:visits'];
    const on = (shard: number) => all.filter((k) => shardOfSlot(keySlot(k), 2) === shard).sort();
    expect(keysOn(world, 'A')).toEqual(on(0));
    expect(keysOn(world, 'B')).toEqual(on(1));
    expect(on(0)).toContain('bar');
    expect(on(1)).toContain('foo');
    expect(world.redis('B2')!.server.commands.get('get')!.calls).toBe(1);
    expect(world.redis('B')!.server.commands.get('get')!.calls).toBe(0);

    const copy = World.restore(world.checkpoint());
    expect(keysOn(copy, 'A')).toEqual(keysOn(world, 'A'));
    expect(keysOn(copy, 'B')).toEqual(on(1));
  });

  it('tells the cell what is wrong with its shards', async () => {
    const world = twoShards();
    const out = await runCellInProcess(world, { cellId: 'bad', from: 'app', source: "connect({ shards: [{ primary: 'A' }] });" });
    expect(out.error?.message).toMatch(/each shard is \{ primary: "host:port"/);
  });
});
