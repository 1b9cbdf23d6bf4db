import { describe, expect, it } from 'vitest';
import { clusterView, preview, PREVIEW_CHARS } from '../../../src/web/cluster/cluster-view.js';
import { buildSandboxWorld } from '../../../src/web/world-setup.js';
import { sentinelWorld, SENTINEL_HOSTS } from '../../support/sentinel-world.js';

async function sandboxWith(commands: string[][]) {
  const world = buildSandboxWorld(1);
  const r = world.connect({ from: 'app', to: 'redis:6379' });
  for (const c of commands) await world.settle(r.call(c[0]!, ...c.slice(1)));
  return { world, r };
}

describe('the cluster view', () => {
  it('shows sentinels as sentinels, and leaves them out of the replication topology: they hold no data and follow no primary', () => {
    const { world } = sentinelWorld(3);
    world.advance(3000);
    const v = clusterView(world);
    for (const h of SENTINEL_HOSTS) {
      const servers = v.hosts.find((x) => x.name === h)!.servers;
      expect(servers.map((s) => [s.port, s.sentinel])).toEqual([[26379, true]]);
    }
    expect(v.hosts.find((x) => x.name === 'A')!.servers.map((s) => [s.port, s.sentinel])).toEqual([[6379, false]]);
    const shown = (nodes: readonly { host: string; children: readonly unknown[] }[]): string[] => nodes.flatMap((n) => [n.host, ...shown(n.children as typeof nodes)]);
    expect(shown(v.topology)).toEqual(['A', 'B', 'C']);
  });

  it('lists hosts with power, processes and servers with their keys per database', async () => {
    const { world } = await sandboxWith([
      ['SET', 'a', '1'],
      ['RPUSH', 'l', 'x', 'y', 'z'],
      ['SELECT', '3'],
      ['HSET', 'h', 'f', 'v'],
      ['SET', 't', 'x', 'EX', '100'],
    ]);
    const v = clusterView(world);
    expect(v.hosts.map((h) => [h.name, h.profile, h.powered])).toEqual([
      ['redis', 'metal', true],
      ['app', 'metal', true],
    ]);
    const redis = v.hosts[0]!;
    expect(redis.processes.map((p) => p.command)).toEqual(['redis-server *:6379']);
    const server = redis.servers[0]!;
    expect(server.port).toBe(6379);
    expect(server.clients).toBe(1);
    expect(server.usedMemoryHuman).toMatch(/^\d+(\.\d+)?[KMG]$/);
    expect(server.dbs.map((d) => [d.index, d.keys, d.expires])).toEqual([
      [0, 2, 0],
      [3, 2, 1],
    ]);
    expect(server.dbs[0]!.sample).toEqual([
      { name: '"a"', type: 'string', detail: '"1"' },
      { name: '"l"', type: 'list', detail: '3 items' },
    ]);
    expect(server.dbs[1]!.sample.map((k) => k.detail)).toEqual(['1 field', '"x"']);
  });

  it('quotes names and values as redis-cli does, so nothing in them is markup or a control sequence', async () => {
    // The client library sends strings as UTF-8: U+00FF is the two bytes c3 bf.
    const { world } = await sandboxWith([['SET', '<img src=x onerror=alert(1)>', '\x1b[31mred\r\n\xff']]);
    const [k] = clusterView(world).hosts[0]!.servers[0]!.dbs[0]!.sample;
    expect(k).toEqual({ name: '"<img src=x onerror=alert(1)>"', type: 'string', detail: '"\\x1b[31mred\\r\\n\\xc3\\xbf"' });
  });

  it('leaves out keys past their expiry that the server has not reclaimed yet', async () => {
    const { world } = await sandboxWith([
      ['CONFIG', 'SET', 'hz', '1'],
      ['SET', 'gone', 'x', 'PX', '5'],
      ['SET', 'kept', 'y'],
    ]);
    world.advance(10);
    const db = clusterView(world).hosts[0]!.servers[0]!.dbs[0]!;
    expect(db.sample.map((k) => k.name)).toEqual(['"kept"']);
  });

  it('cuts long names and values', () => {
    const p = preview('x'.repeat(1000));
    expect(p).toHaveLength(PREVIEW_CHARS);
    expect(p.endsWith('…')).toBe(true);
    expect(preview('\x00'.repeat(30))).toHaveLength(PREVIEW_CHARS);
  });
});
