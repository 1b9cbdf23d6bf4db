/**
 * The sharding client: keys placed by Redis Cluster's slot rule over two
 * shards (each a primary with two replicas), hash tags keeping related
 * keys on one shard, a transaction across shards refused before anything
 * is sent, and reads spread over each shard's replicas in turn.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { crc16, keySlot, shardOfSlot, SLOT_COUNT } from '../../../emulator/client-library/key-slot.js';
import { CrossShardError, type ShardSpec } from '../../../emulator/client-library/sharded-redis.js';
import { connectSharded } from '../../../emulator/world/sharded-client.js';

describe('key slots', () => {
  it('are CRC16 (XMODEM) modulo 16384, as Redis Cluster computes them', () => {
    // The check value of CRC-16/XMODEM, and slots redis-cli CLUSTER KEYSLOT gives on a real cluster.
    expect(crc16('123456789')).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('bar')).toBe(5061);
    expect(keySlot('hello')).toBe(866);
  });

  it('hash only a non-empty {tag}, the first one', () => {
    expect(keySlot('{user:1}:name')).toBe(keySlot('user:1'));
    expect(keySlot('{user:1}:visits')).toBe(keySlot('{user:1}:name'));
    expect(keySlot('a{user:1}b{other}')).toBe(keySlot('user:1'));
    // An empty tag, or no closing brace: the whole key.
    expect(keySlot('{}user:1')).toBe(crc16('{}user:1') % SLOT_COUNT);
    expect(keySlot('{user:1')).toBe(crc16('{user:1') % SLOT_COUNT);
  });

  it('split into equal contiguous ranges, one per shard', () => {
    expect([0, 8191, 8192, 16383].map((s) => shardOfSlot(s, 2))).toEqual([0, 0, 1, 1]);
    expect([0, 5461, 5462, 10922, 10923, 16383].map((s) => shardOfSlot(s, 3))).toEqual([0, 0, 1, 1, 2, 2]);
  });
});

async function twoShards(): Promise<{ world: World; shards: ShardSpec[] }> {
  const world = new World({ seed: 20 });
  for (const h of ['app', 'A', 'A2', 'A3', 'B', 'B2', 'B3']) world.addHost(h);
  world.startRedis('A');
  world.startRedis('B');
  for (const [primary, replicas] of [['A', ['A2', 'A3']], ['B', ['B2', 'B3']]] as const) {
    for (const r of replicas) world.startRedis(r, { config: { replicaof: `${world.network.ipOf(primary)} 6379` } });
  }
  await world.kernel.runUntilAsync(() => ['A2', 'A3', 'B2', 'B3'].every((h) => world.redis(h)!.server.replication.replica.state === 'connected'), { maxMs: 30_000 });
  const shards: ShardSpec[] = [
    { primary: { host: 'A', port: 6379 }, replicas: [{ host: 'A2', port: 6379 }, { host: 'A3', port: 6379 }] },
    { primary: { host: 'B', port: 6379 }, replicas: [{ host: 'B2', port: 6379 }, { host: 'B3', port: 6379 }] },
  ];
  return { world, shards };
}

const keysOn = (world: World, host: string) => [...world.redis(host)!.server.dbs[0]!.dict.keys()].sort();

describe('a client over two shards', () => {
  it('puts each key on the primary of its slot, and related keys with a tag together', async () => {
    const { world, shards } = await twoShards();
    const r = connectSharded(world, { from: 'app', shards });
    const keys = ['foo', 'bar', 'hello', 'user:1', 'user:2', '{user:1}:name', '{user:1}:visits'];
    for (const k of keys) expect(await world.settle(r.set(k, 'v'))).toBe('OK');
    const expected = (shard: number) => keys.filter((k) => shardOfSlot(keySlot(k), 2) === shard).sort();
    expect(keysOn(world, 'A')).toEqual(expected(0));
    expect(keysOn(world, 'B')).toEqual(expected(1));
    // Both shards got some: foo (12182) and bar (5061) fall on different halves.
    expect(r.shardOf('foo')).toBe(1);
    expect(r.shardOf('bar')).toBe(0);
    expect(r.shardOf('{user:1}:name')).toBe(r.shardOf('{user:1}:visits'));
  });

  it('runs a transaction on one shard when its keys share a tag, and refuses one across shards without sending it', async () => {
    const { world, shards } = await twoShards();
    const r = connectSharded(world, { from: 'app', shards });
    const res = await world.settle(r.multi().set('{user:1}:name', 'Ann').incr('{user:1}:visits').exec());
    expect(res).toEqual([
      [null, 'OK'],
      [null, 1],
    ]);
    const home = r.shardOf('{user:1}:name') === 0 ? 'A' : 'B';
    expect(keysOn(world, home)).toEqual(['{user:1}:name', '{user:1}:visits']);

    const before = world.redis('A')!.server.stats.totalCommandsProcessed + world.redis('B')!.server.stats.totalCommandsProcessed;
    const refused = world.settle(r.multi().set('foo', 1).set('bar', 2).exec());
    await expect(refused).rejects.toBeInstanceOf(CrossShardError);
    await expect(world.settle(r.multi().set('foo', 1).set('bar', 2).exec())).rejects.toThrow(/MULTI spans shards \(foo on shard 1, bar on shard 0\)/);
    // A command with keys on two shards is refused the same way.
    await expect(world.settle(r.mset('foo', 1, 'bar', 2))).rejects.toThrow(/MSET spans shards/);
    expect(world.redis('A')!.server.stats.totalCommandsProcessed + world.redis('B')!.server.stats.totalCommandsProcessed).toBe(before);
  });

  it('reads from each replica of the shard in turn and writes to the primary', async () => {
    const { world, shards } = await twoShards();
    const r = connectSharded(world, { from: 'app', shards });
    expect(await world.settle(r.set('foo', 'x'))).toBe('OK');
    await world.kernel.runUntilAsync(() => world.redis('B3')!.server.dbs[0]!.dict.has('foo'), { maxMs: 5_000 });
    const reads = (h: string) => world.redis(h)!.server.commands.get('get')!.calls;
    for (let i = 0; i < 4; i++) expect(await world.settle(r.get('foo'))).toBe('x');
    expect(['B', 'B2', 'B3', 'A', 'A2', 'A3'].map(reads)).toEqual([0, 2, 2, 0, 0, 0]);
    // A pipeline sends each command to its shard and gives the results in order.
    const res = await world.settle(r.pipeline().set('bar', 'y').get('foo').incr('{user:1}:visits').exec());
    expect(res).toEqual([
      [null, 'OK'],
      [null, 'x'],
      [null, 1],
    ]);
  });

  it('reads from the primaries only with scaleReads master', async () => {
    const { world, shards } = await twoShards();
    const r = connectSharded(world, { from: 'app', shards, scaleReads: 'master' });
    await world.settle(r.set('foo', 'x'));
    expect(await world.settle(r.get('foo'))).toBe('x');
    expect(world.redis('B')!.server.commands.get('get')!.calls).toBe(1);
  });
});
