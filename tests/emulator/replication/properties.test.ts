/**
 * Replication's promises under random faults (fast-check): writes to a
 * primary with two replicas, between partitions, heals, link profile
 * changes, replicas killed and restarted, and time passing.
 *
 * - A replica that reports itself in sync (link up, its offset the
 *   primary's, the same history) holds exactly the primary's dataset.
 * - WAIT n answering k means k replicas hold the write.
 * - A replica promoted holds a prefix of the primary's history: the
 *   dataset the primary had at the replica's offset.
 * - Once the faults stop, every replica catches up.
 *
 * A failure prints its seed: FC_SEED=<seed> FC_RUNS=<n> reproduces it.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';
import { datasetDigest } from '../../../emulator/commands/debug-digest.js';
import type { RedisServer } from '../../../emulator/server/server.js';
import type { Redis } from '../../../emulator/client-library/redis.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261126;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 25;

const REPLICAS = ['B', 'C'] as const;
type ReplicaHost = (typeof REPLICAS)[number];

type Action =
  | { kind: 'write'; argv: string[] }
  | { kind: 'partition'; host: ReplicaHost; oneWay: boolean }
  | { kind: 'heal'; host: ReplicaHost }
  | { kind: 'profile'; host: ReplicaHost; profile: 'lan' | 'vpn' }
  | { kind: 'kill'; host: ReplicaHost }
  | { kind: 'restart'; host: ReplicaHost }
  | { kind: 'advance'; ms: number }
  | { kind: 'wait'; n: number; timeoutMs: number };

const key = fc.constantFrom('a', 'b', 'c', 'd');
const write: fc.Arbitrary<Action> = fc
  .oneof(
    fc.tuple(key, fc.integer({ min: 0, max: 999 })).map(([k, v]) => ['SET', `s:${k}`, String(v)]),
    key.map((k) => ['INCR', `n:${k}`]),
    fc.tuple(key, fc.integer({ min: 0, max: 99 })).map(([k, v]) => ['RPUSH', `l:${k}`, String(v)]),
    fc.tuple(key, fc.integer({ min: 0, max: 9 })).map(([k, f]) => ['HSET', `h:${k}`, `f${f}`, 'x'.repeat(f * 300)]),
    key.map((k) => ['DEL', `s:${k}`, `l:${k}`]),
    key.map((k) => ['EXPIRE', `n:${k}`, '1000000']),
  )
  .map((argv) => ({ kind: 'write', argv }));
const host = fc.constantFrom(...REPLICAS);
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: write },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('partition' as const), host, oneWay: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('heal' as const), host }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('profile' as const), host, profile: fc.constantFrom('lan' as const, 'vpn' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('kill' as const), host }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), host }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 8000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), n: fc.integer({ min: 0, max: 2 }), timeoutMs: fc.integer({ min: 1, max: 2000 }) }) },
);

const CONFIG = { save: '', 'repl-timeout': '4', 'repl-ping-replica-period': '1', 'repl-backlog-size': '32kb', 'repl-diskless-sync-delay': '1' };

class Cluster {
  readonly world = new World({ seed: 11 });
  readonly procs = new Map<string, RedisProcess>();
  /** Every process each replica host ran, dead ones included: a WAIT may count one that died since. */
  private readonly lives = new Map<string, RedisProcess[]>();
  readonly client: Redis;
  /** The primary's dataset after each write, by its offset then. */
  readonly history: Array<{ offset: number; digest: string }> = [];
  /** The primary's offset after the last write (the client's woff). */
  lastWrite = 0;

  constructor(diskless: boolean) {
    const w = this.world;
    for (const h of ['app', 'A', ...REPLICAS]) w.addHost(h, 'metal');
    w.link('app', 'A', 'lan');
    for (const r of REPLICAS) w.link('A', r, 'lan');
    const config = { ...CONFIG, 'repl-diskless-sync': diskless ? 'yes' : 'no' };
    this.procs.set('A', w.startRedis('A', { config }));
    for (const r of REPLICAS) this.start(r);
    this.client = w.connect({ from: 'app', to: 'A:6379' });
    this.history.push({ offset: 0, digest: datasetDigest(this.primary.dbs) });
  }

  get primary(): RedisServer {
    return this.procs.get('A')!.server;
  }

  start(h: ReplicaHost): void {
    const p = this.world.startRedis(h, { config: { ...CONFIG, replicaof: 'A 6379' } });
    this.procs.set(h, p);
    this.lives.set(h, [...(this.lives.get(h) ?? []), p]);
  }

  alive(h: string): RedisServer | null {
    const p = this.procs.get(h)!;
    return p.alive ? p.server : null;
  }

  async apply(a: Action): Promise<void> {
    const w = this.world;
    switch (a.kind) {
      case 'write': {
        await w.settle(this.client.call(a.argv[0]!, ...a.argv.slice(1)));
        this.lastWrite = this.primary.replication.masterReplOffset;
        this.history.push({ offset: this.lastWrite, digest: datasetDigest(this.primary.dbs) });
        return;
      }
      case 'partition':
        w.partition('A', a.host, a.oneWay);
        return;
      case 'heal':
        w.heal('A', a.host);
        return;
      case 'profile':
        w.link('A', a.host, a.profile);
        return;
      case 'kill': {
        const p = this.procs.get(a.host)!;
        if (p.alive) w.signal(a.host, p.pid, 'KILL');
        return;
      }
      case 'restart':
        if (this.alive(a.host) === null) this.start(a.host);
        return;
      case 'advance':
        w.advance(a.ms);
        return;
      case 'wait': {
        const acked = (await w.settle(this.client.call('WAIT', String(a.n), String(a.timeoutMs)))) as number;
        // A replica killed since it acknowledged held the write when it did.
        const id = this.primary.replication.replId;
        const holding = REPLICAS.filter((h) =>
          this.lives.get(h)!.some((p) => p.server.replication.replId === id && p.server.replication.masterReplOffset >= this.lastWrite),
        ).length;
        if (holding < acked) throw new Error(`WAIT answered ${acked} but only ${holding} replicas hold the write at offset ${this.lastWrite}`);
        return;
      }
    }
  }

  /** The dataset the primary had at `offset` (PINGs move the offset, not the data). */
  digestAt(offset: number): string | undefined {
    let found: string | undefined;
    for (const h of this.history) if (h.offset <= offset) found = h.digest;
    return found;
  }

  /** A replica in sync holds the primary's dataset. */
  checkInSync(): void {
    const p = this.primary.replication;
    for (const h of REPLICAS) {
      const s = this.alive(h);
      if (s === null) continue;
      const r = s.replication;
      if (r.replica.state !== 'connected' || r.replId !== p.replId || r.masterReplOffset !== p.masterReplOffset) continue;
      const mine = datasetDigest(s.dbs);
      const theirs = datasetDigest(this.primary.dbs);
      if (mine !== theirs) throw new Error(`${h} reports itself in sync at offset ${r.masterReplOffset} but its dataset differs from the primary's`);
    }
  }
}

