/**
 * Split brain, seen through the acknowledged-writes ledger: a partition
 * cuts the primary A off from its replicas and the sentinels but not from
 * a client that keeps writing; the sentinels promote a replica; after the
 * heal A is turned into a replica of it and the writes A acknowledged
 * meanwhile are gone. The ledger finds each one and explains it by the
 * timeline; min-replicas-to-write shrinks the loss.
 */
import { describe, expect, it } from 'vitest';
import { AckLedger, type Verdict } from '../../../emulator/world/ack-ledger.js';
import { advanceUntil, sentinelWorld, waitForDiscovery } from '../../support/sentinel-world.js';

const OTHERS = ['B', 'C', 'S1', 'S2', 'S3'];

interface Outcome {
  verdict: Verdict;
  /** Keys of the writes A acknowledged after the partition. */
  ackedAfterCut: string[];
  survivorHas(key: string): boolean;
}

async function splitBrain(seed: number, config: Record<string, string> = {}): Promise<Outcome> {
  const s = sentinelWorld(seed, config);
  const w = s.world;
  expect(waitForDiscovery(s)).toBe(true);
  const ledger = new AckLedger(w);
  const r = w.connect({ from: 'app', to: 'A:6379' });
  let i = 0;
  const write = async (): Promise<boolean> => {
    const key = `order:${i}`;
    const ok = await w.settle(r.set(key, String(i++))).then(
      () => true,
      () => false,
    );
    await w.kernel.advanceAsync(500);
    return ok;
  };
  for (let n = 0; n < 6; n++) expect(await write()).toBe(true);
  for (const h of OTHERS) w.partition('A', h);
  const cutAtUs = w.kernel.now - w.kernel.startUs;
  // The client keeps writing to A while the sentinels fail over to B or C.
  for (let n = 0; n < 40; n++) await write();
  expect(s.masters().length).toBe(2);
  w.heal();
  expect(advanceUntil(w, () => s.masters().length === 1 && !s.masters().includes('A'), 30_000)).toBe(true);
  const survivor = s.masters()[0]!;
  const verdict = ledger.verdict(survivor);
  const db = w.redis(survivor)!.server.dbs[0]!;
  return {
    verdict,
    ackedAfterCut: ledger.acknowledged.filter((a) => a.atUs >= cutAtUs).map((a) => a.key),
    survivorHas: (key) => db.lookupNoTouch(key) !== undefined && db.lookupNoTouch(key) !== null,
  };
}

describe('the acknowledged-writes ledger', () => {
  it('finds the writes the old primary acknowledged after the partition, and explains each loss', async () => {
    const { verdict, ackedAfterCut, survivorHas } = await splitBrain(31);
    expect(ackedAfterCut.length).toBeGreaterThan(0);
    // Every write A acknowledged after the cut is gone from the survivor, and the ledger lists exactly those.
    for (const key of ackedAfterCut) expect(survivorHas(key)).toBe(false);
    expect(verdict.lost.map((l) => l.write.key)).toEqual(ackedAfterCut);
    expect(verdict.lost.every((l) => l.cause === 'partition' && l.write.host === 'A')).toBe(true);
    expect(verdict.lost[0]!.explanation).toMatch(/^SET order:\d+ \d+ was acknowledged by A at \d+\.\d s, after the partition at \d+\.\d s cut A off from B, C, S1, S2, S3; A was demoted at \d+\.\d s \(it became a replica of [BC]\) and its data was replaced by [BC]'s\.$/);
    expect(verdict.summary).toEqual([`${ackedAfterCut.length} writes acknowledged by A after the partition were lost.`]);
    // What A acknowledged before the cut reached the replicas.
    expect(verdict.judged - verdict.lost.length).toBeGreaterThanOrEqual(6);
  });

  it('loses fewer writes when A needs a replica that has kept up (min-replicas-to-write)', async () => {
    const plain = await splitBrain(31);
    const guarded = await splitBrain(31, { 'min-replicas-to-write': '1', 'min-replicas-max-lag': '2' });
    expect(guarded.verdict.lost.length).toBeLessThan(plain.verdict.lost.length);
    // A still acknowledges what it takes before it sees its replicas' lag, and those writes are lost too.
    expect(guarded.verdict.lost.map((l) => l.write.key)).toEqual(guarded.ackedAfterCut);
  });
});
