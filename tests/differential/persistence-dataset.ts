/**
 * A dataset with every type in every encoding redis-server 7.0 has, spread
 * over several databases and with expiries, written by commands so that the
 * real server and the emulator can both be filled with it; and a picture of
 * a server's keys read back in a canonical order, to tell whether a file
 * saved by one server and loaded by the other kept every key.
 */
import { ErrorReply, StatusReply, type Reply } from '../../emulator/resp/reply.js';
import type { RawConnection } from '../support/real-redis.js';

/** The databases the dataset uses. */
export const DATASET_DBS = [0, 3, 15];

const range = <T,>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** Bytes that LZF cannot shorten: a fixed linear congruential sequence. */
export function noise(length: number, seed: number): string {
  let x = seed >>> 0;
  let s = '';
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    s += String.fromCharCode(x >>> 24);
  }
  return s;
}

/** 2100-01-01T00:00:00Z, far enough that no run outlives it. */
const FAR_FUTURE_S = '4102444800';

/**
 * The first fill. Every collection is made big or small enough to land in
 * the encoding its name says, and each keeps that encoding across a save
 * and a load (sizes stay on the same side of every threshold).
 */
export function baseDataset(): string[][] {
  return [
    // Middle nodes of long lists are LZF-compressed in memory and in the file.
    ['CONFIG', 'SET', 'list-compress-depth', '1'],
    ['SELECT', '0'],
    ['SET', 'str:int', '12345'],
    ['SET', 'str:neg', '-7'],
    ['SET', 'str:int64', '9223372036854775807'],
    ['SET', 'str:int64-min', '-9223372036854775808'],
    ['SET', 'str:leading-zero', '0123'],
    ['SET', 'str:embstr', 'hello'],
    ['SET', 'str:embstr44', 'e'.repeat(44)],
    ['SET', 'str:raw45', noise(45, 1)],
    ['SET', 'str:lzf21', 'abcabcabcabcabcabcabcab'],
    ['SET', 'str:lzf', 'a'.repeat(100)],
    ['SET', 'str:incompressible', noise(300, 2)],
    ['SET', 'str:big-lzf', 'The quick brown fox. '.repeat(10_000)],
    ['SET', 'str:big-noise', noise(100_000, 3)],
    ['SET', 'str:binary', '\x00\xff\x01binary\r\n\x00'],
    ['SET', 'str:empty', ''],
    ['SET', 'k'.repeat(60), 'a long key, compressed in the file too'],
    ['SET', '\x00\xffbinary key', 'v'],
    ['SET', 'ttl:short', 'v', 'EX', '100'],
    ['SET', 'ttl:far', 'v', 'EXAT', FAR_FUTURE_S],
    ['SET', 'ttl:ms', 'v', 'PX', '123456789'],
    ['SET', 'ttl:int', '42', 'EX', '1000'],
    ['RPUSH', 'list:small', 'a', 'b', '1', '-5', '5000', '70000', '-9000000', '3000000000', '9223372036854775807', 'x'.repeat(70), ''],
    ['RPUSH', 'list:many', ...range(3000, (i) => `element-${i}`)],
    ['RPUSH', 'list:ints', ...range(2000, (i) => String(i * 37 - 1000))],
    ['RPUSH', 'list:compressible', ...range(3000, (i) => `compressible-${i % 10}-value`)],
    // Items over the 8 KB node size stand alone in nodes of their own.
    ['RPUSH', 'list:large-items', 'head', 'y'.repeat(10_000), 'mid', noise(70_000, 4), 'z'.repeat(300_000), 'tail'],
    ['EXPIRE', 'list:many', '5000'],
    ['SADD', 'set:intset', '1', '2', '3', '-100', '100000', '5000000000', '-9223372036854775808'],
    ['SADD', 'set:intset-big', ...range(500, (i) => String(i * 1000))],
    ['SADD', 'set:hashtable', 'a', 'b', 'c', 'member with spaces', ''],
    ['SADD', 'set:hashtable-ints', ...range(600, String)],
    ['HSET', 'hash:listpack', 'f1', 'v1', 'f2', '22', 'num', '-123456', 'empty', ''],
    ['HSET', 'hash:hashtable', ...range(600, (i) => [`f${i}`, `v${i}`]).flat()],
    ['HSET', 'hash:long-value', 'long', 'z'.repeat(100), 'short', 's'],
    ['PEXPIREAT', 'hash:listpack', '4102444800123'],
    ['ZADD', 'zset:listpack', '1', 'a', '2.5', 'b', '-3', 'c', 'inf', 'd', '-inf', 'e', '1e300', 'f', '4611686018427387904', 'g', '0.1', 'h', '-0', 'i'],
    ['ZADD', 'zset:skiplist', ...range(200, (i) => [String(i / 3), `m${i}`]).flat()],
    ['ZADD', 'zset:long-member', '1', 'q'.repeat(80), '2', 'short'],
    ['SELECT', '3'],
    ['SET', 'db3:string', 'in database 3'],
    ['RPUSH', 'db3:list', 'x', 'y'],
    ['SADD', 'db3:set', '7', '8'],
    ['HSET', 'db3:hash', 'a', '1'],
    ['ZADD', 'db3:zset', '1', 'one'],
    ['SET', 'db3:ttl', 'v', 'PX', '50000000'],
    // The same name as a key of database 0, with another type.
    ['HSET', 'str:int', 'not', 'a string here'],
    ['SELECT', '15'],
    ['SET', 'db15:string', 'last database'],
    ['HSET', 'db15:hash', ...range(40, (i) => [`field:${i}`, String(i)]).flat()],
    ['EXPIREAT', 'db15:hash', FAR_FUTURE_S],
    ['SELECT', '0'],
  ];
}

