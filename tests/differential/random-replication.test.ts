/**
 * Randomized differential testing of the replication and failover commands
 * on a lone server: REPLICAOF / SLAVEOF (to a port where nothing listens and
 * back), WAIT, FAILOVER, CLIENT PAUSE / UNPAUSE, ROLE, INFO replication,
 * REPLCONF, PSYNC / SYNC errors and the replication parameters, mixed with
 * writes, reads and transactions from two clients. Every reply must agree
 * with a real redis-server byte for byte. A failure prints the seed; rerun
 * it with FC_SEED=<seed> (and FC_RUNS for more runs).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { EmulatorBackend, RealBackend } from './backends.js';
import { compareReplies } from './compare.js';
import { randomRunOptions } from './fc-options.js';
import type { Compare } from './script.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261127;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 120;

interface Step {
  client: number;
  argv: string[];
  compare: Compare;
}

const exact: Compare = { kind: 'exact' };
// Values a run cannot fix: the replication ids, and the seconds since the
// link went down, which the real server counts on its own wall clock.
const replicationInfo: Compare = { kind: 'lines', ignore: ['master_replid', 'master_replid2', 'master_link_down_since_seconds'] };

// A replica's link state: a connect to a closed local port usually fails at
// once ("connect"), but may be left in progress ("connecting") until the
// event loop sees the refusal.
const role: Compare = { kind: 'mask', paths: [['3']] };

const choice = (...lists: string[][]): fc.Arbitrary<string[]> => fc.constantFrom<string[]>(...lists);
const cmd = (...parts: Array<fc.Arbitrary<string> | string>): fc.Arbitrary<string[]> =>
  fc.tuple(...parts.map((p) => (typeof p === 'string' ? fc.constant(p) : p)));

const key = fc.constantFrom('a', 'b');
const value = fc.constantFrom('1', 'x', '');
const badNumber = fc.constantFrom('abc', '', '1.5', '-1', '99999999999999999999', '9223372036854775807');
// Ports where nothing listens: the server stays a replica whose link is down.
const port = fc.oneof(fc.constantFrom('1', '2'), badNumber, fc.constantFrom('65536', '0'));
// Not 'localhost': whether its connect fails at once (ROLE's "connect") or
// later ("connecting") depends on how the machine resolves it.
const host = fc.constantFrom('127.0.0.1', 'no', 'one');
// Short times only: a real server paused or waiting holds the test for that long.
const shortMs = fc.constantFrom('1', '5', '20');

const replicaof = fc.oneof(
  cmd(fc.constantFrom('REPLICAOF', 'SLAVEOF'), host, port),
  cmd(fc.constantFrom('REPLICAOF', 'SLAVEOF'), fc.constantFrom('NO', 'no', 'No'), fc.constantFrom('ONE', 'one', 'oNe', 'two')),
  choice(['REPLICAOF'], ['REPLICAOF', 'NO'], ['SLAVEOF', 'NO', 'ONE', 'extra']),
);

// WAIT never blocks without a time limit: no replica would ever release it.
const wait = fc.oneof(
  cmd('WAIT', fc.constantFrom('0', '-1', 'abc', ''), fc.oneof(shortMs, badNumber, fc.constant('0'))),
  cmd('WAIT', fc.constantFrom('1', '2'), fc.oneof(shortMs, fc.constantFrom('-1', 'abc'))),
  choice(['WAIT'], ['WAIT', '0']),
);

const failoverArg = fc.oneof(
  cmd('TIMEOUT', fc.oneof(shortMs, badNumber, fc.constant('0'))),
  cmd('TO', host, port),
  choice(['FORCE'], ['ABORT'], ['TO'], ['TIMEOUT'], ['bogus']),
);
const failover = fc.array(failoverArg, { maxLength: 3 }).map((args) => ['FAILOVER', ...args.flat()]);

const pause = fc.oneof(
  cmd('CLIENT', 'PAUSE', fc.oneof(shortMs, badNumber, fc.constant('0'))),
  cmd('CLIENT', 'PAUSE', fc.oneof(shortMs, badNumber), fc.constantFrom('WRITE', 'write', 'ALL', 'bogus')),
  choice(['CLIENT', 'UNPAUSE'], ['CLIENT', 'UNPAUSE', 'x'], ['CLIENT', 'PAUSE']),
);

// REPLCONF ACK from a client that is not a replica answers nothing: the corpus
// covers it (replconf.redis); here it would only leave the real side waiting.
const protocol = choice(
  ['REPLCONF', 'listening-port', '7000'],
  ['REPLCONF', 'capa', 'eof', 'capa', 'psync2'],
  ['REPLCONF', 'bogus', 'x'],
  ['REPLCONF', 'listening-port'],
  ['PSYNC'],
  ['PSYNC', '?'],
  ['SYNC', 'x'],
);

const configs = fc.oneof(
  cmd('CONFIG', 'SET', fc.constantFrom('min-replicas-to-write', 'min-slaves-to-write'), fc.constantFrom('0', '1', '-1')),
  cmd('CONFIG', 'SET', fc.constantFrom('min-replicas-max-lag', 'min-slaves-max-lag'), fc.constantFrom('0', '10')),
  cmd('CONFIG', 'SET', fc.constantFrom('replica-read-only', 'slave-read-only', 'replica-serve-stale-data'), fc.constantFrom('yes', 'no', 'maybe')),
  cmd('CONFIG', 'GET', fc.constantFrom('min-replicas-to-write', 'replica-read-only', 'replica-serve-stale-data', 'replicaof', 'slaveof')),
);

const data = fc.oneof(
  cmd('SET', key, value),
  cmd('SET', key, value, 'EX', '100'),
  cmd('GET', key),
  cmd('INCR', key),
  cmd('DEL', key),
  cmd('EXISTS', key, key),
  cmd('EXPIRE', key, '100'),
  cmd('PUBLISH', 'ch', value),
  choice(['DBSIZE'], ['PING'], ['ECHO', 'e'], ['FLUSHALL'], ['MULTI'], ['EXEC'], ['DISCARD'], ['WATCH', 'a'], ['UNWATCH'], ['HELLO', '3'], ['HELLO', '2']),
);

const command: fc.Arbitrary<Step['argv']> = fc.oneof(
  { arbitrary: data, weight: 6 },
  { arbitrary: replicaof, weight: 2 },
  { arbitrary: wait, weight: 1 },
  { arbitrary: failover, weight: 1 },
  { arbitrary: pause, weight: 1 },
  { arbitrary: protocol, weight: 1 },
  { arbitrary: configs, weight: 1 },
  { arbitrary: choice(['ROLE']), weight: 1 },
);

const step: fc.Arbitrary<Step> = fc.tuple(fc.constantFrom(1, 2), command).map(([client, argv]) => ({
  client,
  argv,
  compare: argv[0] === 'INFO' ? replicationInfo : argv[0] === 'ROLE' ? role : exact,
}));
const info = fc.constant<Step>({ client: 1, argv: ['INFO', 'replication'], compare: replicationInfo });

/** The state every run starts from, on either side (a pause left by the last run held first). */
async function reset(run: (client: number, argv: string[]) => Promise<string>): Promise<void> {
  for (const c of [1, 2]) await run(c, ['RESET']);
  await run(1, ['CLIENT', 'UNPAUSE']);
  await run(1, ['REPLICAOF', 'NO', 'ONE']);
  await run(1, ['CONFIG', 'SET', 'min-replicas-to-write', '0', 'min-replicas-max-lag', '10', 'replica-read-only', 'yes', 'replica-serve-stale-data', 'yes']);
  await run(1, ['FLUSHALL']);
}

