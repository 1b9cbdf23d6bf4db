import { serializedObjectLength } from '../persistence/rdb/value-writer.js';
import { lzfCompress } from '../keyspace/encoding/lzf.js';
import { bytesToArray } from '../resp/bytes.js';
import type { Database } from '../keyspace/database.js';
import { encodingOf, isIntEncodable, stringOf, type ListValue, type Value } from '../keyspace/values.js';
import { formatDouble } from '../numbers/double.js';
import type { RedisServer } from '../server/server.js';
import { printfFixed } from '../server/info.js';
import { allocSize, sdsAllocSize } from '../server/memory-estimate.js';
import { listpackEntrySize } from '../keyspace/encoding/listpack.js';

/**
 * The low-level descriptions DEBUG OBJECT and DEBUG SDSLEN give of a value
 * (src/debug.c). The emulator does not lay values out in memory, so the
 * sizes are computed from the layout Redis would use: listpacks, quicklist
 * nodes, intsets and the RDB serialization.
 */

/** Redis's shared integers 0..9999, used when no LRU/LFU policy needs per-key access data. */
const SHARED_INTEGERS = 10000;
const SHARED_REFCOUNT = 2147483647;

/** Whether a string value is one of Redis's shared integer objects. */
export function isSharedInteger(server: RedisServer, v: Value): boolean {
  if (typeof v !== 'string' || !isIntEncodable(v)) return false;
  const n = Number(v);
  if (n < 0 || n >= SHARED_INTEGERS) return false;
  const policy = server.config.get('maxmemory-policy');
  return server.config.getNumber('maxmemory') === 0 || !/lru|lfu/.test(policy);
}

/** Bytes of an RDB length prefix. */
function rdbLenSize(n: number): number {
  return n < 64 ? 1 : n < 16384 ? 2 : n <= 0xffffffff ? 5 : 9;
}

/** Bytes of a string in an RDB file (rdbSaveRawString), LZF-compressed when `compression` (rdbcompression) allows. */
function rdbStringSize(s: string, compression = false): number {
  if (s.length <= 11 && isIntEncodable(s)) {
    const v = Number(s);
    if (v >= -128 && v <= 127) return 2;
    if (v >= -32768 && v <= 32767) return 3;
    if (v >= -2147483648 && v <= 2147483647) return 5;
  }
  // rdbSaveRawString: LZF when rdbcompression allows it and it saves at least 4 bytes.
  if (compression && s.length > 20) {
    const packed = lzfCompress(bytesToArray(s), s.length - 4);
    if (packed !== null) return 1 + rdbLenSize(packed.length) + rdbLenSize(s.length) + packed.length;
  }
  return rdbLenSize(s.length) + s.length;
}

function listpackBytes(entries: Iterable<string>): number {
  let n = 7;
  for (const e of entries) n += listpackEntrySize(e);
  return n;
}

/** How the quicklist of a list splits into nodes, and each node's listpack size. */
export function quicklistNodes(server: RedisServer, list: ListValue): number[] {
  const fill = server.config.getNumber('list-max-listpack-size');
  const maxBytes = fill < 0 ? 4096 * 2 ** (Math.min(5, -fill) - 1) : 8192;
  const maxCount = fill > 0 ? fill : Infinity;
  const nodes: number[] = [];
  let bytes = 0;
  let count = 0;
  for (const item of list.items) {
    const size = listpackEntrySize(item);
    if (count !== 0 && (count + 1 > maxCount || bytes + size > maxBytes)) {
      nodes.push(bytes);
      bytes = 7;
      count = 0;
    }
    if (count === 0) bytes = 7;
    bytes += size;
    count++;
  }
  if (count !== 0) nodes.push(bytes);
  return nodes;
}

function intsetBytes(members: Iterable<string>, n: number): number {
  let width = 2;
  for (const m of members) {
    const v = Number(m);
    if (v < -2147483648 || v > 2147483647) width = 8;
    else if ((v < -32768 || v > 32767) && width < 4) width = 4;
  }
  return 8 + width * n;
}

