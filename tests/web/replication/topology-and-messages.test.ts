import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { WireRecorder } from '../../../emulator/sim/wire.js';
import { applyFault } from '../../../src/web/cluster/faults.js';
import { clusterView } from '../../../src/web/cluster/cluster-view.js';
import { installWorkbookPrograms } from '../../../src/web/world-programs.js';
import { wireMessages } from '../../../src/web/replication/wire-messages.js';
import { layoutSequence } from '../../../src/web/replication/sequence-layout.js';

/** Three servers on hosts A, B and C, the wire recorded, faults applied as the panel applies them. */
function cluster() {
  const world = new World({ seed: 4 });
  world.network.wire = new WireRecorder();
  installWorkbookPrograms(world);
  for (const h of ['A', 'B', 'C']) {
    world.addHost(h, 'metal');
    world.startRedis(h, { config: { save: '', 'repl-diskless-sync': 'no' } });
  }
  world.link('A', 'B', 'vpn');
  const host = { world, input: (fn: () => void) => fn() };
  const follow = (h: string, primary: string | null) =>
    applyFault(host as never, { kind: 'replicaof', host: h, port: 6379, primary: primary === null ? null : { host: primary, port: 6379 } });
  return { world, follow };
}

describe('the replication topology in the cluster panel', () => {
  it('draws a chain A -> B -> C with each link\'s state, then B made a primary again in one click', () => {
    const { world, follow } = cluster();
    expect(follow('B', 'A').ok).toBe(true);
    expect(follow('C', 'B').message).toBe('C:6379: REPLICAOF B 6379 sent; the handshake and sync follow');
    world.runUntil(() => world.redis('C')!.server.replication.replica.state === 'connected', { maxMs: 30_000 });
    world.advance(1500);
    const [root] = clusterView(world).topology;
    expect(root).toMatchObject({ host: 'A', role: 'primary', children: [{ host: 'B', role: 'replica', follows: 'A:6379', children: [{ host: 'C', follows: 'B:6379' }] }] });
    expect(root!.children[0]!.link).toMatchObject({ status: 'up', behindBytes: 0, primaryMissing: false });
    expect(root!.children[0]!.link!.lagSeconds).toBeLessThanOrEqual(1);
    follow('B', null);
    world.advance(10);
    const roots = clusterView(world).topology;
    expect(roots.map((n) => [n.host, n.role])).toEqual([
      ['A', 'primary'],
      ['B', 'primary'],
    ]);
    expect(roots[1]!.children.map((n) => n.host)).toEqual(['C']);
  });

  it('shows a full sync in progress with the share of the snapshot received', async () => {
    const { world, follow } = cluster();
    const a = world.connect({ from: 'C', to: 'A:6379' });
    await world.settle(a.call('CONFIG', 'SET', 'rdbcompression', 'no'));
    const pad = 'x'.repeat(200);
    for (let i = 0; i < 2000; i++) void a.call('SET', `k${i}`, pad);
    world.advance(2000);
    follow('B', 'A');
    world.runUntil(() => clusterView(world).topology[0]?.children[0]?.link?.status === 'sync' && (clusterView(world).topology[0]!.children[0]!.link!.syncPercent ?? 0) > 0, { maxMs: 30_000 });
    const link = clusterView(world).topology[0]!.children[0]!.link!;
    expect(link.syncPercent).toBeGreaterThan(0);
    expect(link.syncPercent).toBeLessThan(100);
  });
});

describe('the message view', () => {
  it('labels the handshake, draws the RDB as one bar as long as its transfer, then the stream', async () => {
    const { world, follow } = cluster();
    const a = world.connect({ from: 'C', to: 'A:6379' });
    await world.settle(a.call('SET', 'k', 'v'));
    follow('B', 'A');
    world.runUntil(() => world.redis('B')!.server.replication.replica.state === 'connected', { maxMs: 30_000 });
    await world.settle(a.call('SET', 'after', '1'));
    world.advance(1500);
    const messages = wireMessages(world.network.wire!.pieces(), 'B', 'A');
    const labels = messages.map((m) => `${m.fromLeft ? 'B->A' : 'A->B'} ${m.kind} ${m.label}`);
    expect(labels.slice(0, 8)).toEqual([
      'B->A handshake PING',
      'A->B handshake +PONG',
      'B->A handshake REPLCONF listening-port 6379',
      'B->A handshake REPLCONF capa eof capa …',
      'A->B handshake +OK',
      'A->B handshake +OK',
      expect.stringMatching(/^B->A handshake PSYNC [0-9a-f]{40} 1$/),
      expect.stringMatching(/^A->B handshake \+FULLRESYNC [0-9a-f]{40} 0$/),
    ]);
    expect(labels[8]).toMatch(/^A->B snapshot RDB \d+ B$/);
    const rdb = messages.find((m) => m.kind === 'snapshot')!;
    // Across the VPN link: tens of milliseconds at least.
    expect(rdb.arriveUs - rdb.sentUs).toBeGreaterThan(20_000);
    expect(labels).toContain('A->B stream SELECT 0 (+1 more)');
    expect(labels.some((l) => /^B->A stream REPLCONF ACK \d+$/.test(l))).toBe(true);
    const steps = world.trace.find('repl').map((e) => ({ atUs: e.t + world.kernel.startUs, onLeft: e.source === 'B', text: e.text }));
    const rows = layoutSequence(messages, steps);
    expect(rows.length).toBe(messages.length + steps.filter((s) => s.atUs >= 0).length + rows.filter((r) => r.gap).length);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.top).toBeGreaterThanOrEqual(rows[i - 1]!.top);
  });

  it('shows what a key or a reply holds only as visible text', () => {
    const pieces = [
      { sentUs: 1, arriveUs: 2, fromHost: 'X', fromPort: 1, toHost: 'Y', toPort: 6379, socket: 1, bytes: 30, head: '*2\r\n$3\r\nGET\r\n$9\r\n<b>\x1b[31m\r\n' },
    ];
    const [m] = wireMessages(pieces, 'X', 'Y');
    expect(m!.label).not.toMatch(/[\x00-\x1f]/);
    expect(m!.label.startsWith('GET <b>')).toBe(true);
  });
});