/**
 * The emulator's reply to a command the real server answered. A real client
 * held by a pause or a WAIT is answered once its wall time passes (a pause
 * ends at a serverCron tick); the emulator's clock moves only when told, so
 * it is moved on a cron period at a time until the reply comes.
 */
async function emulatorReply(emu: EmulatorBackend, client: number, argv: string[]): Promise<string> {
  let reply = await emu.command(client, argv);
  for (let i = 0; reply === '<no reply>' && i < 20; i++) {
    await emu.sleep(100);
    reply = await emu.nextReply(client);
  }
  return reply;
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'randomized replication commands' : `randomized replication commands (${skipNotice()})`, () => {
  let real: RealBackend;
  beforeAll(async () => {
    real = await RealBackend.start();
  });
  afterAll(async () => {
    await real?.close();
  });

  it(`random REPLICAOF, WAIT, FAILOVER, CLIENT PAUSE and writes agree with redis-server (seed ${SEED}, ${RUNS} runs)`, async () => {
    // One emulator for every run, as there is one real server: a run starts
    // from what the ones before left (replid2 and second_repl_offset once a
    // replica was promoted, client ids), the same on both sides.
    const emu = new EmulatorBackend();
    // The first failure: shrinking replays shorter runs over the state the
    // failed one left, so its own report is the one to read.
    let failure = '';
    let previous: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.oneof({ arbitrary: step, weight: 9 }, { arbitrary: info, weight: 1 }), { minLength: 1, maxLength: 30 }), async (steps) => {
          const transcript: string[] = [];
          const before = previous;
          previous = transcript;
          await reset((c, argv) => real.command(c, argv));
          await reset((c, argv) => emulatorReply(emu, c, argv));
          for (const s of steps) {
            const a = await real.command(s.client, s.argv);
            const b = await emulatorReply(emu, s.client, s.argv);
            transcript.push(`c${s.client}> ${JSON.stringify(s.argv)} -> ${JSON.stringify(a)}`);
            const why = compareReplies(a, b, s.compare);
            if (why) {
              const report = `${why}\n  command:  c${s.client}> ${JSON.stringify(s.argv)}\n  real:     ${JSON.stringify(a)}\n  emulator: ${JSON.stringify(b)}\n  after:\n    ${transcript.slice(0, -1).join('\n    ')}`;
              if (failure === '') failure = `${report}\n  the run before:\n    ${before.join('\n    ')}`;
              throw new Error(report);
            }
          }
        }),
        randomRunOptions('Randomized replication test', SEED, RUNS),
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\nThe first failure:\n${failure}`, { cause: e });
    } finally {
      await emu.close();
    }
  }, 120_000);
});
