/**
 * A BGSAVE child's file is the dataset as it was at the fork, however the
 * parent changes it while the child writes: values changed in place
 * (lists, hashes, sets, sorted sets), keys deleted, created, renamed,
 * expiries set and removed, databases flushed and swapped. Random
 * workloads run between small steps of the child; the file read back must
 * hold, key for key, what a SAVE at the fork would have written. The seed
 * is printed on failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RedisServer } from '../../../emulator/server/server.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { readRdb } from '../../../emulator/persistence/rdb/file-reader.js';
import { RdbError } from '../../../emulator/persistence/rdb/errors.js';
import { keyRecord } from '../../../emulator/persistence/rdb/file-writer.js';
import { ForkedRdbWriter, saveRdb, valueReadOptions, valueWriteOptions } from '../../../emulator/persistence/rdb-dataset.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261121;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 80;

const key = fc.constantFrom('s1', 's2', 'l1', 'l2', 'h1', 'h2', 'z1', 'z2', 'x1', 'x2', 'n1', 'new');
const word = fc.constantFrom('a', 'b', 'c', '1', '2', '300', 'x'.repeat(70));

const command: fc.Arbitrary<string[]> = fc.oneof(
  fc.tuple(key, word).map(([k, v]) => ['SET', k, v]),
  fc.tuple(key, word).map(([k, v]) => ['APPEND', k, v]),
  fc.tuple(key, word).map(([k, v]) => ['RPUSH', k, v]),
  fc.tuple(key).map(([k]) => ['LPOP', k]),
  fc.tuple(key, word, word).map(([k, f, v]) => ['HSET', k, f, v]),
  fc.tuple(key, word).map(([k, f]) => ['HDEL', k, f]),
  fc.tuple(key, word).map(([k, m]) => ['SADD', k, m]),
  fc.tuple(key, word).map(([k, m]) => ['SREM', k, m]),
  fc.tuple(key, fc.integer({ min: -5, max: 5 }), word).map(([k, s, m]) => ['ZADD', k, String(s), m]),
  fc.tuple(key).map(([k]) => ['INCR', k]),
  fc.tuple(key).map(([k]) => ['DEL', k]),
  fc.tuple(key, key).map(([a, b]) => ['RENAME', a, b]),
  fc.tuple(key, fc.integer({ min: 1, max: 10_000 })).map(([k, s]) => ['EXPIRE', k, String(s)]),
  fc.tuple(key).map(([k]) => ['PERSIST', k]),
  fc.tuple(key).map(([k]) => ['MOVE', k, '1']),
  fc.constant<string[]>(['SELECT', '1']),
  fc.constant<string[]>(['SELECT', '0']),
  fc.constant<string[]>(['SWAPDB', '0', '1']),
  fc.constant<string[]>(['FLUSHDB']),
);

/** A server holding a, b and c, the file a save at the fork would write, and a forked writer that has written nothing yet. */
function forkedOverThreeKeys(): { server: RedisServer; c: ReturnType<RedisServer['connect']>; atFork: Uint8Array; writer: ForkedRdbWriter } {
  const server = fresh();
  const c = server.connect();
  for (const argv of [['SET', 'a', '1'], ['SET', 'b', '2'], ['SET', 'c', '3']]) server.execute(c, argv);
  const atFork = saveRdb(server, { ctimeSeconds: 0, usedMemoryBytes: 0 });
  return { server, c, atFork, writer: new ForkedRdbWriter(server, { ctimeSeconds: 0, usedMemoryBytes: 0 }) };
}

function fresh(): RedisServer {
  const clock = new ManualClock(1_767_225_600_000_000);
  return createServer({ clock, config: { 'hash-max-listpack-entries': '4', 'set-max-intset-entries': '4', 'zset-max-listpack-entries': '4' } });
}