/** rdbSavedObjectLen: the bytes the value takes in an RDB file (without compression). */
export function serializedLength(server: RedisServer, v: Value): number {
  if (typeof v === 'string' || v.type === 'string') return rdbStringSize(stringOf(v), server.config.getBool('rdbcompression'));
  switch (v.type) {
    case 'list': {
      const nodes = quicklistNodes(server, v);
      let n = rdbLenSize(nodes.length);
      for (const bytes of nodes) n += 1 + rdbLenSize(bytes) + bytes;
      return n;
    }
    case 'set': {
      if (v.encoding === 'intset') {
        const bytes = intsetBytes(v.set, v.set.size);
        return rdbLenSize(bytes) + bytes;
      }
      let n = rdbLenSize(v.set.size);
      for (const m of v.set) n += rdbStringSize(m);
      return n;
    }
    case 'zset': {
      if (v.encoding === 'listpack') {
        const entries: string[] = [];
        for (const [m, score] of v.dict) entries.push(m, formatDouble(score));
        const bytes = listpackBytes(entries);
        return rdbLenSize(bytes) + bytes;
      }
      let n = rdbLenSize(v.dict.size);
      for (const m of v.dict.keys()) n += rdbStringSize(m) + 8;
      return n;
    }
    case 'hash': {
      if (v.encoding === 'listpack') {
        const entries: string[] = [];
        for (const [f, val] of v.map) entries.push(f, val);
        const bytes = listpackBytes(entries);
        return rdbLenSize(bytes) + bytes;
      }
      let n = rdbLenSize(v.map.size);
      for (const [f, val] of v.map) n += rdbStringSize(f) + rdbStringSize(val);
      return n;
    }
    case 'stream':
      return serializedObjectLength(v, { compression: false, fill: -2, compressDepth: 0, packedThreshold: 1 << 30 });
  }
}

/** A stable, plausible heap address for a key's value. */
function fakeAddress(db: Database, key: string): string {
  let h = 0x811c9dc5 ^ db.id;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  const high = (h >>> 24).toString(16).padStart(2, '0');
  // `>>> 0` after the mask: `&` gives a signed result, which printed as "-31091760".
  const low = ((Math.imul(h, 0x9e3779b1) & 0xfffffff0) >>> 0).toString(16).padStart(8, '0');
  return `0x7f${high}${low}`;
}

/** The 24-bit LRU clock difference in seconds (estimateObjectIdleTime). */
function idleSeconds(now: number, lru: number): number {
  return now >= lru ? now - lru : now + (0xffffff - lru);
}

/** DEBUG OBJECT's status line for a key that exists in the dictionary. */
export function debugObjectText(server: RedisServer, db: Database, key: string, v: Value): string {
  const shared = isSharedInteger(server, v);
  // Shared integers were created at startup and carry that access time.
  const lru = shared ? Math.floor(server.startMs / 1000) & 0xffffff : (db.access.get(key) ?? server.lruClock);
  let extra = '';
  if (typeof v !== 'string' && v.type === 'list') {
    const nodes = quicklistNodes(server, v);
    const count = v.items.length;
    const size = nodes.reduce((a, b) => a + b, 0);
    extra =
      ` ql_nodes:${nodes.length} ql_avg_node:${printfFixed(count / nodes.length, 2)}` +
      ` ql_listpack_max:${server.config.getNumber('list-max-listpack-size')}` +
      ` ql_compressed:${server.config.getNumber('list-compress-depth') !== 0 ? 1 : 0} ql_uncompressed_size:${size}`;
  }
  return (
    `Value at:${fakeAddress(db, key)} refcount:${shared ? SHARED_REFCOUNT : 1} encoding:${encodingOf(v)}` +
    ` serializedlength:${serializedLength(server, v)} lru:${lru} lru_seconds_idle:${idleSeconds(server.lruClock, lru)}${extra}`
  );
}

/** DEBUG SDSLEN's line, or null when the value is not an sds string. */
export function sdsLenText(key: string, v: Value): string | null {
  if (typeof v !== 'string' && v.type !== 'string') return null;
  const s = stringOf(v);
  const encoding = encodingOf(v);
  if (encoding === 'int') return null;
  const valAlloc = encoding === 'embstr' ? allocSize(16 + 3 + s.length + 1) - 16 : sdsAllocSize(s.length);
  return (
    `key_sds_len:${key.length}, key_sds_avail:0, key_zmalloc: ${sdsAllocSize(key.length)}, ` +
    `val_sds_len:${s.length}, val_sds_avail:0, val_zmalloc: ${valAlloc}`
  );
}
