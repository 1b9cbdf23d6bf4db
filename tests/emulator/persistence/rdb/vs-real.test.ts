/**
 * The codec against redis-server 7.0.15: files the real server saves are
 * read into the dataset it held, written back byte for byte, and matched
 * by what the emulator saves for the same commands; files in the old
 * encodings are loaded by both and compared; damaged files are refused by
 * both. Skipped, with a notice, when no real server is installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../../differential/availability.js';
import { RawConnection, startRealRedis, type RealRedis } from '../../../support/real-redis.js';
import { encodingOf, type Value } from '../../../../emulator/keyspace/values.js';
import { formatDouble } from '../../../../emulator/numbers/double.js';
import { RdbError, readRdb, writeRdb, type RdbContents, type RdbReadOptions } from '../../../../emulator/persistence/rdb/index.js';
import { saveRdb } from '../../../../emulator/persistence/rdb-dataset.js';
import { ByteWriter } from '../../../../emulator/keyspace/encoding/byte-writer.js';
import { Crc64 } from '../../../../emulator/persistence/rdb/crc64.js';
import { writeBlob, writeLength, writeString } from '../../../../emulator/persistence/rdb/string-encoding.js';
import { encodeIntset } from '../../../../emulator/persistence/rdb/intset.js';
import { encodeZiplist } from '../../../../emulator/persistence/rdb/ziplist.js';
import { encodeZipmap } from '../../../../emulator/persistence/rdb/zipmap.js';
import { createServer } from '../../../../emulator/process/create-server.js';
import { ManualClock } from '../../../../emulator/sim/clock.js';
import { ErrorReply, StatusReply, type Reply } from '../../../../emulator/resp/reply.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! rdb vs-real: ${skipNotice()}\n`);

const readOpts = (nowMs: number): RdbReadOptions => ({
  hashMaxListpackEntries: 512,
  hashMaxListpackValue: 64,
  setMaxIntsetEntries: 512,
  zsetMaxListpackEntries: 128,
  zsetMaxListpackValue: 64,
  deepSanitize: true,
  databases: 16,
  verifyChecksum: true,
  nowMs,
  dropExpired: true,
  allowDuplicates: false,
});

const range = <T,>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** Datasets as command lists; CONFIG SET lines set what the file depends on. */
const DATASETS: Record<string, string[][]> = {
  strings: [
    ['SET', 'int', '12345'],
    ['SET', 'neg', '-7'],
    ['SET', 'int64', '9223372036854775807'],
    ['SET', 'emb', 'hello'],
    ['SET', 'lzf', 'a'.repeat(100)],
    ['SET', 'raw', 'x'.repeat(50) + 'yz'.repeat(30)],
    ['SET', 'bin', '\x00\xff\x01binary\r\n'],
    ['SET', 'empty', ''],
    ['SET', 'k'.repeat(40), 'a long key, compressed too'],
  ],
  collections: [
    ['RPUSH', 'l1', 'a', 'b', '1', '-5', '5000', '70000', '-9000000', '3000000000', '9223372036854775807', 'x'.repeat(70), 'y'.repeat(5000)],
    ['RPUSH', 'l2', ...range(3000, (i) => `element-${i}`)],
    ['RPUSH', 'l3', ...range(2000, (i) => String(i * 37))],
    ['SADD', 's1', '1', '2', '3', '-100', '100000', '5000000000'],
    ['SADD', 's2', 'a', 'b', 'c'],
    ['SADD', 's3', ...range(600, String)],
    ['ZADD', 'z1', '1', 'a', '2.5', 'b', '-3', 'c', 'inf', 'd', '1e300', 'e', '4611686018427387904', 'f', '0.1', 'g'],
    ['ZADD', 'z2', ...range(200, (i) => [String(i / 3), `m${i}`]).flat()],
    ['HSET', 'h1', 'f1', 'v1', 'f2', '22', 'num', '-123456'],
    ['HSET', 'h2', ...range(600, (i) => [`f${i}`, `v${i}`]).flat()],
    ['HSET', 'h3', 'long', 'z'.repeat(100)],
  ],
  'expiry and databases': [
    ['SET', 'exp', 'v', 'PX', '100000000'],
    ['SET', 'exp2', 'v', 'EXAT', '4102444800'],
    ['SET', 'plain', 'v'],
    ['SELECT', '3'],
    ['SET', 'k3', 'v3'],
    ['RPUSH', 'l', 'x'],
    ['SELECT', '15'],
    ['HSET', 'h', 'a', 'b'],
    ['SELECT', '0'],
  ],
  'without compression, small nodes': [
    ['CONFIG', 'SET', 'rdbcompression', 'no'],
    ['CONFIG', 'SET', 'list-max-listpack-size', '5'],
    ['SET', 'lzf', 'a'.repeat(100)],
    ['RPUSH', 'five', ...range(23, String)],
    ['RPUSH', 'l2', ...range(300, (i) => `element-${i}`)],
  ],
  'compressed list nodes': [
    ['CONFIG', 'SET', 'rdbcompression', 'no'],
    ['CONFIG', 'SET', 'list-compress-depth', '1'],
    ['RPUSH', 'c1', ...range(3000, (i) => `compressible-${i % 10}-value`)],
    ['RPUSH', 'c2', ...range(3000, String)],
  ],
  'plain nodes': [
    ['DEBUG', 'QUICKLIST-PACKED-THRESHOLD', '100'],
    ['RPUSH', 'p', 'a', 'b'.repeat(100), 'c', 'd'.repeat(150), 'e'.repeat(99)],
  ],
};