async function run(actions: Action[], diskless: boolean): Promise<void> {
  const c = new Cluster(diskless);
  c.world.advance(3000);
  for (const a of actions) {
    await c.apply(a);
    c.checkInSync();
  }
  // A replica promoted now holds what the primary had at its offset.
  for (const h of REPLICAS) {
    const s = c.alive(h);
    if (s === null || s.replication.replId !== c.primary.replication.replId) continue;
    const offset = s.replication.masterReplOffset;
    if (offset > c.primary.replication.masterReplOffset) throw new Error(`${h} is ahead of its primary: ${offset}`);
    if (datasetDigest(s.dbs) !== c.digestAt(offset)) throw new Error(`${h} at offset ${offset} does not hold the primary's history up to there`);
  }
  // Once the faults stop, every replica catches up.
  c.world.heal();
  for (const h of REPLICAS) {
    c.world.link('A', h, 'lan');
    if (c.alive(h) === null) c.start(h);
  }
  const caughtUp = (): boolean =>
    REPLICAS.every((h) => {
      const r = c.alive(h)!.replication;
      return r.replica.state === 'connected' && r.masterReplOffset === c.primary.replication.masterReplOffset;
    });
  if (!c.world.runUntil(caughtUp, { maxMs: 120_000 })) throw new Error('the replicas did not catch up once the faults stopped');
  c.checkInSync();
}

describe('replication under random faults', () => {
  for (const diskless of [false, true]) {
    it(`keeps its promises (${diskless ? 'diskless' : 'disk'} sync; seed ${SEED}, ${RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40 }), (actions) => run(actions, diskless)),
        {
          seed: process.env.FC_SEED ? SEED : SEED + (diskless ? 1 : 0),
          numRuns: RUNS,
          reporter: (out) => {
            if (out.failed) {
              throw new Error(`Replication property failed. Reproduce with FC_SEED=${out.seed} (path ${out.counterexamplePath}): ${String(out.errorInstance)}\n${fc.defaultReportMessage(out)}`);
            }
          },
        },
      );
    }, 120_000);
  }
});
