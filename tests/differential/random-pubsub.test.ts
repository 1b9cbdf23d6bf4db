/**
 * Randomized pub/sub: fast-check generates steps for three subscribers (the
 * third speaks RESP3) and a publisher that also writes keys, under a random
 * notify-keyspace-events. After every step each subscriber is sent PING and
 * everything it received up to the PONG must agree byte for byte with a real
 * redis-server. Channels and patterns are chosen so that no channel matches
 * two patterns, and UNSUBSCRIBE names its channels: where Redis's order
 * comes from a randomly seeded hash table, the test does not look. A failure
 * prints the seed; rerun it with FC_SEED=<seed> (and FC_RUNS for more runs).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { EmulatorBackend, RealBackend, type Backend } from './backends.js';
import { compareReplies } from './compare.js';
import type { Compare } from './script.js';
import { randomRunOptions } from './fc-options.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261126;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 100;

const SUBSCRIBERS = [1, 2, 3];
const PUBLISHER = 4;
const exact: Compare = { kind: 'exact' };

const channel = fc.constantFrom('a1', 'a2', 'b1', 'b22', '__keyevent@0__:set', 'c\x00\xff');
const pattern = fc.constantFrom('a*', 'b?', '__keyspace@0__:*', '__keyevent@0__:l*');
const shardChannel = fc.constantFrom('s1', 's2', 'a1');
const message = fc.constantFrom('hi', '', 'with space', '\x00\r\n');
const key = fc.constantFrom('k1', 'k2', 'list');
const some = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T[]> => fc.array(a, { minLength: 1, maxLength: 3 });

const subscriberCommand: fc.Arbitrary<string[]> = fc.oneof(
  some(channel).map((c) => ['SUBSCRIBE', ...c]),
  some(channel).map((c) => ['UNSUBSCRIBE', ...c]),
  some(pattern).map((p) => ['PSUBSCRIBE', ...p]),
  fc.array(pattern, { maxLength: 2 }).map((p) => ['PUNSUBSCRIBE', ...p]),
  some(shardChannel).map((c) => ['SSUBSCRIBE', ...c]),
  some(shardChannel).map((c) => ['SUNSUBSCRIBE', ...c]),
  fc.constantFrom<string[]>(['PING'], ['PING', 'x'], ['GET', 'k1'], ['RESET'], ['PUBLISH', 'a1', 'self'], ['SET', 'k1', 'mine']),
);

const publisherCommand: fc.Arbitrary<{ argv: string[]; compare: Compare }> = fc.oneof(
  fc.tuple(channel, message).map(([c, m]) => ({ argv: ['PUBLISH', c, m], compare: exact })),
  fc.tuple(shardChannel, message).map(([c, m]) => ({ argv: ['SPUBLISH', c, m], compare: exact })),
  some(channel).map((c) => ({ argv: ['PUBSUB', 'NUMSUB', ...c], compare: exact })),
  some(shardChannel).map((c) => ({ argv: ['PUBSUB', 'SHARDNUMSUB', ...c], compare: exact })),
  fc.constant<{ argv: string[]; compare: Compare }>({ argv: ['PUBSUB', 'NUMPAT'], compare: exact }),
  fc.constantFrom<string[]>(['PUBSUB', 'CHANNELS'], ['PUBSUB', 'CHANNELS', 'a*'], ['PUBSUB', 'SHARDCHANNELS']).map((argv) => ({ argv, compare: { kind: 'unordered' } as Compare })),
  fc.oneof(
    key.map((k) => ['SET', k, 'v']),
    key.map((k) => ['DEL', k]),
    key.map((k) => ['LPUSH', k, 'x']),
    key.map((k) => ['RPOP', k]),
    key.map((k) => ['INCR', k]),
    key.map((k) => ['EXPIRE', k, '100']),
    key.map((k) => ['PERSIST', k]),
    fc.tuple(key, key).map(([a, b]) => ['RENAME', a, b]),
    key.map((k) => ['GET', k]),
  ).map((argv) => ({ argv, compare: exact })),
);

type Step = { client: number; argv: string[]; compare: Compare };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.tuple(fc.constantFrom(...SUBSCRIBERS), subscriberCommand).map(([client, argv]) => ({ client, argv, compare: exact })),
  publisherCommand.map((c) => ({ client: PUBLISHER, ...c })),
);

const BARRIERS = new Set(['+PONG\r\n', '*2\r\n$4\r\npong\r\n$0\r\n\r\n']);

/** PING, then everything the client received up to its answer. */
async function receivedUpToPong(b: Backend, client: number, before: string[]): Promise<string[]> {
  const out = before;
  let r = await b.command(client, ['PING']);
  for (;;) {
    out.push(r);
    if (BARRIERS.has(r) || r.startsWith('<')) return out;
    r = await b.nextReply(client);
  }
}

/** Each client's subscriptions and protocol as a run starts. */
async function prepare(b: Backend, notify: string): Promise<void> {
  for (const c of [...SUBSCRIBERS, PUBLISHER]) await b.command(c, ['RESET']);
  await b.command(3, ['HELLO', '3']);
  await b.command(PUBLISHER, ['FLUSHALL']);
  await b.command(PUBLISHER, ['CONFIG', 'SET', 'notify-keyspace-events', notify]);
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'randomized pub/sub' : `randomized pub/sub (${skipNotice()})`, () => {
  let real: RealBackend;
  beforeAll(async () => {
    real = await RealBackend.start();
  });
  afterAll(async () => {
    await real?.close();
  });

  it(`random subscriptions, messages and keyspace events agree with redis-server (seed ${SEED}, ${RUNS} runs)`, async () => {
    const notify = fc.constantFrom('', 'KEA', 'Kl$', 'Eg', 'KEn', 'AKEm');
    await fc.assert(
      fc.asyncProperty(notify, fc.array(step, { minLength: 1, maxLength: 30 }), async (events, steps) => {
        const emu = new EmulatorBackend();
        const transcript: string[] = [];
        try {
          await prepare(real, events);
          await prepare(emu, events);
          for (const s of steps) {
            const a = await real.command(s.client, s.argv);
            const b = await emu.command(s.client, s.argv);
            transcript.push(`c${s.client}> ${JSON.stringify(s.argv)} -> ${JSON.stringify(a)}`);
            const fail = (why: string, real: unknown, emulator: unknown): Error =>
              new Error(
                `${why}\n  notify-keyspace-events ${JSON.stringify(events)}\n  real:     ${JSON.stringify(real)}\n  emulator: ${JSON.stringify(emulator)}\n  steps:\n    ${transcript.join('\n    ')}`,
              );
            const why = compareReplies(a, b, s.compare);
            if (why) throw fail(why, a, b);
            for (const c of SUBSCRIBERS) {
              const ra = await receivedUpToPong(real, c, []);
              const rb = await receivedUpToPong(emu, c, []);
              if (JSON.stringify(ra) !== JSON.stringify(rb)) throw fail(`client ${c} received different bytes`, ra, rb);
            }
          }
        } finally {
          await emu.close();
        }
      }),
      randomRunOptions('Randomized pub/sub test', SEED, RUNS),
    );
  }, 120_000);
});