/** The settings a dataset changed, back to the defaults. */
const RESET = [
  ['CONFIG', 'SET', 'rdbcompression', 'yes'],
  ['CONFIG', 'SET', 'list-max-listpack-size', '-2'],
  ['CONFIG', 'SET', 'list-compress-depth', '0'],
  ['DEBUG', 'QUICKLIST-PACKED-THRESHOLD', '0'],
];

function fill(dataset: string[][]): { fill: number; compressDepth: number; packedThreshold: number; compression: boolean } {
  const o = { fill: -2, compressDepth: 0, packedThreshold: 1 << 30, compression: true };
  for (const cmd of dataset) {
    if (cmd[0] === 'CONFIG' && cmd[2] === 'rdbcompression') o.compression = cmd[3] === 'yes';
    if (cmd[0] === 'CONFIG' && cmd[2] === 'list-max-listpack-size') o.fill = Number(cmd[3]);
    if (cmd[0] === 'CONFIG' && cmd[2] === 'list-compress-depth') o.compressDepth = Number(cmd[3]);
    if (cmd[0] === 'DEBUG') o.packedThreshold = Number(cmd[2]);
  }
  return o;
}

/** A value as the real server shows it: type, encoding, contents. */
async function realPicture(c: RawConnection, key: string): Promise<unknown> {
  const t = ((await c.command(['TYPE', key])) as StatusReply).text;
  const enc = await c.command(['OBJECT', 'ENCODING', key]);
  switch (t) {
    case 'string':
      return ['string', enc, await c.command(['GET', key])];
    case 'list':
      return ['list', enc, await c.command(['LRANGE', key, '0', '-1'])];
    case 'set':
      return ['set', enc, ((await c.command(['SMEMBERS', key])) as string[]).sort()];
    case 'zset':
      return ['zset', enc, await c.command(['ZRANGE', key, '0', '-1', 'WITHSCORES'])];
    default:
      return ['hash', enc, ((await c.command(['HGETALL', key])) as string[])];
  }
}

function picture(v: Value): unknown {
  const enc = encodingOf(v);
  if (typeof v === 'string') return ['string', enc, v];
  switch (v.type) {
    case 'string':
      return ['string', enc, v.s];
    case 'list':
      return ['list', enc, v.items.toArray()];
    case 'set':
      return ['set', enc, [...v.set].sort()];
    case 'zset':
      return ['zset', enc, [...v.list].flatMap((n) => [n.member, formatDouble(n.score)])];
    case 'hash':
      return ['hash', enc, [...v.map].flat()];
  }
}

/** Writes back what was read, with the aux values of the original file. */
function rewrite(contents: RdbContents, o: ReturnType<typeof fill>): Uint8Array {
  const aux = new Map(contents.aux);
  return writeRdb(
    [...contents.databases].map(([id, keys]) => ({
      id,
      size: keys.size,
      expiresSize: [...keys.values()].filter((k) => k.expireAtMs !== undefined).length,
      keys: [...keys].map(([key, k]) => ({ key, ...k })),
    })),
    { ...o, checksum: true, aux: { redisVersion: '7.0.15', ctimeSeconds: Number(aux.get('ctime')), usedMemoryBytes: Number(aux.get('used-mem')), aofBase: false } },
  );
}

