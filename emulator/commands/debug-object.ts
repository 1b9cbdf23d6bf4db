import { serializedObjectLength } from '../persistence/rdb/value-writer.js';
import { valueWriteOptions } from '../persistence/rdb-dataset.js';
import type { Database } from '../keyspace/database.js';
import { encodingOf, isIntEncodable, stringOf, type ListValue, type Value } from '../keyspace/values.js';
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

/**
 * rdbSavedObjectLen: the bytes the value takes in an RDB file, written as
 * the RDB writer writes it (LZF-compressed strings and blobs when
 * rdbcompression allows, the list's quicklist nodes).
 */
export function serializedLength(server: RedisServer, v: Value): number {
  if (typeof v !== 'string' && v.type === 'stream') {
    return serializedObjectLength(v, { compression: false, fill: -2, compressDepth: 0, packedThreshold: 1 << 30 });
  }
  return serializedObjectLength(v, valueWriteOptions(server));
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
