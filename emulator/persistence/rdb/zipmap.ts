import { bytesFromArray } from '../../resp/bytes.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';

/**
 * Zipmaps (src/zipmap.c), the hash encoding of Redis 2.x, read by 7.0 from
 * very old RDB files; the writer makes such files for tests.
 *
 * Layout: a count byte (254 or more means "count them"), then per pair the
 * field's length, the field, the value's length, a byte of free space
 * after the value, the value and that free space; 0xFF ends it. A length
 * is one byte below 254, else 254 and four bytes (little-endian).
 */

const BIGLEN = 254;
const END = 255;

function writeLen(w: ByteWriter, n: number): void {
  if (n < BIGLEN) {
    w.byte(n);
  } else {
    w.byte(BIGLEN);
    w.u32le(n);
  }
}

/** A zipmap of these field-value pairs. */
export function encodeZipmap(pairs: Iterable<[string, string]>): Uint8Array {
  const w = new ByteWriter(64);
  w.byte(0);
  let count = 0;
  for (const [f, v] of pairs) {
    writeLen(w, f.length);
    w.str(f);
    writeLen(w, v.length);
    w.byte(0);
    w.str(v);
    count++;
  }
  w.byte(END);
  const out = w.finish();
  out[0] = Math.min(count, BIGLEN);
  return out;
}

/**
 * The pairs of a zipmap, or null when it is malformed
 * (zipmapValidateIntegrity): entries past the end, no pairs at all, or a
 * count byte that disagrees.
 */
export function decodeZipmap(zm: Uint8Array): Array<[string, string]> | null {
  const size = zm.length;
  if (size < 2 || zm[size - 1] !== END) return null;
  const view = new DataView(zm.buffer, zm.byteOffset, zm.byteLength);
  const out: Array<[string, string]> = [];
  const last = size - 1;
  let p = 1;
  const readLen = (): number => {
    if (p > last) return -1;
    const b = zm[p]!;
    if (b < BIGLEN) {
      p += 1;
      return b;
    }
    if (p + 5 > last) return -1;
    const n = view.getUint32(p + 1, true);
    p += 5;
    return n;
  };
  while (p < last && zm[p] !== END) {
    const flen = readLen();
    if (flen < 0 || p + flen > last) return null;
    const field = bytesFromArray(zm, p, p + flen);
    p += flen;
    const vlen = readLen();
    if (vlen < 0 || p + 1 > last) return null;
    const free = zm[p]!;
    p += 1;
    if (p + vlen + free > last) return null;
    out.push([field, bytesFromArray(zm, p, p + vlen)]);
    p += vlen + free;
  }
  if (p !== last || out.length === 0) return null;
  if (zm[0] !== BIGLEN && zm[0] !== out.length) return null;
  return out;
}