function hexDiff(a: Uint8Array, b: Uint8Array): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `lengths ${a.length} and ${b.length}, first difference at ${i}`;
}

describe.skipIf(!HAVE_REAL_REDIS)('RDB files saved by redis-server 7.0.15', () => {
  let real: RealRedis;
  let c: RawConnection;
  beforeAll(async () => {
    real = await startRealRedis();
    c = await RawConnection.open(real.port);
  });
  afterAll(async () => {
    c?.close();
    await real?.stop();
  });

  async function saved(dataset: string[][]): Promise<Uint8Array> {
    await c.command(['FLUSHALL']);
    for (const cmd of RESET) await c.command(cmd);
    for (const cmd of dataset) {
      const r = await c.command(cmd);
      expect(r, cmd.join(' ').slice(0, 60)).not.toBeInstanceOf(ErrorReply);
    }
    await c.command(['SAVE']);
    return new Uint8Array(readFileSync(join(real.dir, 'dump.rdb')));
  }

  for (const [name, dataset] of Object.entries(DATASETS)) {
    it(`reads "${name}" into the dataset the server held, and writes the same bytes back`, async () => {
      const bytes = await saved(dataset);
      const contents = readRdb(bytes, readOpts(Date.now()));
      if (contents instanceof RdbError) throw new Error(contents.message);
      let keys = 0;
      for (const [id, dbKeys] of contents.databases) {
        await c.command(['SELECT', String(id)]);
        expect(await c.command(['DBSIZE'])).toBe(dbKeys.size);
        for (const [key, k] of dbKeys) {
          expect(picture(k.value), key).toEqual(await realPicture(c, key));
          const pexpiretime = (await c.command(['PEXPIRETIME', key])) as number;
          expect(k.expireAtMs ?? -1).toBe(pexpiretime);
          keys++;
        }
      }
      await c.command(['SELECT', '0']);
      expect(keys).toBeGreaterThan(0);
      const again = rewrite(contents, fill(dataset));
      expect(Buffer.from(again).equals(Buffer.from(bytes)), hexDiff(again, bytes)).toBe(true);
    });
  }

  it('matches what the emulator saves for the same commands, one key per database', async () => {
    // With one key in each database the order of keys in the file does not
    // depend on the real server's hash seed.
    const keys: string[][] = [
      ['SET', 'k', '12345'],
      ['SET', 'k', 'x'.repeat(100), 'PXAT', '4102444800123'],
      ['RPUSH', 'k', ...range(3000, (i) => `element-${i}`)],
      ['SADD', 'k', '1', '-40000', '5'],
      ['SADD', 'k', 'member'],
      ['ZADD', 'k', '1.5', 'a', '-3', 'b', 'inf', 'c'],
      ['ZADD', 'k', ...range(200, (i) => [String(i / 3), `m${i}`]).flat()],
      ['HSET', 'k', 'f', 'v', 'n', '7'],
      ['HSET', 'k', 'f', 'v'.repeat(100)],
      ['SET', 'k', '\x00\xff'],
    ];
    const dataset = keys.flatMap((cmd, db) => [['SELECT', String(db)], cmd]);
    dataset.push(['SELECT', '0']);
    const bytes = await saved(dataset);
    const contents = readRdb(bytes, readOpts(Date.now())) as RdbContents;
    const aux = new Map(contents.aux);
    const clock = new ManualClock(Date.now() * 1000);
    const emu = createServer({ clock, config: { save: '' } });
    const client = emu.connect();
    for (const cmd of dataset) {
      const r: Reply = emu.execute(client, cmd);
      expect(r).not.toBeInstanceOf(ErrorReply);
    }
    const mine = saveRdb(emu, { ctimeSeconds: Number(aux.get('ctime')), usedMemoryBytes: Number(aux.get('used-mem')) });
    expect(Buffer.from(mine).equals(Buffer.from(bytes)), hexDiff(mine, bytes)).toBe(true);
  });
});

