/**
 * redis-check-rdb against the real 7.0.15 tool: the same files, from the
 * real server's SAVE, from the emulator's writer and made by hand, whole,
 * truncated, bit-flipped and foreign, must give the same output byte for
 * byte and the same exit code. Only the pid and time of the lines that
 * come from the server's log are normalised. Skipped, with a notice, when
 * the tools are not installed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../differential/availability.js';
import { RawConnection, startRealRedis, type RealRedis } from '../../support/real-redis.js';
import { HAVE_REAL_CHECK_TOOLS, runEmulated, runReal, seeded, type CaseFiles } from '../../support/real-check-tools.js';
import { writeRdb, type RdbKey } from '../../../emulator/persistence/rdb/index.js';
import { Crc64 } from '../../../emulator/persistence/rdb/crc64.js';
import { HashValue, ListValue, SetValue, ZSetValue } from '../../../emulator/keyspace/values.js';
import { Deque } from '../../../emulator/keyspace/deque.js';
import { saveRdb } from '../../../emulator/persistence/rdb-dataset.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { runRedisCheckRdb } from '../../../emulator/programs/redis-check-rdb.js';
import { Disk } from '../../../emulator/sim/disk.js';
import { DISK_PROFILES } from '../../../emulator/sim/disk-api.js';
import { Kernel } from '../../../emulator/sim/kernel.js';

const ENABLED = HAVE_REAL_REDIS && HAVE_REAL_CHECK_TOOLS;
if (!ENABLED) console.warn(`\n!!! redis-check-rdb vs real: ${skipNotice()} (or redis-check-rdb missing)\n`);
const describeReal = ENABLED ? describe : describe.skip;

/** Runs both tools on `files` with `args` and expects the same output, errors and exit code. */
function same(files: CaseFiles, args: string[]): string {
  const nowMs = Date.now();
  const real = runReal('rdb', files, args);
  const emu = runEmulated('rdb', files, args, { nowMs });
  expect(emu.stdout, `stdout of redis-check-rdb ${args.join(' ')}`).toBe(real.stdout);
  expect(emu.stderr, `stderr of redis-check-rdb ${args.join(' ')}`).toBe(real.stderr);
  expect(emu.code, `exit code of redis-check-rdb ${args.join(' ')}`).toBe(real.code);
  return real.stdout;
}

const latin1 = (u: Uint8Array): string => Buffer.from(u).toString('latin1');
const bytes = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));

/** A one-byte-length string in RDB form. */
function s(x: string): string {
  if (x.length >= 64) throw new Error('short strings only');
  return String.fromCharCode(x.length) + x;
}

function len(n: number | bigint): string {
  const v = BigInt(n);
  if (v < 64n) return String.fromCharCode(Number(v));
  if (v < 16384n) return String.fromCharCode(0x40 | Number(v >> 8n), Number(v & 0xffn));
  if (v < 1n << 32n) return '\x80' + [24n, 16n, 8n, 0n].map((k) => String.fromCharCode(Number((v >> k) & 0xffn))).join('');
  return '\x81' + [56n, 48n, 40n, 32n, 24n, 16n, 8n, 0n].map((k) => String.fromCharCode(Number((v >> k) & 0xffn))).join('');
}

function f64(d: number): string {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(d);
  return b.toString('latin1');
}

/** A version 10 file with one database holding `body`, EOF and a correct checksum. */
function rdbFile(body: string): string {
  const data = bytes('REDIS0010\xfe\x00' + body + '\xff');
  const crc = new Crc64().update(data).bytesLE();
  return latin1(data) + latin1(crc);
}

/** A listpack of the given entries (small strings and 7-bit integers only). */
function listpack(entries: Array<string | number>): string {
  let body = '';
  for (const e of entries) {
    const enc = typeof e === 'number' ? String.fromCharCode(e) : String.fromCharCode(0x80 | e.length) + e;
    body += enc + String.fromCharCode(enc.length);
  }
  const total = 6 + body.length + 1;
  const count = entries.length;
  return [total & 0xff, (total >> 8) & 0xff, 0, 0, count & 0xff, count >> 8].map((c) => String.fromCharCode(c)).join('') + body + '\xff';
}

