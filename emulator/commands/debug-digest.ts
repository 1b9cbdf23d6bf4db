import { bytesFromArray } from '../resp/bytes.js';
import type { Database } from '../keyspace/database.js';
import { stringOf, type Value } from '../keyspace/values.js';
import { formatDouble } from '../numbers/double.js';

/**
 * DEBUG DIGEST and DEBUG DIGEST-VALUE (src/debug.c): a SHA1-based signature
 * of the dataset that ignores the order of unordered things (keys, set
 * members, hash fields) and respects the order of lists. Two servers with
 * the same data give the same digest.
 */

/** SHA-1 of a byte string (FIPS 180-4). */
export function sha1(bytes: string | Uint8Array): Uint8Array {
  const n = bytes.length;
  const at = typeof bytes === 'string' ? (i: number) => bytes.charCodeAt(i) & 0xff : (i: number) => bytes[i]!;
  const total = (((n + 8) >> 6) + 1) << 6;
  const msg = new Uint8Array(total);
  for (let i = 0; i < n; i++) msg[i] = at(i);
  msg[n] = 0x80;
  const bits = n * 8;
  msg[total - 4] = (bits >>> 24) & 0xff;
  msg[total - 3] = (bits >>> 16) & 0xff;
  msg[total - 2] = (bits >>> 8) & 0xff;
  msg[total - 1] = bits & 0xff;
  msg[total - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Int32Array(80);
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      w[i] = (msg[j]! << 24) | (msg[j + 1]! << 16) | (msg[j + 2]! << 8) | msg[j + 3]!;
    }
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!;
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      let f: number;
      let k: number;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const out = new Uint8Array(20);
  [h0, h1, h2, h3, h4].forEach((h, i) => {
    out[i * 4] = (h >>> 24) & 0xff;
    out[i * 4 + 1] = (h >>> 16) & 0xff;
    out[i * 4 + 2] = (h >>> 8) & 0xff;
    out[i * 4 + 3] = h & 0xff;
  });
  return out;
}

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
