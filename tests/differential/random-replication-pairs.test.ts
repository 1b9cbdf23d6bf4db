/**
 * Randomized differential testing of replica pairs: random writes and
 * transactions on the primary, reads, refused writes, a writable replica,
 * and the replication commands on either side, run on a real pair, on a
 * real primary with the emulator as its replica, and on the emulator as
 * primary of a real replica; every reply must agree with the real pair.
 * Before the replica is read it is brought up to date with WAIT on the
 * primary, as a client would. A failure prints the seed; rerun it with
 * FC_SEED=<seed> (and FC_RUNS for more runs).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { compareReplies } from './compare.js';
import { randomRunOptions } from './fc-options.js';
import { Pair, startEmulator, startReal } from './replica-pairs.js';
import type { Compare } from './script.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261128;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 40;

/** The primary's client; the replica's is 1. */
const PRIMARY = 10;

interface Step {
  client: number;
  argv: string[];
  compare: Compare;
}

const exact: Compare = { kind: 'exact' };
// The offsets move with each GETACK a WAIT sends, and whether one is sent
// depends on whether the replica's once-a-second ACK came first: a matter
// of the wall clock. The ids and ports differ from pair to pair.
const info: Compare = {
  kind: 'lines',
  ignore: ['master_replid', 'master_replid2', 'master_port', 'slave0', 'master_last_io_seconds_ago', 'master_repl_offset', 'slave_repl_offset', 'slave_read_repl_offset', 'repl_backlog_histlen'],
};
const role: Compare = { kind: 'mask', paths: [['1'], ['2'], ['4'], ['2', '*', '1'], ['2', '*', '2']] };

const choice = (...lists: string[][]): fc.Arbitrary<string[]> => fc.constantFrom<string[]>(...lists);
const cmd = (...parts: Array<fc.Arbitrary<string> | string>): fc.Arbitrary<string[]> =>
  fc.tuple(...parts.map((p) => (typeof p === 'string' ? fc.constant(p) : p)));

const key = fc.constantFrom('a', 'b', 'c');
const value = fc.constantFrom('1', 'x', '');

const write = fc.oneof(
  cmd('SET', key, value),
  cmd('SET', key, value, 'EX', '1000'),
  cmd('INCR', key),
  cmd('APPEND', key, value),
  cmd('DEL', key),
  cmd('EXPIRE', key, '1000'),
  cmd('PERSIST', key),
  cmd('RPUSH', key, value),
  cmd('LPOP', key),
  cmd('HSET', key, 'f', value),
  cmd('SADD', key, value),
  choice(['FLUSHALL'], ['SWAPDB', '0', '1'], ['PUBLISH', 'ch', 'm']),
);
const read = fc.oneof(
  cmd('GET', key),
  cmd('EXISTS', key, key),
  cmd('TYPE', key),
  cmd('TTL', key),
  cmd('LRANGE', key, '0', '-1'),
  cmd('HGETALL', key),
  cmd('SMEMBERS', key),
  choice(['DBSIZE'], ['PING']),
);
const replicationCommand = fc.oneof(
  choice(
    ['WAIT', '0', '0'],
    ['WAIT', 'x', '0'],
    ['FAILOVER', 'ABORT'],
    ['FAILOVER', 'FORCE'],
    ['FAILOVER', 'TIMEOUT', '0'],
    ['FAILOVER', 'TO', '127.0.0.1', '1'],
    ['FAILOVER', 'bogus'],
    ['REPLICAOF', '127.0.0.1', 'x'],
    ['REPLCONF', 'listening-port', '1'],
    ['REPLCONF', 'bogus', '1'],
    ['PSYNC'],
    ['SYNC', 'x'],
  ),
  cmd('CONFIG', 'SET', fc.constantFrom('replica-read-only', 'replica-serve-stale-data'), fc.constantFrom('yes', 'no')),
  cmd('CONFIG', 'GET', fc.constantFrom('replica-read-only', 'replica-serve-stale-data', 'min-replicas-to-write')),
);

