/**
 * The world's ioredis-shaped client given `{ sentinels, name }`: it asks a
 * sentinel for the primary, checks ROLE, and follows the primary after a
 * failover, on +switch-master or on a lost connection. The failover here
 * is done by hand (REPLICAOF NO ONE on the replica, the sentinel told the
 * new address with SENTINEL REMOVE / MONITOR, +switch-master published as
 * a sentinel publishes it), so the client is tested apart from Sentinel's
 * own election.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { sentinelOf } from '../../../emulator/sentinel/sentinel.js';
import { bytesToArray } from '../../../emulator/resp/bytes.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';
import type { SentinelRedis } from '../../../emulator/client-library/sentinel-redis.js';
import { connectSentinel } from '../../../emulator/world/sentinel-client.js';

interface Setup {
  world: World;
  a: RedisProcess;
  sentinel: RedisProcess;
  ipA: string;
  ipB: string;
  admin(host: string, port: number, ...argv: string[]): Promise<unknown>;
}

async function setup(): Promise<Setup> {
  const world = new World({ seed: 15 });
  registerSentinel(world);
  for (const h of ['app', 'S1', 'A', 'B']) world.addHost(h);
  const ipA = world.network.ipOf('A');
  const ipB = world.network.ipOf('B');
  const a = world.startRedis('A');
  world.startRedis('B', { config: { replicaof: `${ipA} 6379` } });
  world.host('S1').disk.mkdir('/etc', { recursive: true });
  world.host('S1').disk.writeFile('/etc/sentinel.conf', bytesToArray(`port 26379\nsentinel monitor mymaster ${ipA} 6379 1\n`));
  const sentinel = world.spawn('S1', 'redis-sentinel', { config: '/etc/sentinel.conf' }) as RedisProcess;
  const admin = async (host: string, port: number, ...argv: string[]): Promise<unknown> => {
    const c = world.connect({ from: 'app', to: `${host}:${port}` });
    try {
      return await world.settle(c.call(argv[0]!, ...argv.slice(1)));
    } finally {
      c.disconnect();
    }
  };
  await world.kernel.runUntilAsync(() => world.redis('B')!.server.replication.replica.state === 'connected', { maxMs: 10_000 });
  return { world, a, sentinel, ipA, ipB, admin };
}

/** The sentinel now names B as the master, as a failover leaves it. */
async function sentinelNamesB(s: Setup): Promise<void> {
  expect(await s.admin('S1', 26379, 'SENTINEL', 'REMOVE', 'mymaster')).toBe('OK');
  expect(await s.admin('S1', 26379, 'SENTINEL', 'MONITOR', 'mymaster', s.ipB, '6379', '1')).toBe('OK');
}

function connect(s: Setup): SentinelRedis {
  return connectSentinel(s.world, { from: 'app', sentinels: [{ host: 'S1', port: 26379 }], name: 'mymaster' });
}

describe('a client given { sentinels, name }', () => {
  it('asks the sentinel for the primary, then follows +switch-master to the promoted replica', async () => {
    const s = await setup();
    const r = connect(s);
    expect(await s.world.settle(r.set('before', '1'))).toBe('OK');
    expect(r.address).toBe(`${s.ipA}:6379`);
    await s.world.kernel.advanceAsync(100);

    // The failover by hand: B becomes the primary and A its replica, so the
    // client's connection to A stays up and only +switch-master moves it.
    expect(await s.admin('B', 6379, 'REPLICAOF', 'NO', 'ONE')).toBe('OK');
    expect(await s.admin('A', 6379, 'REPLICAOF', s.ipB, '6379')).toBe('OK');
    await s.world.kernel.advanceAsync(100);
    expect(r.address).toBe(`${s.ipA}:6379`);
    await sentinelNamesB(s);
    sentinelOf(s.sentinel.server)!.event('warning', '+switch-master', null, `mymaster ${s.ipA} 6379 ${s.ipB} 6379`);
    await s.world.kernel.runUntilAsync(() => r.status === 'ready' && r.address === `${s.ipB}:6379`, { maxMs: 10_000 });

    expect(await s.world.settle(r.set('after', '2'))).toBe('OK');
    expect(await s.world.settle(r.mget('before', 'after'))).toEqual(['1', '2']);
    expect(await s.world.settle(r.role())).toEqual(expect.arrayContaining(['master']));
    expect(r.history).toEqual([`${s.ipA}:6379`, `${s.ipB}:6379`]);
    r.disconnect();
  });

  it('asks again when its connection is lost, and never takes a server that ROLE says is a replica', async () => {
    const s = await setup();
    const r = connect(s);
    expect(await s.world.settle(r.set('k', 'v'))).toBe('OK');
    // The sentinel names B before B is promoted: the client must wait for
    // B to answer ROLE as a master rather than write to a replica.
    await sentinelNamesB(s);
    s.world.signal('A', s.a.pid, 'KILL');
    await s.world.kernel.runUntilAsync(() => r.status === 'reconnecting', { maxMs: 10_000 });
    await s.world.kernel.advanceAsync(500);
    expect(r.status).toBe('reconnecting');
    expect(r.current).toBeNull();

    expect(await s.admin('B', 6379, 'REPLICAOF', 'NO', 'ONE')).toBe('OK');
    expect(await s.world.settle(r.get('k'))).toBe('v');
    expect(r.address).toBe(`${s.ipB}:6379`);
    r.disconnect();
  });

  it('fails its commands with a clear error when no sentinel names the master', async () => {
    const s = await setup();
    const r = connectSentinel(s.world, { from: 'app', sentinels: [{ host: 'S1', port: 26379 }], name: 'nosuch', maxRounds: 3 });
    await expect(s.world.settle(r.get('k'))).rejects.toThrow('All sentinels are unreachable or name no master "nosuch".');
    expect(r.status).toBe('end');
  });
});
