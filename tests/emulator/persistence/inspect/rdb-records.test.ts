/**
 * The RDB record reader against files written by redis-server 7.0.15 and
 * by the emulator: it must see every key the loader (readRdb) sees, with
 * the file's own type byte and encoding, resume from any record it passed,
 * and say where and why a damaged file stops.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../../differential/availability.js';
import { RawConnection, startRealRedis, type RealRedis } from '../../../support/real-redis.js';
import { RdbRecordReader, type RdbKeyRecord, type RdbRecord } from '../../../../emulator/persistence/inspect/index.js';
import { readRdb, RdbError, type RdbContents } from '../../../../emulator/persistence/rdb/index.js';
import { World } from '../../../../emulator/world/world.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! inspect rdb-records: ${skipNotice()}\n`);
const describeReal = HAVE_REAL_REDIS ? describe : describe.skip;

function all(bytes: Uint8Array): RdbRecord[] {
  const reader = new RdbRecordReader(bytes);
  const out: RdbRecord[] = [];
  for (let rec = reader.next(); rec !== null; rec = reader.next()) out.push(rec);
  return out;
}

const keysOf = (recs: RdbRecord[]): RdbKeyRecord[] => recs.filter((r): r is RdbKeyRecord => r.kind === 'key');

function load(bytes: Uint8Array): RdbContents {
  const c = readRdb(bytes, {
    hashMaxListpackEntries: 128,
    hashMaxListpackValue: 64,
    setMaxIntsetEntries: 512,
    zsetMaxListpackEntries: 128,
    zsetMaxListpackValue: 64,
    deepSanitize: true,
    databases: 16,
    verifyChecksum: true,
    nowMs: 0,
    dropExpired: false,
    allowDuplicates: false,
  });
  if (c instanceof RdbError) throw new Error(c.message);
  return c;
}

/** A dataset of every type and encoding Redis 7.0 saves, in two databases. */
const DATASET: string[][] = [
  ['SET', 'int', '12345'],
  ['SET', 'lzf', 'a'.repeat(100)],
  ['SET', 'raw', 'hello world'],
  ['SET', 'bin', 'x\x00\xff\r\n'],
  ['RPUSH', 'list', 'a', 'b', 'c', 'd', 'e'],
  ['RPUSH', 'short-list', 'x'],
  ['HSET', 'small-hash', 'f1', 'v1', 'f2', 'v2'],
  ['HSET', 'big-hash', ...Array.from({ length: 600 }, (_, i) => [`f${i}`, `v${i}`]).flat()],
  ['SADD', 'ints', '3', '1', '2'],
  ['SADD', 'words', 'x', 'y'],
  ['ZADD', 'small-zset', '1', 'a', '2.5', 'b'],
  ['ZADD', 'big-zset', ...Array.from({ length: 200 }, (_, i) => [String(i), `m${i}`]).flat()],
  ['SET', 'ttl', 'v', 'PX', '4102444800000'],
  ['PEXPIREAT', 'ttl', '4102444800000'],
  ['SET', '<img src=x onerror=alert(1)>', '\x1b[31mred\x00'],
  ['SELECT', '3'],
  ['SET', 'in-db-3', 'x'],
  ['DEBUG', 'POPULATE', '50', 'pop'],
];

const EXPECTED_ENCODINGS: Record<string, [string, string, string]> = {
  int: ['string', 'RDB_TYPE_STRING', 'int'],
  lzf: ['string', 'RDB_TYPE_STRING', 'lzf'],
  raw: ['string', 'RDB_TYPE_STRING', 'raw'],
  list: ['list', 'RDB_TYPE_LIST_QUICKLIST_2', 'quicklist'],
  'small-hash': ['hash', 'RDB_TYPE_HASH_LISTPACK', 'listpack'],
  'big-hash': ['hash', 'RDB_TYPE_HASH', 'hashtable'],
  ints: ['set', 'RDB_TYPE_SET_INTSET', 'intset'],
  words: ['set', 'RDB_TYPE_SET', 'hashtable'],
  'small-zset': ['zset', 'RDB_TYPE_ZSET_LISTPACK', 'listpack'],
  'big-zset': ['zset', 'RDB_TYPE_ZSET_2', 'skiplist'],
};