/**
 * Changes made before a BGSAVE: conversions between encodings, deletions,
 * new keys, and files without LZF strings and with plain list nodes.
 */
export function changesBeforeBgsave(): string[][] {
  return [
    ['CONFIG', 'SET', 'rdbcompression', 'no'],
    // Items over 2 KB become plain quicklist nodes.
    ['DEBUG', 'QUICKLIST-PACKED-THRESHOLD', '2048'],
    ['SELECT', '0'],
    ['RPUSH', 'list:plain', 'a', 'p'.repeat(5000), 'b', noise(3000, 5), 'c'],
    ['INCRBY', 'str:int', '1000'],
    ['DEL', 'str:lzf21', 'set:hashtable'],
    ['SADD', 'set:intset', 'not-an-integer'],
    ['HSET', 'hash:listpack', 'long', 'L'.repeat(65)],
    ['ZADD', 'zset:listpack', ...range(130, (i) => [String(i), `extra${i}`]).flat()],
    ['SET', 'bg:new', 'written after the first save', 'EX', '20000'],
    ['PERSIST', 'ttl:ms'],
    ['SELECT', '15'],
    ['RPUSH', 'db15:list', ...range(500, (i) => `item ${i}`)],
    ['SELECT', '0'],
  ];
}

/** Runs commands on a connection; an error reply means the dataset itself is wrong. */
export async function fill(c: RawConnection, commands: string[][]): Promise<void> {
  for (const cmd of commands) {
    const r = await c.command(cmd);
    if (r instanceof ErrorReply) throw new Error(`${cmd.join(' ').slice(0, 80)}: ${r.message}`);
  }
}

export interface KeyPicture {
  type: string;
  encoding: string;
  value: unknown;
  /** PEXPIRETIME: the absolute expiry a file keeps, to the millisecond. */
  expireAtMs: number;
  /** PTTL when read, and the local time it was read at. */
  ttlMs: number;
  readAtMs: number;
}

/** Keys by database, then by name. */
export type Picture = Map<number, Map<string, KeyPicture>>;

function text(r: Reply): string {
  if (r instanceof StatusReply) return r.text;
  if (typeof r === 'string') return r;
  throw new Error(`unexpected reply ${JSON.stringify(r)}`);
}