function streamId(ms: number, seq: number): string {
  const b = Buffer.alloc(16);
  b.writeBigUInt64BE(BigInt(ms));
  b.writeBigUInt64BE(BigInt(seq), 8);
  return b.toString('latin1');
}

/** A version-2 stream with one node of one entry, and the given consumer groups. */
function stream(opts: { nodes?: number; sameNode?: boolean; length?: number; groups?: string } = {}): string {
  const node = listpack([1, 0, 1, 'f', 0, 2, 0, 0, 'v', 4]);
  const key = streamId(1, 1);
  let b = len(opts.nodes ?? 1);
  for (let i = 0; i < (opts.nodes ?? 1); i++) b += s(opts.sameNode === false ? streamId(1, 1 + i) : key) + s(node);
  b += len(opts.length ?? 1) + len(1) + len(1) + len(1) + len(1) + len(0) + len(0) + len(opts.length ?? 1);
  return '\x13' + s('s') + b + (opts.groups ?? len(0));
}

function group(name: string, pel: string[], consumers: Array<[string, string[]]>): string {
  let b = s(name) + len(1) + len(1) + len(1) + len(pel.length);
  for (const id of pel) b += id + '\xe8\x03\x00\x00\x00\x00\x00\x00' + len(1);
  b += len(consumers.length);
  for (const [c, ids] of consumers) b += s(c) + '\xe8\x03\x00\x00\x00\x00\x00\x00' + len(ids.length) + ids.join('');
  return b;
}