/** Every key of a file as its own record bytes, by database: what the file says, in a form that compares. */
function recordsOf(server: RedisServer, bytes: Uint8Array): Map<string, string> {
  const c = readRdb(bytes, { ...valueReadOptions(server), databases: 16, verifyChecksum: true, nowMs: 0, dropExpired: false, allowDuplicates: false });
  if (c instanceof RdbError) throw new Error(`the file does not read back: ${c.message}`);
  const out = new Map<string, string>();
  const opts = valueWriteOptions(server);
  for (const [db, keys] of c.databases) {
    for (const [k, loaded] of keys) out.set(`${db}/${k}`, Buffer.from(keyRecord({ key: k, value: loaded.value, expireAtMs: loaded.expireAtMs }, opts)).toString('hex'));
  }
  return out;
}

describe('the file a BGSAVE child writes', () => {
  it(`holds the dataset as it was at the fork, whatever the parent does meanwhile (seed ${SEED}, ${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), fc.array(fc.array(command, { maxLength: 6 }), { maxLength: 30 }), fc.integer({ min: 1, max: 64 }), (before, during, stepBytes) => {
        const server = fresh();
        const c = server.connect();
        for (const argv of before) server.execute(c, argv);
        const atFork = saveRdb(server, { ctimeSeconds: 0, usedMemoryBytes: 0 });
        const writer = new ForkedRdbWriter(server, { ctimeSeconds: 0, usedMemoryBytes: 0 });
        const pieces: Uint8Array[] = [];
        let i = 0;
        for (let b; (b = writer.step(stepBytes)) !== null; i++) {
          pieces.push(b);
          for (const argv of during[i] ?? []) server.execute(c, argv);
        }
        expect(server.forkViews).toEqual([]);
        const file = Buffer.concat(pieces);
        expect(recordsOf(server, file)).toEqual(recordsOf(server, atFork));
        expect(writer.keysWritten).toBe(writer.keysTotal);
      }),
      {
        seed: SEED,
        numRuns: RUNS,
        reporter: (out) => {
          if (out.failed) throw new Error(`Forked RDB property failed. Reproduce with FC_SEED=${out.seed} (path ${out.counterexamplePath}).\n${fc.defaultReportMessage(out)}`);
        },
      },
    );
  });

  it('a key written, then deleted and made again by the parent, is in the file once, as it was', () => {
    const { server, c, atFork, writer } = forkedOverThreeKeys();
    const pieces: Uint8Array[] = [];
    while (writer.keysWritten < 1) pieces.push(writer.step(1)!);
    // 'a' is written; made again, it moves to the end of the table, where the walk meets it again.
    for (const argv of [['DEL', 'a'], ['SET', 'a', 'new'], ['SET', 'd', '4']]) server.execute(c, argv);
    for (let b; (b = writer.step(1)) !== null; ) pieces.push(b);
    expect(recordsOf(server, Buffer.concat(pieces))).toEqual(recordsOf(server, atFork));
  });

  it('keeps no set of the keys it wrote until the parent changes the table, then knows every one the walk passed', () => {
    const { server, c, atFork, writer } = forkedOverThreeKeys();
    const pieces: Uint8Array[] = [];
    while (writer.keysWritten < 2) pieces.push(writer.step(1)!);
    const forked = server.forkViews.at(-1)!.dbs[0]!;
    expect(forked.written).toBeNull();
    server.execute(c, ['SET', 'c', 'changed']);
    expect(['a', 'b', 'c'].map((k) => forked.written?.has(k))).toEqual([true, true, false]);
    for (let b; (b = writer.step(1)) !== null; ) pieces.push(b);
    expect(recordsOf(server, Buffer.concat(pieces))).toEqual(recordsOf(server, atFork));
  });

  it('with nothing changed, is byte for byte the file SAVE writes', () => {
    const server = fresh();
    const c = server.connect();
    for (const argv of [['SET', 'a', '1'], ['RPUSH', 'l', 'x', 'y'], ['HSET', 'h', 'f', 'v'], ['SELECT', '3'], ['SADD', 's', '1', '2'], ['EXPIRE', 's', '100']]) server.execute(c, argv);
    const stamp = { ctimeSeconds: 5, usedMemoryBytes: 7 };
    const pieces: Uint8Array[] = [];
    const writer = new ForkedRdbWriter(server, stamp);
    for (let b; (b = writer.step(3)) !== null; ) pieces.push(b);
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(saveRdb(server, stamp)));
  });
});