/** An RDB file in the encodings of older servers, which 7.0 still loads. */
function oldFile(version: string): Uint8Array {
  const w = new ByteWriter();
  w.str(`REDIS${version}`);
  const key = (type: number, name: string) => {
    w.byte(type);
    writeString(w, name, false);
  };
  w.byte(0xfe);
  writeLength(w, 0);
  key(1, 'list-plain');
  writeLength(w, 3);
  for (const s of ['a', '12', 'c']) writeString(w, s, false);
  key(2, 'set-plain');
  writeLength(w, 2);
  writeString(w, '7', false);
  writeString(w, '3', false);
  key(3, 'zset-text');
  writeLength(w, 2);
  writeString(w, 'a', false);
  w.byte(3);
  w.str('1.5');
  writeString(w, 'b', false);
  w.byte(254);
  key(4, 'hash-plain');
  writeLength(w, 1);
  writeString(w, 'f', false);
  writeString(w, 'v', false);
  key(5, 'zset-binary');
  writeLength(w, 1);
  writeString(w, 'm', false);
  w.f64le(-2.25);
  key(9, 'zipmap');
  writeBlob(w, encodeZipmap([['f', 'v'], ['g', '12']]), false);
  key(10, 'list-ziplist');
  writeBlob(w, encodeZiplist(['x', '1', '-300', '5000000000', 'y'.repeat(100)]), false);
  key(11, 'intset');
  writeBlob(w, encodeIntset(['5', '-3', '70000']), false);
  key(12, 'zset-ziplist');
  writeBlob(w, encodeZiplist(['a', '1', 'b', '2.5']), false);
  key(13, 'hash-ziplist');
  writeBlob(w, encodeZiplist(['f', 'v', 'n', '99']), false);
  key(14, 'quicklist');
  writeLength(w, 2);
  writeBlob(w, encodeZiplist(['a', 'b']), false);
  writeBlob(w, encodeZiplist(['1', '2', '3']), false);
  w.byte(0xfd);
  w.u32le(4102444800);
  key(0, 'expires-in-seconds');
  writeString(w, 'v', false);
  w.byte(0xff);
  w.bytes(new Crc64().update(w.view()).bytesLE());
  return w.finish();
}

describe.skipIf(!HAVE_REAL_REDIS)('RDB files in older encodings', () => {
  for (const version of ['0009', '0007']) {
    it(`loads a version ${Number(version)} file as redis-server 7.0.15 does`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rw-old-rdb-'));
      const bytes = oldFile(version);
      writeFileSync(join(dir, 'old.rdb'), bytes);
      const real = await startRealRedis(['--dir', dir, '--dbfilename', 'old.rdb']);
      const c = await RawConnection.open(real.port);
      try {
        const contents = readRdb(bytes, readOpts(Date.now()));
        if (contents instanceof RdbError) throw new Error(contents.message);
        const keys = contents.databases.get(0)!;
        expect(await c.command(['DBSIZE'])).toBe(keys.size);
        for (const [key, k] of keys) {
          expect(picture(k.value), key).toEqual(await realPicture(c, key));
          expect(k.expireAtMs ?? -1).toBe(await c.command(['PEXPIRETIME', key]));
        }
      } finally {
        c.close();
        await real.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe.skipIf(!HAVE_REAL_REDIS || spawnSync('redis-check-rdb', ['--help']).error !== undefined)('damaged RDB files', () => {
  it('are refused by redis-check-rdb with the messages the reader gives', () => {
    const good = oldFile('0010');
    const badCrc = good.slice();
    badCrc[badCrc.length - 1] ^= 1;
    const badMagic = good.slice();
    badMagic[0] = 0x58;
    const cases: Array<[Uint8Array, string]> = [
      [badCrc, 'RDB CRC error'],
      [badMagic, 'Wrong signature trying to load DB from file'],
      [good.subarray(0, good.length - 30), 'Unexpected EOF reading RDB file'],
    ];
    const dir = mkdtempSync(join(tmpdir(), 'rw-bad-rdb-'));
    try {
      for (const [bytes, message] of cases) {
        const path = join(dir, 'bad.rdb');
        writeFileSync(path, bytes);
        const check = spawnSync('redis-check-rdb', [path], { encoding: 'latin1' });
        expect(check.status).toBe(1);
        expect(check.stdout + check.stderr).toContain(message);
        const r = readRdb(bytes, readOpts(Date.now()));
        expect(r).toBeInstanceOf(RdbError);
        expect((r as RdbError).message).toBe(message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