/** Hand-made files, each damaged in one way the loader reports. */
const HANDMADE: Record<string, string> = {
  lengthEncoding: rdbFile('\x00' + s('k') + '\x85'),
  stringEncoding: rdbFile('\x00' + s('k') + '\xc5'),
  lzf: rdbFile('\x00' + s('k') + '\xc3\x05\x0a' + '\xff'.repeat(5)),
  dupIntset: rdbFile('\x02' + s('k') + '\x02' + s('1') + s('1')),
  dupSet: rdbFile('\x02' + s('k') + '\x02' + s('a') + s('a')),
  dupAfterConversion: rdbFile('\x02' + s('k') + '\x03' + s('1') + s('a') + s('1')),
  nanScore: rdbFile('\x05' + s('k') + '\x01' + s('a') + f64(NaN)),
  dupZset: rdbFile('\x05' + s('k') + '\x02' + s('a') + f64(1) + s('a') + f64(2)),
  textScores: rdbFile('\x03' + s('k') + '\x03' + s('a') + '\x031.5' + s('b') + '\xfe' + s('c') + '\x04 -2e'),
  textScoreNan: rdbFile('\x03' + s('k') + '\x01' + s('a') + '\x03nan'),
  textScoreBad: rdbFile('\x03' + s('k') + '\x01' + s('a') + '\x03abc'),
  dupHash: rdbFile('\x04' + s('k') + '\x02' + s('a') + s('1') + s('a') + s('2')),
  dupHashTable: rdbFile('\x04' + s('k') + '\x02' + s('a') + '\x40\x46' + 'x'.repeat(70) + s('a') + s('2')),
  quicklistContainer: rdbFile('\x12' + s('k') + '\x01\x03' + s('x')),
  quicklistEmptyNode: rdbFile('\x12' + s('k') + '\x01\x02' + s(listpack([]))),
  quicklistPlain: rdbFile('\x12' + s('k') + '\x02\x01' + s('plain') + '\x02' + s(listpack(['a', 7]))),
  zipmap: rdbFile('\x09' + s('k') + s('xx')),
  zipmapDup: rdbFile('\x09' + s('k') + s('\x02\x01a\x01\x001\x01a\x01\x002\xff')),
  ziplistNode: rdbFile('\x0e' + s('k') + '\x01' + s('x'.repeat(13))),
  listZiplist: rdbFile('\x0a' + s('k') + s('x'.repeat(13))),
  zsetZiplist: rdbFile('\x0c' + s('k') + s('x'.repeat(13))),
  zsetListpack: rdbFile('\x11' + s('k') + s(listpack(['a', 1, 'a', 2]))),
  zsetListpackOdd: rdbFile('\x11' + s('k') + s(listpack(['a', 1, 'b']))),
  hashZiplist: rdbFile('\x0d' + s('k') + s('x'.repeat(13))),
  hashListpack: rdbFile('\x10' + s('k') + s(listpack(['f', 'v', 'f', 'w']))),
  hashListpackEmpty: rdbFile('\x10' + s('k') + s(listpack([]))),
  intset: rdbFile('\x0b' + s('k') + s('\x02\x00\x00\x00\x02\x00\x00\x00\x02\x00\x01\x00')),
  emptyList: rdbFile('\x01' + s('k') + '\x00'),
  invalidType: rdbFile('\x08' + s('k') + s('v')),
  oomZset: rdbFile('\x05' + s('k') + len((1n << 50n) - 1n)),
  oomHash: rdbFile('\x04' + s('k') + len((1n << 50n) - 1n)),
  hugeSetOverflows: rdbFile('\x02' + s('k') + len((1n << 63n) - 1n)),
  hugeString: rdbFile('\x00' + s('k') + len(1n << 62n)),
  expireSeconds: rdbFile('\xfd\x01\x00\x00\x00' + '\x00' + s('k') + s('v') + '\xfd\xff\xff\xff\x7f' + '\x00' + s('j') + s('v')),
  idleAndFreq: rdbFile('\xf8\x05\xf9\x07' + '\x00' + s('k') + s('v')),
  resizeAndSelect: rdbFile('\xfb\x02\x01\xfe\x03\xfe' + len(100000) + '\x00' + s('k') + s('v')),
  nulInKey: rdbFile('\x00' + s('a\x00b') + '\x85'),
  moduleV1: rdbFile('\x06' + s('k') + len(5n << 10n)),
  moduleV2: rdbFile('\x07' + s('k') + len(5n << 10n) + len(1) + len(7) + len(5) + s('abc') + len(3) + 'abcd' + len(4) + 'abcdefgh' + len(0)),
  moduleV2Double: rdbFile('\x07' + s('k') + len(5n << 10n) + len(4) + '\x01\x02'),
  moduleShortId: 'REDIS0010\xfe\x00\x06' + s('k'),
  moduleV2ShortInteger: 'REDIS0010\xfe\x00\x07' + s('k') + len(5n << 10n) + len(1),
  moduleV2ShortString: 'REDIS0010\xfe\x00\x07' + s('k') + len(5n << 10n) + len(5) + '\x05ab',
  moduleV2ShortFloat: 'REDIS0010\xfe\x00\x07' + s('k') + len(5n << 10n) + len(3) + 'ab',
  moduleV2ShortDouble: 'REDIS0010\xfe\x00\x07' + s('k') + len(5n << 10n) + len(4) + 'abcde',
  moduleAux: rdbFile('\xf7' + len(5n << 10n) + len(2) + len(1) + len(0)),
  moduleAuxBadWhen: rdbFile('\xf7' + len(5n << 10n) + len(1) + len(1) + len(0)),
  function2: rdbFile('\xf5' + s('#!lua name=x\nredis.register_function("f", f)')),
  functionOld: rdbFile('\xf6' + s('x') + s('lua') + len(1) + s('desc') + s('return 1')),
  streamGood: rdbFile(stream()),
  streamWithGroup: rdbFile(stream({ groups: len(1) + group('g', [streamId(1, 1)], [['a', [streamId(1, 1)]]]) })),
  streamBadListpack: rdbFile('\x13' + s('s') + len(1) + s(streamId(1, 1)) + s(listpack([1, 0, 1, 'f', 0, 2, 0, 0, 'v', 3]))),
  streamNodeKeySize: rdbFile('\x13' + s('s') + len(1) + s('x')),
  streamDupNode: rdbFile(stream({ nodes: 2 })),
  streamLengthWithoutNodes: rdbFile('\x13' + s('s') + len(0) + len(1) + len(1) + len(1) + len(1) + len(1) + len(0) + len(0) + len(1) + len(0)),
  streamDupGroup: rdbFile(stream({ groups: len(2) + group('g', [], []) + group('g', [], []) })),
  streamDupPel: rdbFile(stream({ groups: len(1) + group('g', [streamId(1, 1), streamId(1, 1)], []) })),
  streamDupConsumer: rdbFile(stream({ groups: len(1) + group('g', [], [['a', []], ['a', []]]) })),
  streamConsumerPelMissing: rdbFile(stream({ groups: len(1) + group('g', [], [['a', [streamId(1, 1)]]]) })),
  streamConsumerPelTwice: rdbFile(stream({ groups: len(1) + group('g', [streamId(1, 1)], [['a', [streamId(1, 1), streamId(1, 1)]]]) })),
  streamPelWithoutConsumer: rdbFile(stream({ groups: len(1) + group('g', [streamId(1, 1)], [['a', []]]) })),
  checksumOff: latin1(bytes('REDIS0010\xfe\x00\x00' + s('k') + s('v') + '\xff' + '\x00'.repeat(8))),
  version4: 'REDIS0004\xfe\x00\x00' + s('k') + s('v') + '\xff',
  version11: 'REDIS0011\xff',
  version0: 'REDIS0000\xff',
  notRedis: 'REDIX0010\xff',
  png: '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10',
  short: 'REDIS',
  functionShort: 'REDIS0010\xf5\x05ab',
  functionOldShort: 'REDIS0010\xf6\x01x\x03lua\x01',
};

