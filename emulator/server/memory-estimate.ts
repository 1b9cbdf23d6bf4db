import type { Database } from '../keyspace/database.js';
import { encodingOf, type Value } from '../keyspace/values.js';
import { formatDouble } from '../numbers/double.js';
import { bytesToArray } from '../resp/bytes.js';
import { quicklistLayout, compressedForm } from '../keyspace/encoding/quicklist.js';
import { encodeListpack, listpackEntrySize } from '../keyspace/encoding/listpack.js';
import { debugSettings } from './debug-settings.js';
import type { RedisServer } from './server.js';

/**
 * What a key and its value cost in memory, computed the way MEMORY USAGE
 * does (src/object.c objectComputeSize): the structures Redis would
 * allocate for the value in its current encoding, each rounded up to
 * jemalloc's size class, with collections sampled and the sample's
 * average scaled to the whole.
 *
 * The emulator holds values in its own structures, so these are the sizes
 * Redis's layout would have: the robj, sds headers, dict tables and
 * entries, listpack bytes, quicklist nodes and skip-list nodes.
 */

/** sizeof(robj). */
const ROBJ = 16;
/** sizeof(stream): its rax pointer, length, IDs and groups pointer. */
const STREAM = 80;
/** sizeof(dictEntry). */
export const DICT_ENTRY = 24;
/** sizeof(dict). */
const DICT = 56;
/** sizeof(quicklist). */
const QUICKLIST = 40;
/** sizeof(quicklistNode). */
const QUICKLIST_NODE = 40;
/** sizeof(quicklistLZF) without its data: the compressed length. */
const QUICKLIST_LZF = 8;
/** sizeof(zset) and sizeof(zskiplist). */
const ZSET = 16;
const ZSKIPLIST = 32;
/** A skip-list node without its levels, and one level (forward pointer and span). */
const ZSKIPLIST_NODE = 24;
const ZSKIPLIST_LEVEL = 16;
/** The header node has every level (ZSKIPLIST_MAXLEVEL). */
const ZSKIPLIST_MAX_LEVEL = 32;
/** The size of an embstr's sds header (sdshdr8). */
const EMBSTR_SDS_HEADER = 3;
/** The listpack of an empty collection. */
const EMPTY_LISTPACK = 7;
/** A dict starts with this many buckets. */
const DICT_INITIAL_SIZE = 4;
/** MEMORY USAGE's default sample size (OBJ_COMPUTE_SIZE_DEF_SAMPLES). */
export const DEFAULT_SAMPLES = 5;

/** jemalloc's size class for a request of n bytes. */
export function allocSize(n: number): number {
  if (n <= 8) return 8;
  if (n <= 128) return Math.ceil(n / 16) * 16;
  const spacing = 2 ** (Math.ceil(Math.log2(n)) - 3);
  return Math.ceil(n / spacing) * spacing;
}

/** The allocation of an sds string of len bytes (header, bytes, NUL). */
export function sdsAllocSize(len: number): number {
  const header = len < 32 ? 1 : len < 256 ? 3 : len < 65536 ? 5 : len < 2 ** 32 ? 9 : 17;
  return allocSize(header + len + 1);
}

/**
 * The buckets of a dict holding n entries that grew one insertion at a
 * time: a power of two at least n, never below 4. A dict in the middle of
 * rehashing holds both tables; that passing state is not modelled.
 */
export function dictSlots(n: number): number {
  let size = DICT_INITIAL_SIZE;
  while (size < n) size *= 2;
  return size;
}

/** The allocation of a string value's bytes as an sds made for exactly that length. */
function sdsSize(len: number): number {
  return sdsAllocSize(len);
}

function listpackAlloc(bytes: number): number {
  return allocSize(bytes);
}

/** The text a listpack stores for a score: an integer when it is one within +-2^62. */
function scoreText(score: number): string {
  if (Number.isInteger(score) && Math.abs(score) <= 4611686018427387904) return Number.isSafeInteger(score) ? String(score) : BigInt(score).toString();
  return formatDouble(score);
}

/** Adds the average of the sampled element sizes, scaled to `count`, as objectComputeSize does in floating point. */
function scaled(base: number, sampledBytes: number, samples: number, count: number): number {
  return samples === 0 ? base : Math.floor(base + (sampledBytes / samples) * count);
}

