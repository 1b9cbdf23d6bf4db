/**
 * The ledger check: the writes a client was told succeeded during a step,
 * judged against the data of the server that holds the truth. A
 * relation, never a count: some were lost (a split brain), or none was.
 */
import { describe, expect, it } from 'vitest';
import { HeadlessLessonHost } from '../../src/lessons/headless.js';
import { parseLesson } from '../../src/lessons/parse.js';
import { LessonRunner } from '../../src/lessons/runner.js';
import { loadLedgerCode } from '../../src/lessons/ledger-code.js';
import { inProcessCells } from './replay.js';

const LESSON = `---
id: ledger-probe
number: 90
title: A ledger probe
summary: Writes acknowledged by a primary cut off from its replica are lost when the replica takes over.
world:
  seed: 90
  hosts: [ { name: A }, { name: B }, { name: app } ]
  servers:
    - { host: A, config: { save: "" } }
    - { host: B, config: { save: "", replicaof: "A 6379" } }
  settle: 5s
  terminals:
    - { name: A, kind: shell, host: A }
---

## Step: A split brain

\`\`\`js cell id=write-a from=app
for (let i = 0; i < 5; i++) await redis.set('order:' + i, String(i));
\`\`\`

\`\`\`check
- ledger: lost
  cause: partition
- ledger: kept
  on: A
  label: "A still has what it acknowledged"
\`\`\`

\`\`\`solution
sim> partition A B
cell> write-a
sim> shell B redis-cli REPLICAOF NO ONE
sim> heal
sim> shell A redis-cli REPLICAOF B 6379
sim> advance 5s
\`\`\`

## Step: Writes to the one primary

\`\`\`js cell id=write-b from=app
const b = connect('B:6379');
for (let i = 10; i < 13; i++) await b.set('order:' + i, String(i));
\`\`\`

\`\`\`check
- ledger: kept
\`\`\`

\`\`\`solution
cell> write-b
\`\`\`
`;

describe('the ledger check', () => {
  it('is false when its step begins, finds the writes a split brain lost, and then the writes kept', async () => {
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(parseLesson(LESSON, '90-ledger-probe.md'), host, inProcessCells(host));
    runner.start();
    await loadLedgerCode();
    const start = runner.evaluate(true).results;
    expect(start.map((r) => r.ok)).toEqual([false, false]);
    expect(start[0]!.label).toBe('Some writes acknowledged after the partition are missing');
    expect(start[0]!.detail).toBe('no client has been told a write succeeded in this step yet');
    await runner.playSolution(0);
    const after = runner.evaluate().results;
    expect(after[0]).toMatchObject({ ok: true, detail: 'against the data on B: 5 writes acknowledged by A after the partition were lost.' });
    // Judged against A's own data now (a replica of B), the same writes are gone from it too.
    expect(after[1]).toMatchObject({ ok: false, label: 'A still has what it acknowledged' });
    expect(after[1]!.detail).toContain('5 writes acknowledged by A after the partition were lost.');
    await runner.next();
    expect(runner.evaluate().results[0]!.ok).toBe(false);
    await runner.playSolution(1);
    expect(runner.evaluate().results[0]).toMatchObject({ ok: true, label: 'No write acknowledged in this step is missing', detail: 'all 3 writes acknowledged in this step are in the data on B' });
  });

  it('is refused by the parser when a cause goes with kept, or names no host of the world', () => {
    const bad = LESSON.replace('- ledger: kept\n  on: A', '- ledger: kept\n  cause: crash').replace('- ledger: lost\n  cause: partition', '- ledger: lost\n  on: Z');
    expect(() => parseLesson(bad, '90-ledger-probe.md')).toThrow(/check 1 \(ledger\): no host named Z in world\.hosts\n.*check 2 \(ledger\): a ledger check names the cause of lost writes only/);
  });
});