function checkAgainstLoader(bytes: Uint8Array): RdbRecord[] {
  const recs = all(bytes);
  const loaded = load(bytes);
  const keys = keysOf(recs);
  // Every key the loader sees, in its database, with its expiry.
  const fromLoader = [...loaded.databases].flatMap(([db, m]) => [...m].map(([k, v]) => [db, k, v.expireAtMs === undefined ? null : Number(v.expireAtMs)]));
  expect(keys.map((k) => [k.db, k.key, k.expireAtMs ?? null])).toEqual(fromLoader);
  expect(recs.filter((r) => r.kind === 'aux').map((r) => (r.kind === 'aux' ? [r.key, r.value] : null))).toEqual(loaded.aux);
  const last = recs[recs.length - 1]!;
  expect(last.kind).toBe('eof');
  if (last.kind === 'eof') {
    expect(last.end).toBe(bytes.length);
    expect(last.checksum.stored).toBe(last.checksum.computed);
  }
  // Records tile the file: each starts where the one before ended.
  for (let i = 1; i < recs.length; i++) expect(recs[i]!.offset).toBe(recs[i - 1]!.end);
  return recs;
}

function checkEncodings(recs: RdbRecord[]): void {
  const byName = new Map(keysOf(recs).map((k) => [k.key, k]));
  for (const [name, [type, rdbType, encoding]] of Object.entries(EXPECTED_ENCODINGS)) {
    const k = byName.get(name)!;
    expect([name, k.type, k.rdbType, k.encoding]).toEqual([name, type, rdbType, encoding]);
  }
  expect(byName.get('ttl')!.expireAtMs).toBe(4102444800000);
  expect(byName.get('list')!.value.preview).toBe('5 items: "a", "b", "c", "d", …');
  expect(byName.get('short-list')!.value.preview).toBe('1 item: "x"');
  expect(byName.get('small-zset')!.value.preview).toBe('2 members: "a" 1, "b" 2.5');
  expect(byName.get('bin')!.value).toEqual({ size: 5, preview: '"x\\x00\\xff\\r\\n"' });
  expect(byName.get('lzf')!.value.preview).toBe(`"${'a'.repeat(64)}"…`);
  const markup = byName.get('<img src=x onerror=alert(1)>')!;
  expect(markup.value.preview).toBe('"\\x1b[31mred\\x00"');
  expect(byName.get('in-db-3')!.db).toBe(3);
  expect(keysOf(recs).filter((k) => k.key.startsWith('pop:'))).toHaveLength(50);
}

