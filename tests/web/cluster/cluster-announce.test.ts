import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { clusterChanges } from '../../../src/web/cluster/cluster-announce.js';
import { applyFault } from '../../../src/web/cluster/faults.js';
import { clusterView } from '../../../src/web/cluster/cluster-view.js';
import { installWorkbookPrograms } from '../../../src/web/world-programs.js';

describe('what the cluster live region says', () => {
  it('tells a role change, a link going up and down, a power cut and a server stopping, never an offset moving alone', () => {
    const world = new World({ seed: 7 });
    installWorkbookPrograms(world);
    for (const h of ['A', 'B']) {
      world.addHost(h, 'metal');
      world.startRedis(h, { config: { save: '' } });
    }
    const host = { world, input: (fn: () => void) => fn() };
    const fault = (f: Parameters<typeof applyFault>[1]) => applyFault(host as never, f);
    let view = clusterView(world);
    const said = (): string[] => {
      const next = clusterView(world);
      const out = clusterChanges(view, next);
      view = next;
      return out;
    };
    expect(clusterChanges(null, view)).toEqual([]);

    fault({ kind: 'replicaof', host: 'B', port: 6379, primary: { host: 'A', port: 6379 } });
    world.advance(10);
    expect(said()).toEqual([expect.stringMatching(/^B:6379 is now a replica of A:6379, at offset \d+\.$/)]);
    world.runUntil(() => world.redis('B')!.server.replication.replica.state === 'connected', { maxMs: 30_000 });
    world.advance(1500);
    expect(said()).toEqual([expect.stringMatching(/^B:6379's link to A:6379 is up, at offset \d+\.$/)]);

    // Writes move the offsets; nothing is said.
    const c = world.connect({ from: 'A', to: 'A:6379' });
    for (let i = 0; i < 5; i++) void c.call('SET', `k${i}`, 'v');
    world.advance(1500);
    expect(view.topology[0]!.offset).toBeLessThan(clusterView(world).topology[0]!.offset);
    expect(said()).toEqual([]);

    fault({ kind: 'power-loss', host: 'A' });
    world.advance(2000);
    expect(said()).toEqual(['Host A lost power.', 'A:6379 is no longer running.']);
    // A power cut sends no FIN: the replica finds its link dead when repl-timeout (60 s) passes.
    world.advance(61_000);
    expect(said()).toEqual([expect.stringMatching(/^B:6379's link to A:6379 is down, at offset \d+\.$/)]);
    fault({ kind: 'power-on', host: 'A' });
    world.advance(10);
    expect(said()).toEqual(['Host A has power again.']);
  });
});
