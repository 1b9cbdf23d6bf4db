/**
 * What a crash leaves with the AOF on (Redis in Action 4.1.2), as a
 * property over random workloads and crash instants, for each appendfsync
 * policy. Clients append to one list, so the list's order is the order
 * the server applied the writes; after a power loss and a restart:
 *
 * - the list is a prefix of what the server held at the crash (no write is
 *   lost while a later one survives, a torn tail is cut by
 *   aof-load-truncated);
 * - always: every acknowledged write is there;
 * - everysec: an acknowledged write is lost only if it was acknowledged in
 *   the last ~2 seconds before the crash;
 * - no: only the last ~35 s can be lost (the kernel writes back data dirty
 *   for more than 30 s, in passes every 5 s).
 *
 * BGREWRITEAOF runs among the writes, so crashes also cut rewrites at every
 * stage (child writing, base renamed, manifest being replaced, history
 * being deleted).
 *
 * A kill -9 keeps the page cache: with always and no every acknowledged
 * write survives it. The seed is printed on failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { ListValue } from '../../../emulator/keyspace/values.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261121;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 30;

type Policy = 'always' | 'everysec' | 'no';
type Op = { kind: 'push'; client: number } | { kind: 'wait'; client: number; ms: number } | { kind: 'rewrite'; client: number };

/** How long each policy may lose acknowledged writes for, in virtual microseconds. */
const LOSS_WINDOW_US: Record<Policy, number> = { always: 0, everysec: 2_200_000, no: 36_000_000 };
/** Pauses and crash instants scaled to each policy's window. */
const SCALE: Record<Policy, { waitMs: number; crashMs: number }> = {
  always: { waitMs: 30, crashMs: 600 },
  everysec: { waitMs: 300, crashMs: 5_000 },
  no: { waitMs: 5_000, crashMs: 70_000 },
};

function ops(policy: Policy): fc.Arbitrary<Op[]> {
  const client = fc.nat(2);
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('push' as const), client }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), client, ms: fc.integer({ min: 0, max: SCALE[policy].waitMs }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewrite' as const), client }) },
  );
  return fc.array(op, { minLength: 1, maxLength: 60 });
}

function listOf(proc: RedisProcess): string[] {
  const v = proc.server.dbs[0]!.dict.get('log');
  return v instanceof ListValue ? v.items.toArray() : [];
}

export const seen = { runs: 0, lostSome: 0, survived: 0, acked: 0, rewrites: 0 };

async function scenario(policy: Policy, work: Op[], crashAfterMs: number, crash: 'power' | 'kill'): Promise<void> {
  const world = new World({ seed: 5 });
  world.addHost('A', 'core2duo');
  world.addHost('app', 'metal');
  world.link('app', 'A', 'lan');
  const config = { save: '', appendonly: 'yes', appendfsync: policy };
  const server = world.startRedis('A', { config });
  const acked = new Map<string, number>();
  const clients = [0, 1, 2].map(() => world.connect({ from: 'app', to: 'A:6379' }));
  const workers = clients.map(async (r, id) => {
    let n = 0;
    for (const o of work) {
      if (o.client !== id) continue;
      try {
        if (o.kind === 'wait') {
          await world.kernel.sleep(o.ms);
        } else if (o.kind === 'rewrite') {
          await r.call('BGREWRITEAOF').catch(() => null);
        } else {
          const item = `${id}:${n++}`;
          await r.rpush('log', item);
          acked.set(item, world.kernel.now);
        }
      } catch {
        return;
      }
    }
  });
  for (const w of workers) void w.catch(() => {});
  const crashAt = world.kernel.now + crashAfterMs * 1000;
  await world.kernel.runUntilAsync(() => world.kernel.now >= crashAt, { maxMs: 600_000 });
  const atCrash = listOf(server);
  if (world.trace.find('log', 'A').some((e) => e.text === 'Background AOF rewrite finished successfully')) seen.rewrites++;
  for (const r of clients) r.disconnect();
  if (crash === 'power') {
    world.host('A').powerOff();
    world.host('A').powerOn();
  } else {
    server.signal('KILL');
    await world.advanceAsync(100);
  }
  const restarted = world.startRedis('A', { config });
  if (!restarted.alive) throw new Error(`the restart failed: ${world.trace.find('log', 'A').slice(-3).map((e) => e.text).join(' | ')}`);
  const got = listOf(restarted);
  const why = `(${policy}, ${crash} after ${crashAfterMs} ms)`;
  expect(atCrash.slice(0, got.length), `the restarted list is a prefix of the one at the crash ${why}`).toEqual(got);
  const survivors = new Set(got);
  const window = crash === 'kill' && policy !== 'everysec' ? 0 : LOSS_WINDOW_US[policy];
  seen.runs++;
  seen.acked += acked.size;
  let lost = 0;
  for (const [item, at] of acked) {
    if (survivors.has(item)) continue;
    lost++;
    if (crash === 'kill' && policy === 'everysec') continue;
    expect(crashAt - at, `acknowledged ${item} at ${at}, lost in a crash at ${crashAt} ${why}`).toBeLessThanOrEqual(window);
  }
  if (lost > 0) seen.lostSome++;
  if (got.length > 0) seen.survived++;
}

function property(policy: Policy): Promise<void> {
  return fc.assert(
    fc.asyncProperty(ops(policy), fc.integer({ min: 0, max: SCALE[policy].crashMs }), fc.constantFrom('power' as const, 'kill' as const), (w, at, crash) =>
      scenario(policy, w, at, crash),
    ),
    {
      seed: SEED,
      numRuns: RUNS,
      reporter: (out) => {
        if (out.failed) throw new Error(`AOF crash property failed. Reproduce with FC_SEED=${out.seed} (path ${out.counterexamplePath}).\n${fc.defaultReportMessage(out)}`);
      },
    },
  );
}

describe('crash semantics with the AOF', () => {
  it(`appendfsync always: every acknowledged write survives a power loss (seed ${SEED}, ${RUNS} runs)`, async () => {
    const before = { ...seen };
    await property('always');
    expect(seen.acked - before.acked).toBeGreaterThan(RUNS);
    expect(seen.rewrites - before.rewrites).toBeGreaterThan(RUNS / 10);
  }, 120_000);

  it(`appendfsync everysec: at most about 2 s of acknowledged writes are lost (seed ${SEED}, ${RUNS} runs)`, async () => {
    const before = { ...seen };
    await property('everysec');
    // The property is not vacuous: some runs lost writes, some kept them.
    expect(seen.lostSome).toBeGreaterThan(before.lostSome);
    expect(seen.survived).toBeGreaterThan(before.survived);
  }, 120_000);

  it(`appendfsync no: the survivors are a prefix, and only the last ~35 s can go (seed ${SEED}, ${RUNS} runs)`, async () => {
    const before = { ...seen };
    await property('no');
    expect(seen.lostSome).toBeGreaterThan(before.lostSome);
    expect(seen.survived).toBeGreaterThan(before.survived);
  }, 240_000);
});
