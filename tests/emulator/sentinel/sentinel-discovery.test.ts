/**
 * Sentinels learn the world around a master by themselves: the replicas
 * from the master's INFO (+slave, then INFO from each replica), the other
 * sentinels from the hellos they publish on __sentinel__:hello (+sentinel),
 * and they write both into their config file.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

function fields(reply: unknown): Map<string, string> {
  const flat = reply as string[];
  const out = new Map<string, string>();
  for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, flat[i + 1]!);
  return out;
}

function setup(seed: number): { world: World; servers: RedisProcess[]; sentinels: RedisProcess[]; text: (host: string, path: string) => string } {
  const world = new World({ seed });
  registerSentinel(world);
  for (const h of ['A', 'B', 'C', 'S1', 'S2', 'S3']) world.addHost(h);
  const servers = [
    world.startRedis('A', { config: { save: '' } }),
    world.startRedis('B', { config: { save: '', replicaof: '10.0.0.2 6379' } }),
  ];
  servers.push(world.startRedis('C', { config: { save: '', replicaof: '10.0.0.2 6379', 'replica-priority': '50' } }));
  const sentinels: RedisProcess[] = [];
  for (const s of ['S1', 'S2', 'S3']) {
    world.host(s).disk.mkdir('/etc', { recursive: true });
    world.host(s).disk.writeFile('/etc/sentinel.conf', bytesToArray('logfile "/sentinel.log"\nsentinel monitor mymaster 10.0.0.2 6379 2\nsentinel down-after-milliseconds mymaster 5000\n'));
    sentinels.push(world.spawn(s, 'redis-sentinel', { config: '/etc/sentinel.conf' }) as RedisProcess);
  }
  const text = (host: string, path: string): string => bytesFromArray(world.host(host).disk.readFile(path));
  return { world, servers, sentinels, text };
}

describe('sentinel discovery', () => {
  it('finds the replicas and the other sentinels, and remembers them', async () => {
    const { world, text } = setup(11);
    world.advance(12_000);
    const log = text('S1', '/sentinel.log');
    expect(log).toContain('* +slave slave 10.0.0.3:6379 10.0.0.3 6379 @ mymaster 10.0.0.2 6379\n');
    expect(log).toContain('* +slave slave 10.0.0.4:6379 10.0.0.4 6379 @ mymaster 10.0.0.2 6379\n');
    const ids = ['S1', 'S2', 'S3'].map((h) => /sentinel myid (\w+)/.exec(text(h, '/etc/sentinel.conf'))![1]!);
    expect(log).toContain(`* +sentinel sentinel ${ids[1]} 10.0.0.6 26379 @ mymaster 10.0.0.2 6379\n`);
    expect(log).toContain(`* +sentinel sentinel ${ids[2]} 10.0.0.7 26379 @ mymaster 10.0.0.2 6379\n`);
    expect(log).not.toContain(`+sentinel sentinel ${ids[0]}`);
    expect(log).not.toContain('+sdown');

    const conf = text('S1', '/etc/sentinel.conf');
    expect(conf).toContain('sentinel known-replica mymaster 10.0.0.3 6379\n');
    expect(conf).toContain('sentinel known-replica mymaster 10.0.0.4 6379\n');
    expect(conf).toContain(`sentinel known-sentinel mymaster 10.0.0.6 26379 ${ids[1]}\n`);
    expect(conf).toContain(`sentinel known-sentinel mymaster 10.0.0.7 26379 ${ids[2]}\n`);

    const c = world.connect({ from: 'A', to: 'S1:26379' });
    const replicas = (await world.settle(c.call('SENTINEL', 'REPLICAS', 'mymaster'))) as unknown[];
    const byName = new Map(replicas.map((r) => [fields(r).get('name')!, fields(r)]));
    expect([...byName.keys()].sort()).toEqual(['10.0.0.3:6379', '10.0.0.4:6379']);
    const cInfo = byName.get('10.0.0.4:6379')!;
    expect(cInfo.get('flags')).toBe('slave');
    expect(cInfo.get('role-reported')).toBe('slave');
    expect(cInfo.get('master-link-status')).toBe('ok');
    expect(cInfo.get('master-host')).toBe('10.0.0.2');
    expect(cInfo.get('master-port')).toBe('6379');
    expect(cInfo.get('slave-priority')).toBe('50');
    expect(byName.get('10.0.0.3:6379')!.get('slave-priority')).toBe('100');
    expect(Number(cInfo.get('slave-repl-offset'))).toBeGreaterThan(0);
    expect(cInfo.get('runid')).toMatch(/^[0-9a-f]{40}$/);

    const sentinels = ((await world.settle(c.call('SENTINEL', 'SENTINELS', 'mymaster'))) as unknown[]).map(fields);
    expect(sentinels.map((s) => s.get('name')).sort()).toEqual([ids[1], ids[2]].sort());
    expect(sentinels.every((s) => s.get('flags') === 'sentinel' && s.get('voted-leader') === '?')).toBe(true);

    const master = fields(await world.settle(c.call('SENTINEL', 'MASTER', 'mymaster')));
    expect(master.get('flags')).toBe('master');
    expect(master.get('num-slaves')).toBe('2');
    expect(master.get('num-other-sentinels')).toBe('2');
    expect(await world.settle(c.call('SENTINEL', 'CKQUORUM', 'mymaster'))).toBe('OK 3 usable Sentinels. Quorum and failover authorization can be reached');
    const info = String(await world.settle(c.call('INFO', 'sentinel')));
    expect(info).toContain('master0:name=mymaster,status=ok,address=10.0.0.2:6379,slaves=2,sentinels=3\r\n');

    // The links show on the servers as named clients: a command link and a pub/sub link per sentinel.
    const a = world.connect({ from: 'S1', to: 'A:6379' });
    const list = String(await world.settle(a.call('CLIENT', 'LIST')));
    expect(list).toContain(`name=sentinel-${ids[0]!.slice(0, 8)}-cmd `);
    expect(list).toContain(`name=sentinel-${ids[0]!.slice(0, 8)}-pubsub `);
  });

  it('a replica that goes away is seen down, and a sentinel refuses other PUBLISH channels', async () => {
    const { world, servers, text } = setup(12);
    world.advance(12_000);
    servers[1]!.signal('KILL');
    world.advance(7000);
    expect(text('S2', '/sentinel.log')).toContain('# +sdown slave 10.0.0.3:6379 10.0.0.3 6379 @ mymaster 10.0.0.2 6379\n');
    const c = world.connect({ from: 'A', to: 'S2:26379' });
    await expect(world.settle(c.call('PUBLISH', 'x', 'y'))).rejects.toThrow('Only HELLO messages are accepted by Sentinel instances.');
  });

  it('same seed, same trace', () => {
    const one = setup(5);
    one.world.advance(12_000);
    const two = setup(5);
    two.world.advance(12_000);
    for (const h of ['S1', 'S2', 'S3']) expect(two.text(h, '/sentinel.log')).toBe(one.text(h, '/sentinel.log'));
  });
});