/** objectComputeSize: the value's bytes with collections sampled `samples` elements (or nodes) deep. */
export function valueMemoryUsage(server: RedisServer, v: Value, samples: number): number {
  if (typeof v === 'string' || v.type === 'string') {
    const encoding = encodingOf(v);
    const len = v.length;
    if (encoding === 'int') return ROBJ;
    if (encoding === 'embstr') return allocSize(ROBJ + EMBSTR_SDS_HEADER + len + 1);
    return ROBJ + sdsSize(len);
  }
  switch (v.type) {
    case 'list': {
      const cfg = server.config;
      const opts = {
        fill: cfg.getNumber('list-max-listpack-size'),
        compressDepth: cfg.getNumber('list-compress-depth'),
        packedThreshold: debugSettings(server).quicklistPackedThreshold,
      };
      const spans = quicklistLayout(v.items, opts);
      const compressFrom = opts.compressDepth > 0 && spans.length >= opts.compressDepth * 2 ? opts.compressDepth : spans.length;
      const compressTo = spans.length - opts.compressDepth;
      let bytes = 0;
      let n = 0;
      for (; n < spans.length && n < samples; n++) {
        const span = spans[n]!;
        let alloc = allocSize(span.bytes);
        if (n >= compressFrom && n < compressTo) {
          const items = v.items.slice(span.start, span.start + span.count);
          const packed = compressedForm(span.plain ? bytesToArray(items[0]!) : encodeListpack(items));
          if (packed !== null) alloc = allocSize(QUICKLIST_LZF + packed.length);
        }
        bytes += QUICKLIST_NODE + alloc;
      }
      return scaled(ROBJ + QUICKLIST, bytes, n, spans.length);
    }
    case 'set': {
      const count = v.set.size;
      if (v.encoding === 'intset') {
        let width = 2;
        for (const m of v.set) {
          const x = Number(m);
          if (x < -2147483648 || x > 2147483647) width = 8;
          else if ((x < -32768 || x > 32767) && width < 4) width = 4;
        }
        return ROBJ + allocSize(8 + width * count);
      }
      let bytes = 0;
      let n = 0;
      for (const m of v.set) {
        if (n >= samples) break;
        bytes += DICT_ENTRY + sdsSize(m.length);
        n++;
      }
      return scaled(ROBJ + DICT + 8 * dictSlots(count), bytes, n, count);
    }
    case 'zset': {
      const count = v.dict.size;
      if (v.encoding === 'listpack') {
        let bytes = EMPTY_LISTPACK;
        for (const node of v.list) bytes += listpackEntrySize(node.member) + listpackEntrySize(scoreText(node.score));
        return ROBJ + listpackAlloc(bytes);
      }
      const header = allocSize(ZSKIPLIST_NODE + ZSKIPLIST_LEVEL * ZSKIPLIST_MAX_LEVEL);
      let bytes = 0;
      let n = 0;
      for (const node of v.list) {
        if (n >= samples) break;
        bytes += sdsSize(node.member.length) + DICT_ENTRY + allocSize(ZSKIPLIST_NODE + ZSKIPLIST_LEVEL * node.next.length);
        n++;
      }
      return scaled(ROBJ + ZSET + ZSKIPLIST + DICT + 8 * dictSlots(count) + header, bytes, n, count);
    }
    case 'hash': {
      const count = v.map.size;
      if (v.encoding === 'listpack') {
        let bytes = EMPTY_LISTPACK;
        for (const [f, val] of v.map) bytes += listpackEntrySize(f) + listpackEntrySize(val);
        return ROBJ + listpackAlloc(bytes);
      }
      let bytes = 0;
      let n = 0;
      for (const [f, val] of v.map) {
        if (n >= samples) break;
        bytes += sdsSize(f.length) + sdsSize(val.length) + DICT_ENTRY;
        n++;
      }
      return scaled(ROBJ + DICT + 8 * dictSlots(count), bytes, n, count);
    }
    case 'stream':
      // Mostly its listpacks; the radix tree and groups are not modelled.
      return ROBJ + STREAM + allocSize(v.listpackBytes);
  }
}

/** MEMORY USAGE: the value, the key's sds and its dict entry. */
export function keyMemoryUsage(server: RedisServer, key: string, v: Value, samples = DEFAULT_SAMPLES): number {
  return valueMemoryUsage(server, v, samples) + sdsSize(key.length) + DICT_ENTRY;
}

/** The per-database overhead MEMORY STATS reports: the main and expires tables. */
export function databaseOverhead(db: Database): { main: number; expires: number } {
  const keys = db.dict.size;
  const expires = db.expires.size;
  return {
    main: keys * DICT_ENTRY + dictSlots(keys) * 8 + keys * ROBJ,
    // An expires table that never held a key has no buckets yet.
    expires: expires === 0 ? 0 : expires * DICT_ENTRY + dictSlots(expires) * 8,
  };
}

/** The bytes of every key and value in a database, each value sampled as MEMORY USAGE does by default. */
export function databaseMemoryUsage(server: RedisServer, db: Database): number {
  let total = 0;
  for (const [key, v] of db.dict) total += keyMemoryUsage(server, key, v);
  return total;
}