/** The file the emulator's writer makes for a dataset with every kind of value, some keys already expired. */
function emulatorFile(): Uint8Array {
  const keys: RdbKey[] = [
    { key: 'str', value: 'hello' },
    { key: 'num', value: '12345' },
    { key: 'lzf', value: 'a'.repeat(200) },
    { key: 'list', value: new ListValue(Deque.from(['a', 'b', '3'])) },
    { key: 'expired', value: 'old', expireAtMs: 1_000 },
    { key: 'later', value: 'new', expireAtMs: 4_102_444_800_000 },
  ];
  const set = new SetValue('intset');
  for (const m of ['1', '2', '300']) set.set.add(m);
  keys.push({ key: 'intset', value: set });
  const hset = new SetValue('hashtable');
  for (let i = 0; i < 600; i++) hset.set.add(`m${i}`);
  keys.push({ key: 'bigset', value: hset });
  const h = new HashValue('listpack');
  h.map.set('f', 'v');
  keys.push({ key: 'hash', value: h });
  const z = new ZSetValue('listpack');
  z.set('a', 1.5);
  z.set('b', -2);
  keys.push({ key: 'zset', value: z });
  const zb = new ZSetValue('skiplist');
  for (let i = 0; i < 200; i++) zb.set(`m${i}`, i / 3);
  keys.push({ key: 'bigzset', value: zb });
  return writeRdb(
    [
      { id: 0, size: keys.length, expiresSize: 2, keys },
      { id: 3, size: 1, expiresSize: 0, keys: [{ key: 'other', value: 'db3' }] },
    ],
    { compression: true, fill: -2, compressDepth: 0, packedThreshold: 1 << 30, checksum: true, aux: { redisVersion: '7.0.15', ctimeSeconds: 1767225600, usedMemoryBytes: 1_000_000, aofBase: false } },
  );
}