describeReal('RDB records of a file written by redis-server 7.0.15', () => {
  let real: RealRedis;
  let bytes: Uint8Array;

  beforeAll(async () => {
    real = await startRealRedis();
    const c = await RawConnection.open(real.port);
    for (const cmd of DATASET) await c.command(cmd);
    await c.command(['SAVE']);
    c.close();
    bytes = new Uint8Array(readFileSync(join(real.dir, 'dump.rdb')));
  });

  afterAll(async () => {
    await real?.stop();
  });

  it('reads every key the loader reads, with its database, expiry, type byte and encoding', () => {
    const recs = checkAgainstLoader(bytes);
    expect(recs[0]).toEqual({ kind: 'header', offset: 0, end: 9, version: 10 });
    expect(recs.find((r) => r.kind === 'aux' && r.key === 'redis-ver')).toMatchObject({ value: '7.0.15' });
    expect(recs.filter((r) => r.kind === 'select-db').map((r) => (r.kind === 'select-db' ? r.db : -1))).toEqual([0, 3]);
    checkEncodings(recs);
  });

  it('resumes from any record it passed and reads the same records from there', () => {
    const reader = new RdbRecordReader(bytes);
    const states = [];
    const recs: RdbRecord[] = [];
    for (let rec = reader.next(); rec !== null; rec = reader.next()) {
      recs.push(rec);
      states.push(reader.state());
    }
    for (const i of [0, 5, 20, recs.length - 3]) {
      const again = new RdbRecordReader(bytes, states[i]!);
      const rest: RdbRecord[] = [];
      for (let rec = again.next(); rec !== null; rec = again.next()) rest.push(rec);
      // Only a reader from byte 0 can check the sum; the records are otherwise the same.
      const strip = (r: RdbRecord) => (r.kind === 'eof' ? { ...r, checksum: { ...r.checksum, computed: null } } : r);
      expect(rest.map(strip)).toEqual(recs.slice(i + 1).map(strip));
    }
  });

  it('stops at a wrong checksum with the message Redis logs, covering the stored sum', () => {
    const damaged = bytes.slice();
    damaged[40] = damaged[40]! ^ 0x01;
    const recs = all(damaged);
    const last = recs[recs.length - 1]!;
    // The flipped byte sits in an aux field's text, so every record still reads; only the sum disagrees.
    expect(last).toMatchObject({ kind: 'error', end: damaged.length, error: { code: 'checksum', message: 'RDB CRC error' } });
    if (last.kind === 'error') expect(last.error.detail).toMatch(/^Wrong RDB checksum expected: \([0-9a-f]+\) but got \([0-9a-f]+\)\. Aborting now\.$/);
  });

  it('stops where a truncated file ends, after the keys before it', () => {
    const whole = all(bytes);
    const lastKey = keysOf(whole).pop()!;
    const cut = bytes.slice(0, lastKey.offset + 3);
    const recs = all(cut);
    const last = recs[recs.length - 1]!;
    expect(last).toEqual({ kind: 'error', offset: lastKey.offset, end: cut.length, error: expect.objectContaining({ code: 'short-read', message: 'Unexpected EOF reading RDB file' }) });
    expect(recs.slice(0, -1)).toEqual(whole.slice(0, recs.length - 1));
  });

  it('refuses a file that is not an RDB at its first byte', () => {
    expect(all(new TextEncoder().encode('hello, this is not a dump'))).toEqual([
      { kind: 'error', offset: 0, end: 0, error: expect.objectContaining({ code: 'bad-magic', message: 'Wrong signature trying to load DB from file' }) },
    ]);
  });
});

describe('RDB records of a file written by the emulator', () => {
  it('reads what SAVE wrote, as the loader does', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A');
    world.addHost('app');
    world.startRedis('A', { config: { save: '' } });
    const r = world.connect({ from: 'app', to: 'A:6379' });
    for (const cmd of DATASET) {
      if (cmd[0] === 'DEBUG') continue;
      await world.settle(r.call(cmd[0]!, ...cmd.slice(1)));
    }
    await world.settle(r.call('SAVE'));
    const bytes = world.host('A').disk.readFile('/var/lib/redis/dump.rdb');
    const recs = checkAgainstLoader(bytes);
    const byName = new Map(keysOf(recs).map((k) => [k.key, k]));
    for (const [name, [type, rdbType, encoding]] of Object.entries(EXPECTED_ENCODINGS)) {
      expect([name, byName.get(name)!.type, byName.get(name)!.rdbType, byName.get(name)!.encoding]).toEqual([name, type, rdbType, encoding]);
    }
  });

  it('stops at module data, naming the module as Redis does', () => {
    // REDIS0010, then MODULE_AUX of module id 5 (type name all 'A's): no module can load it.
    const bytes = new Uint8Array([...new TextEncoder().encode('REDIS0010'), 0xfe, 0x00, 0xf7, 5, 2, 2]);
    const recs = all(bytes);
    expect(recs.map((r) => r.kind)).toEqual(['header', 'select-db', 'error']);
    expect(recs[2]).toMatchObject({
      offset: 11,
      error: { code: 'unsupported', message: "The RDB file contains AUX module data I can't load: no matching module 'AAAAAAAAA'" },
    });
  });
});
