/**
 * The ledger after a reload: it is read from the world's trace, which the
 * replay of a saved session rebuilds, so the reloaded page shows the same
 * acknowledged writes and the same verdict; the writes a terminal's
 * redis-cli and a redis-cli typed in a shell printed count as any
 * client's.
 */
import { describe, expect, it } from 'vitest';
import { ledgerOf, loadLedgerCode } from '../../../src/lessons/ledger-code.js';
import { readLedger } from '../../../src/web/ledger/ledger-rows.js';
import { MemoryStore } from '../../../src/web/session/kv-store.js';
import { reloaded, sessionHarness } from './session-harness.js';

describe('the ledger of a reloaded page', () => {
  it('shows the same writes and verdict as before the reload', async () => {
    await loadLedgerCode();
    const kv = new MemoryStore();
    const first = sessionHarness({ kv });
    await first.load();
    const cli = first.open();
    await first.run(50);
    first.store.sendLine(cli.id, 'SET page <b>home</b>');
    first.store.sendLine(cli.id, 'INCR visits');
    const shell = first.open({ kind: 'shell', host: 'app' });
    await first.run(50);
    first.store.sendLine(shell.id, 'redis-cli -h redis SET page /about');
    first.store.sendLine(shell.id, 'redis-cli -h redis INCR visits');
    await first.run(500);
    const world = first.store.world;
    const before = readLedger(world, ledgerOf(world)!);
    expect(before.rows.map((r) => [r.command, r.server, r.reply, r.state])).toEqual([
      ['INCR visits', 'redis', '2', 'kept'],
      ['SET page /about', 'redis', 'OK', 'kept'],
      ['INCR visits', 'redis', '1', 'kept'],
      ['SET page <b>home</b>', 'redis', 'OK', 'kept'],
    ]);
    const w = (await reloaded(first)).store.world;
    expect(readLedger(w, ledgerOf(w)!)).toEqual(before);
  });
});