/** What the emulated server saves after a few commands. */
function emulatorServerFile(): Uint8Array {
  const server = createServer({ clock: new ManualClock(1_767_225_600_000 * 1000), config: { save: '' } });
  const c = server.connect();
  for (const cmd of [
    ['SET', 'a', '1'],
    ['RPUSH', 'l', ...Array.from({ length: 300 }, (_, i) => `item${i}`)],
    ['HSET', 'h', 'x'.repeat(100), 'y'],
    ['SADD', 's', 'a', 'b', 'c'],
    ['ZADD', 'z', '1', 'one', '2', 'two'],
    ['SET', 'e', 'v', 'PX', '100000000'],
    ['SELECT', '9'],
    ['SET', 'nine', '9'],
  ]) {
    server.execute(c, cmd);
  }
  return saveRdb(server);
}

let real: RealRedis | null = null;
const realFiles: Record<string, Uint8Array> = {};

describeReal('redis-check-rdb matches the real tool', () => {
  beforeAll(async () => {
    real = await startRealRedis();
    const c = await RawConnection.open(real.port);
    const run = (...argv: string[]) => c.command(argv);
    const save = async (name: string) => {
      await run('SAVE');
      realFiles[name] = new Uint8Array(readFileSync(join(real!.dir, 'dump.rdb')));
    };
    await save('empty');
    await run('SET', 'a', '1');
    await save('one');
    await run('FUNCTION', 'LOAD', "#!lua name=mylib\nredis.register_function('f', function() return 1 end)");
    await run('SET', 'big', 'a'.repeat(100));
    await run('SET', 'neg', '-5');
    await run('SET', 'bin', 'x\x00y\xff');
    await run('HSET', 'hsmall', 'a', '1', 'b', '2');
    await run('ZADD', 'zsmall', '1.5', 'a', '-2', 'b');
    await run('SADD', 'sints', '5', '10', '100000', '3000000000');
    await run('SADD', 'sstr', 'x', 'y');
    await run('RPUSH', 'lsmall', 'a', 'b', '1');
    for (let i = 0; i < 300; i++) {
      await run('HSET', 'hbig', `f${i}`, `v${i}`);
      await run('ZADD', 'zbig', String(i), `m${i}`);
      await run('SADD', 'sbig', `m${i}`);
      await run('RPUSH', 'lbig', `item${i}`);
    }
    await run('SET', 'exp', 'v', 'EX', '100000');
    await run('XADD', 'st', '1-1', 'f', 'v');
    await run('XADD', 'st', '2-1', 'f', 'v', 'g', 'w');
    await run('XGROUP', 'CREATE', 'st', 'g1', '0');
    await run('XREADGROUP', 'GROUP', 'g1', 'alice', 'COUNT', '1', 'STREAMS', 'st', '>');
    await run('XGROUP', 'CREATECONSUMER', 'st', 'g1', 'bob');
    await run('SELECT', '7');
    await run('SET', 'seven', '7');
    await save('rich');
    await run('CONFIG', 'SET', 'rdbchecksum', 'no');
    await run('CONFIG', 'SET', 'rdbcompression', 'no');
    await save('plain');
    c.close();
  }, 60_000);

  afterAll(async () => {
    await real?.stop();
  });

  it('a good file: aux fields, databases, checksum, counts', () => {
    const out = same({ 'dump.rdb': realFiles.rich! }, ['dump.rdb']);
    expect(out).toContain('[offset 0] Checking RDB file dump.rdb\n[offset 27] AUX FIELD redis-ver = \'7.0.15\'\n');
    expect(out).toContain('\\o/ RDB looks OK! \\o/');
    for (const name of ['empty', 'one', 'plain']) same({ 'dump.rdb': realFiles[name]! }, ['dump.rdb']);
  });

  it('files the emulator writes', () => {
    same({ 'dump.rdb': emulatorFile() }, ['dump.rdb']);
    same({ 'dump.rdb': emulatorServerFile() }, ['dump.rdb']);
  });

  it('usage, version, missing file, directory, empty file, paths', () => {
    same({}, []);
    same({}, ['a', 'b']);
    same({}, ['-v']);
    same({}, ['--version']);
    same({}, ['missing.rdb']);
    same({ dir: null }, ['dir']);
    same({ 'empty.rdb': '' }, ['empty.rdb']);
    same({ 'sub/dump.rdb': realFiles.one! }, ['sub/dump.rdb']);
    same({ 'sub/dump.rdb': realFiles.one! }, ['./sub/../sub/dump.rdb']);
  });

  it('hand-made damage, one kind per file', () => {
    for (const [name, content] of Object.entries(HANDMADE)) {
      const out = same({ [`${name}.rdb`]: content }, [`${name}.rdb`]);
      expect(out.length, name).toBeGreaterThan(0);
    }
  });

  it('truncated at every offset of a small file and at sampled offsets of a large one', () => {
    const one = realFiles.one!;
    for (let n = 0; n < one.length; n++) same({ 't.rdb': one.subarray(0, n) }, ['t.rdb']);
    const rich = realFiles.rich!;
    const pick = seeded(11);
    for (let i = 0; i < 120; i++) {
      const n = pick(rich.length);
      same({ 't.rdb': rich.subarray(0, n) }, ['t.rdb']);
    }
  }, 120_000);

  it('bit flips across the header, every kind of value and the checksum', () => {
    const pick = seeded(7);
    for (const [name, file] of [['rich', realFiles.rich!], ['emulator', emulatorFile()]] as const) {
      for (let i = 0; i < 150; i++) {
        const at = pick(file.length);
        const mask = [0x01, 0x02, 0x10, 0x40, 0x80, 0xff][pick(6)]!;
        const copy = file.slice();
        copy[at] ^= mask;
        const out = same({ 'f.rdb': copy }, ['f.rdb']);
        expect(out, `${name} byte ${at} ^ ${mask}`).toContain('Checking RDB file');
      }
    }
  }, 120_000);

  it('truncations and flips of stream values', () => {
    const file = bytes(HANDMADE.streamWithGroup!);
    for (let n = 11; n < file.length; n++) same({ 's.rdb': file.subarray(0, n) }, ['s.rdb']);
    for (let at = 11; at < file.length - 9; at++) {
      const copy = file.slice();
      copy[at] ^= 0x01;
      same({ 's.rdb': copy }, ['s.rdb']);
    }
  }, 120_000);
});

