/**
 * What the ledger panel reads: the acknowledged writes newest first, each
 * kept or lost against the data of the primary running now (of several,
 * the one replicas follow), and the verdict in sentences.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { ledgerOf, loadLedgerCode } from '../../../src/lessons/ledger-code.js';
import { readLedger } from '../../../src/web/ledger/ledger-rows.js';

describe('the ledger panel', () => {
  it('lists the writes a split brain lost, newest first, and says why', async () => {
    const w = new World({ seed: 7 });
    for (const h of ['A', 'B', 'app']) w.addHost(h);
    w.startRedis('A', { config: { save: '' } });
    const b = w.startRedis('B', { config: { save: '', replicaof: 'A 6379' } });
    w.runUntil(() => b.server.replication.replica.state === 'connected', { maxMs: 20_000 });
    await loadLedgerCode();
    const ledger = ledgerOf(w)!;
    expect(readLedger(w, ledger).sentences).toEqual(['No client of the world has been told a write succeeded yet.']);
    const toA = w.connect({ from: 'app', to: 'A:6379' });
    const toB = w.connect({ from: 'app', to: 'B:6379' });
    await w.settle(toA.set('page', '<b>home</b>'));
    w.advance(1000);
    w.partition('A', 'B');
    for (let i = 1; i <= 3; i++) await w.settle(toA.set(`order:${i}`, String(i)));
    await w.settle(toB.call('REPLICAOF', 'NO', 'ONE'));
    // Two primaries: A still counts B as its replica (the cut link has not timed out), so A's data is the truth for now.
    const split = readLedger(w, ledger);
    expect(split.sentences).toEqual(['4 writes acknowledged, 4 of them judged against the data on A, the primary now.', 'No acknowledged write is missing.']);
    expect(split.rows.every((r) => r.state === 'kept')).toBe(true);
    w.heal();
    await w.settle(toA.call('REPLICAOF', 'B', '6379'));
    w.advance(5000);
    const after = readLedger(w, ledger);
    expect(after.sentences).toEqual(['4 writes acknowledged, 4 of them judged against the data on B, the primary now.', '3 writes acknowledged by A after the partition were lost.']);
    expect(after.rows.map((r) => [r.command, r.server, r.role, r.state])).toEqual([
      ['SET order:3 3', 'A', 'primary', 'lost'],
      ['SET order:2 2', 'A', 'primary', 'lost'],
      ['SET order:1 1', 'A', 'primary', 'lost'],
      // A value is carried as text, to be shown as text.
      ['SET page <b>home</b>', 'A', 'primary', 'kept'],
    ]);
    expect(after.rows[0]!.why).toMatch(/^SET order:3 3 was acknowledged by A at \d+\.\d s, after the partition at \d+\.\d s cut A off from B; A was demoted at \d+\.\d s \(it became a replica of B\) and its data was replaced by B's\.$/);
  });
});
