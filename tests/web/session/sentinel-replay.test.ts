/**
 * A saved world holding three sentinels started from a shell comes back
 * after a reload: the replay registers Sentinel's code before it starts,
 * and a line that starts a sentinel starts it within the line (its code
 * is loaded first), so the replay reaches the same world.
 */
import { describe, expect, it } from 'vitest';
import { bytesFromArray } from '../../../emulator/resp/bytes.js';
import { MemoryStore } from '../../../src/web/session/kv-store.js';
import type { World } from '../../../emulator/world/world.js';
import { loadSentinelParts } from '../../../src/web/sentinel-loader.js';
import { reloaded, sessionHarness } from './session-harness.js';

function sentinelsOn(world: World, host: string): number {
  return [...world.host(host).processes.values()].filter((p) => p.argv[0] === 'redis-sentinel').length;
}

describe('a saved world with sentinels', () => {
  it('replays after a reload to the same world, with the three sentinels running', async () => {
    const kv = new MemoryStore();
    const first = sessionHarness({ kv });
    await first.load();
    const cli = first.open();
    await first.run(50);
    first.store.sendLine(cli.id, 'SET k v');
    const shell = first.open({ kind: 'shell', host: 'app' });
    await first.run(50);
    // The code arrives in real time (a dynamic import); here it is fetched once beforehand.
    await first.until(loadSentinelParts());
    for (const n of [1, 2, 3]) {
      first.store.sendLine(shell.id, `echo "port ${26378 + n}" > /s${n}.conf`);
      first.store.sendLine(shell.id, `echo "logfile /s${n}.log" >> /s${n}.conf`);
      // The sandbox's server is the first host added: 10.0.0.2.
      first.store.sendLine(shell.id, `echo "sentinel monitor mymaster 10.0.0.2 6379 2" >> /s${n}.conf`);
      first.store.sendLine(shell.id, `redis-sentinel /s${n}.conf`);
      await first.run(200);
    }
    // Long enough for hellos: every sentinel learns of the two others.
    await first.run(6000);
    const world = first.store.world;
    expect(sentinelsOn(world, 'app')).toBe(3);
    const log = bytesFromArray(world.host('app').disk.readFile('/s1.log'));
    expect(log.match(/\+sentinel sentinel/g)?.length).toBe(2);
    const again = await reloaded(first);
    const w = again.store.world;
    expect(again.session.getSnapshot().notice).toBeNull();
    expect(sentinelsOn(w, 'app')).toBe(3);
  });
});