describe('redis-check-rdb on the simulated disk', () => {
  it('reads relative to the working directory and counts expired keys against the given clock', () => {
    const disk = new Disk(new Kernel({ seed: 1 }), 'h', DISK_PROFILES.ssd);
    disk.mkdir('/var/lib/redis', { recursive: true });
    disk.writeFile('/var/lib/redis/dump.rdb', emulatorFile());
    let out = '';
    const code = runRedisCheckRdb(disk, '/var/lib/redis', ['redis-check-rdb', 'dump.rdb'], (t) => (out += t), { nowMs: 1_767_225_600_000 });
    expect(code).toBe(0);
    expect(out).toContain('[offset 0] Checking RDB file dump.rdb\n');
    expect(out).toContain('[info] 2 expires\n[info] 1 already expired\n');
  });

  it('prints the loader\'s termination as a server log line with the pid and time given', () => {
    const disk = new Disk(new Kernel({ seed: 1 }), 'h', DISK_PROFILES.ssd);
    disk.writeFile('/bad.rdb', bytes(HANDMADE.dupSet!));
    let out = '';
    const code = runRedisCheckRdb(disk, '/', ['redis-check-rdb', '/bad.rdb'], (t) => (out += t), { pid: 77, nowMs: 1_767_225_600_123 });
    expect(code).toBe(1);
    expect(out).toContain('rdb.c:1829 -> Duplicate set members detected\n');
    expect(out.endsWith('77:C 01 Jan 2026 00:00:00.123 # Terminating server after rdb file reading failure.\n')).toBe(true);
  });
});
