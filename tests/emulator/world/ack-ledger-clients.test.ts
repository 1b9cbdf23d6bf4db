/**
 * The ledger counts every client the world told a write succeeded, not
 * only the client library's: a redis-cli given a command in a host's
 * shell (the reply it printed) and a terminal's interactive session. It
 * is read from the world's trace, so a ledger opened late, or over the
 * world restored from its checkpoint, gives the same verdict.
 */
import { describe, expect, it } from 'vitest';
import { HostShell, registerShellProgram } from '../../../emulator/programs/shell.js';
import { AckLedger, type Verdict } from '../../../emulator/world/ack-ledger.js';
import { World } from '../../../emulator/world/world.js';
import { advanceUntil, sentinelSetup, sentinelWorld, waitForDiscovery } from '../../support/sentinel-world.js';

/** The parts of a verdict that must come out the same however the ledger was opened. */
function outline(v: Verdict) {
  return { acknowledged: v.acknowledged, judged: v.judged, summary: v.summary, lost: v.lost.map((l) => [l.write.seq, l.write.command, l.write.atUs, l.cause, l.explanation]) };
}

describe('the ledger over every client of the world', () => {
  it('counts what redis-cli printed in a shell and what a terminal session was told; a restored world gives the same verdict', () => {
    const s = sentinelWorld(41);
    const w = s.world;
    expect(waitForDiscovery(s)).toBe(true);
    const early = new AckLedger(w);
    const shell = new HostShell(w, 'app', null);
    const cli = (line: string): void => {
      shell.run(line);
      w.runUntil(() => !shell.busy, { maxMs: 10_000 });
    };
    w.openSession('t1', 'app', 'A:6379');
    cli('redis-cli -h A SET before 1');
    w.send('t1', ['INCR', 'hits']);
    w.advance(1000);
    for (const h of ['B', 'C', 'S1', 'S2', 'S3']) w.partition('A', h);
    // A, cut off from its replicas and the sentinels but not from app, keeps acknowledging while B or C is promoted.
    for (let i = 0; i < 12; i++) {
      cli(`redis-cli -h A SET order:${i} ${i}`);
      w.send('t1', ['INCR', 'hits']);
      w.advance(1000);
    }
    w.heal();
    expect(advanceUntil(w, () => s.masters().length === 1 && !s.masters().includes('A'), 30_000)).toBe(true);
    const survivor = s.masters()[0]!;

    const v = early.verdict(survivor);
    const lostCommands = v.lost.map((l) => l.write.command);
    // The shell's twelve SETs after the cut, and the session's INCRs after it; not the writes before it.
    for (let i = 0; i < 12; i++) expect(lostCommands).toContain(`SET order:${i} ${i}`);
    expect(lostCommands).not.toContain('SET before 1');
    expect(lostCommands.filter((c) => c === 'INCR hits').length).toBeGreaterThan(0);
    expect(v.lost.every((l) => l.write.host === 'A' && l.cause === 'partition')).toBe(true);
    expect(v.summary).toEqual([`${v.lost.length} writes acknowledged by A after the partition were lost.`]);

    // Opened now, it reads the same history from the trace.
    expect(outline(new AckLedger(w).verdict(survivor))).toEqual(outline(v));
    // And so does a ledger over the world rebuilt from its checkpoint (a page reloaded).
    const copy = World.restore(w.checkpoint(), (x) => {
      sentinelSetup(x);
      registerShellProgram(x);
    });
    expect(copy.trace.hash()).toBe(w.trace.hash());
    expect(outline(new AckLedger(copy).verdict(survivor))).toEqual(outline(v));
  });
});