async function valueOf(c: RawConnection, type: string, key: string): Promise<unknown> {
  switch (type) {
    case 'string':
      return c.command(['GET', key]);
    case 'list':
      return c.command(['LRANGE', key, '0', '-1']);
    case 'set':
      return ((await c.command(['SMEMBERS', key])) as string[]).sort();
    case 'zset':
      return c.command(['ZRANGE', key, '0', '-1', 'WITHSCORES']);
    case 'hash': {
      const flat = (await c.command(['HGETALL', key])) as string[];
      const pairs = range(flat.length / 2, (i) => [flat[2 * i]!, flat[2 * i + 1]!]);
      return pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    }
    default:
      throw new Error(`the dataset has no ${type} keys`);
  }
}

/** Every key of the given databases, with its type, encoding, value and expiry. */
export async function picture(c: RawConnection, dbs: readonly number[] = DATASET_DBS): Promise<Picture> {
  const out: Picture = new Map();
  for (const db of dbs) {
    await c.command(['SELECT', String(db)]);
    const keys = ((await c.command(['KEYS', '*'])) as string[]).sort();
    const m = new Map<string, KeyPicture>();
    for (const key of keys) {
      const type = text(await c.command(['TYPE', key]));
      const encoding = text(await c.command(['OBJECT', 'ENCODING', key]));
      const value = await valueOf(c, type, key);
      const expireAtMs = Number(await c.command(['PEXPIRETIME', key]));
      const ttlMs = Number(await c.command(['PTTL', key]));
      m.set(key, { type, encoding, value, expireAtMs, ttlMs, readAtMs: Date.now() });
    }
    out.set(db, m);
  }
  await c.command(['SELECT', '0']);
  return out;
}

/** A key or value shortened for a message. */
function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 120)}... (${s.length} chars)` : s;
}

/**
 * What differs between two pictures, as readable lines (none when they
 * agree). Expiry times must be equal; the time left may differ by the time
 * between the two readings plus `toleranceMs`.
 */
export function differences(expected: Picture, actual: Picture, toleranceMs = 1000): string[] {
  const out: string[] = [];
  for (const [db, want] of expected) {
    const got = actual.get(db) ?? new Map<string, KeyPicture>();
    for (const key of got.keys()) if (!want.has(key)) out.push(`db ${db}: unexpected key ${show(key)}`);
    for (const [key, w] of want) {
      const g = got.get(key);
      const where = `db ${db} key ${show(key)}`;
      if (g === undefined) {
        out.push(`${where}: missing`);
        continue;
      }
      if (g.type !== w.type) out.push(`${where}: type ${g.type}, expected ${w.type}`);
      if (g.encoding !== w.encoding) out.push(`${where}: encoding ${g.encoding}, expected ${w.encoding}`);
      if (JSON.stringify(g.value) !== JSON.stringify(w.value)) out.push(`${where}: value ${show(g.value)}, expected ${show(w.value)}`);
      if (g.expireAtMs !== w.expireAtMs) out.push(`${where}: PEXPIRETIME ${g.expireAtMs}, expected ${w.expireAtMs}`);
      if ((g.ttlMs < 0 || w.ttlMs < 0) && g.ttlMs !== w.ttlMs) {
        out.push(`${where}: PTTL ${g.ttlMs}, expected ${w.ttlMs}`);
      } else if (g.ttlMs >= 0) {
        const drift = Math.abs(g.ttlMs + g.readAtMs - (w.ttlMs + w.readAtMs));
        if (drift > toleranceMs) out.push(`${where}: PTTL ${g.ttlMs}, expected about ${w.ttlMs - (g.readAtMs - w.readAtMs)}`);
      }
    }
  }
  return out;
}

/** How many keys a picture holds. */
export function keyCount(p: Picture): number {
  let n = 0;
  for (const m of p.values()) n += m.size;
  return n;
}