/** A step of a run: on the primary, or on the replica after the primary's writes have reached it. */
type Action = { on: 'primary'; argv: string[][] } | { on: 'replica'; argv: string[] } | { on: 'both'; argv: string[] } | { on: 'replica-multi'; argv: string[][] };

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: write.map((a): Action => ({ on: 'primary', argv: [a] })), weight: 5 },
  // A transaction is sent whole, so the primary's client is never left inside MULTI before a WAIT.
  { arbitrary: fc.array(write, { minLength: 1, maxLength: 3 }).map((ws): Action => ({ on: 'primary', argv: [['MULTI'], ...ws, ['EXEC']] })), weight: 1 },
  { arbitrary: fc.oneof(read, write).map((a): Action => ({ on: 'replica', argv: a })), weight: 5 },
  {
    arbitrary: fc.array(fc.oneof(read, write), { minLength: 1, maxLength: 3 }).map((cs): Action => ({ on: 'replica-multi', argv: [['MULTI'], ...cs, ['EXEC']] })),
    weight: 1,
  },
  // A short pause of the primary's writes: the next write waits for its end (at a serverCron tick).
  { arbitrary: choice(['CLIENT', 'PAUSE', '20', 'WRITE'], ['CLIENT', 'PAUSE', '20']).map((a): Action => ({ on: 'primary', argv: [a] })), weight: 1 },
  // The replica only: on the primary it would name the primary itself.
  {
    arbitrary: choice(['REPLICAOF', '127.0.0.1', '{primary-port}'], ['SLAVEOF', '127.0.0.1', '{primary-port}']).map((a): Action => ({ on: 'replica', argv: a })),
    weight: 1,
  },
  { arbitrary: replicationCommand.map((a): Action => ({ on: 'both', argv: a })), weight: 2 },
  { arbitrary: fc.constant<Action>({ on: 'both', argv: ['ROLE'] }), weight: 1 },
  { arbitrary: fc.constant<Action>({ on: 'both', argv: ['INFO', 'replication'] }), weight: 1 },
);

/** The steps of a run: each replica command preceded by WAIT 1 0 on the primary when it wrote since the last one. */
function stepsOf(actions: Action[]): Step[] {
  const out: Step[] = [];
  let unsynced = false;
  const sync = (): void => {
    if (unsynced) out.push({ client: PRIMARY, argv: ['WAIT', '1', '0'], compare: exact });
    unsynced = false;
  };
  const compareOf = (argv: string[]): Compare => (argv[0] === 'INFO' ? info : argv[0] === 'ROLE' ? role : exact);
  for (const a of actions) {
    if (a.on === 'primary') {
      for (const argv of a.argv) out.push({ client: PRIMARY, argv, compare: exact });
      unsynced = true;
    } else if (a.on === 'replica-multi') {
      sync();
      for (const argv of a.argv) out.push({ client: 1, argv, compare: exact });
    } else {
      sync();
      if (a.on === 'both') out.push({ client: PRIMARY, argv: a.argv, compare: compareOf(a.argv) });
      out.push({ client: 1, argv: a.argv, compare: compareOf(a.argv) });
    }
  }
  return out;
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'randomized replica pairs' : `randomized replica pairs (${skipNotice()})`, () => {
  let pairs: Pair[] = [];
  beforeAll(async () => {
    pairs = await Promise.all([Pair.start(startReal, startReal), Pair.start(startReal, startEmulator), Pair.start(startEmulator, startReal)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pairs.map((p) => p.close()));
  });

  it(`random writes, reads and replication commands on a pair agree with a real pair (seed ${SEED}, ${RUNS} runs)`, async () => {
    const names = ['real pair', 'emulator replica', 'emulator primary'];
    let failure = '';
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 25 }), async (actions) => {
          const steps: Step[] = [
            { client: 1, argv: ['CONFIG', 'SET', 'replica-read-only', 'yes', 'replica-serve-stale-data', 'yes'], compare: exact },
            { client: PRIMARY, argv: ['FLUSHALL'], compare: exact },
            { client: PRIMARY, argv: ['WAIT', '1', '0'], compare: exact },
            ...stepsOf(actions),
          ];
          const transcripts: string[][] = pairs.map(() => []);
          for (const s of steps) {
            const replies = await Promise.all(pairs.map((p) => p.command(s.client, s.argv)));
            replies.forEach((r, i) => transcripts[i]!.push(`c${s.client}> ${JSON.stringify(s.argv)} -> ${JSON.stringify(r)}`));
            for (let i = 1; i < pairs.length; i++) {
              const why = compareReplies(replies[0]!, replies[i]!, s.compare);
              if (why === null) continue;
              const report = `${names[i]}: ${why}\n  command:  c${s.client}> ${JSON.stringify(s.argv)}\n  real:     ${JSON.stringify(replies[0])}\n  emulator: ${JSON.stringify(replies[i])}\n  after:\n    ${transcripts[0]!.slice(0, -1).join('\n    ')}`;
              if (failure === '') failure = report;
              throw new Error(report);
            }
          }
        }),
        randomRunOptions('Randomized replica pairs test', SEED, RUNS),
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\nThe first failure:\n${failure}`, { cause: e });
    }
  }, 120_000);
});
