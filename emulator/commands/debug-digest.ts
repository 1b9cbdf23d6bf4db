import { bytesFromArray } from '../resp/bytes.js';
import type { Database } from '../keyspace/database.js';
import { stringOf, type Value } from '../keyspace/values.js';
import { formatDouble } from '../numbers/double.js';
import { sha1 } from '../numbers/sha1.js';

/**
 * DEBUG DIGEST and DEBUG DIGEST-VALUE (src/debug.c): a SHA1-based signature
 * of the dataset that ignores the order of unordered things (keys, set
 * members, hash fields) and respects the order of lists. Two servers with
 * the same data give the same digest.
 */

/** digest ^= SHA1(data): adds an element whose position does not matter. */
function xorDigest(digest: Uint8Array, data: string | Uint8Array): void {
  const h = sha1(data);
  for (let i = 0; i < 20; i++) digest[i]! ^= h[i]!;
}

/** digest = SHA1(digest ^ SHA1(data)): adds an element whose position matters. */
function mixDigest(digest: Uint8Array, data: string | Uint8Array): void {
  xorDigest(digest, data);
  digest.set(sha1(digest));
}

/** A big-endian 32-bit integer as bytes (htonl). */
function be32(n: number): string {
  return String.fromCharCode((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

const TYPE_CODE = { string: 0, list: 1, set: 2, zset: 3, hash: 4, stream: 6 } as const;

/** Mixes one value (and whether it has a TTL) into digest: xorObjectDigest. */
function objectDigest(digest: Uint8Array, v: Value, hasExpire: boolean): void {
  const type = typeof v === 'string' ? 'string' : v.type;
  mixDigest(digest, be32(TYPE_CODE[type]));
  if (typeof v === 'string' || v.type === 'string') {
    mixDigest(digest, stringOf(v));
  } else if (v.type === 'list') {
    for (const item of v.items) mixDigest(digest, item);
  } else if (v.type === 'set') {
    for (const m of v.set) xorDigest(digest, m);
  } else if (v.type === 'zset') {
    for (const [m, score] of v.dict) {
      const ele = new Uint8Array(20);
      mixDigest(ele, m);
      mixDigest(ele, formatDouble(score));
      xorDigest(digest, ele);
    }
  } else if (v.type === 'stream') {
    // A stream is kept as stored, not decoded into entries: its digest
    // covers its stored parts rather than Redis's walk over the entries.
    for (const part of v.parts) mixDigest(digest, typeof part === 'string' ? part : typeof part === 'bigint' ? part.toString() : bytesFromArray(part));
  } else {
    for (const [f, val] of v.map) {
      const ele = new Uint8Array(20);
      mixDigest(ele, f);
      mixDigest(ele, val);
      xorDigest(digest, ele);
    }
  }
  if (hasExpire) xorDigest(digest, '!!expire!!');
}

function hex(d: Uint8Array): string {
  let s = '';
  for (const b of d) s += b.toString(16).padStart(2, '0');
  return s;
}

/** DEBUG DIGEST: every database, every key, expired or not. */
export function datasetDigest(dbs: readonly Database[]): string {
  const final = new Uint8Array(20);
  for (const db of dbs) {
    if (db.dict.size === 0) continue;
    mixDigest(final, be32(db.id));
    for (const [key, v] of db.dict) {
      const d = new Uint8Array(20);
      mixDigest(d, key);
      objectDigest(d, v, db.expires.has(key));
      xorDigest(final, d);
    }
  }
  return hex(final);
}

/** DEBUG DIGEST-VALUE for one key: zeros when the key is missing. */
export function valueDigest(db: Database, key: string): string {
  const d = new Uint8Array(20);
  const v = db.dict.get(key);
  if (v !== undefined) objectDigest(d, v, db.expires.has(key));
  return hex(d);
}
