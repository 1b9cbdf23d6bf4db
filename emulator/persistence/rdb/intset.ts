import { compareInt64, parseInt64, type Int64 } from '../../numbers/int64.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';

/**
 * Intsets (src/intset.c): a 4-byte element width (2, 4 or 8), a 4-byte
 * count, then the integers in ascending order, all little-endian. The
 * width is the smallest that holds every member.
 */

/** The intset of these members, which must all be canonical int64 strings. */
export function encodeIntset(members: Iterable<string>): Uint8Array {
  const values: Int64[] = [];
  let width = 2;
  for (const m of members) {
    const v = parseInt64(m);
    if (v === null) throw new Error(`intset member is not an integer: ${m}`);
    values.push(v);
    if (v < -2147483648 || v > 2147483647) width = 8;
    else if ((v < -32768 || v > 32767) && width < 4) width = 4;
  }
  values.sort(compareInt64);
  const w = new ByteWriter(8 + width * values.length);
  w.u32le(width);
  w.u32le(values.length);
  for (const v of values) {
    if (width === 2) w.u16le(Number(v) & 0xffff);
    else if (width === 4) w.u32le(Number(v) >>> 0);
    else w.i64le(v);
  }
  return w.finish();
}

/**
 * The members of an intset in decimal, or null when it is malformed
 * (intsetValidateIntegrity): an unknown width, a size that does not match
 * the count, no members, or with `deep`, members out of order or repeated.
 */
export function decodeIntset(blob: Uint8Array, deep: boolean): string[] | null {
  if (blob.length < 8) return null;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const width = view.getUint32(0, true);
  if (width !== 2 && width !== 4 && width !== 8) return null;
  const count = view.getUint32(4, true);
  if (8 + count * width !== blob.length || count === 0) return null;
  const out: string[] = new Array(count);
  let prev: bigint | null = null;
  for (let i = 0; i < count; i++) {
    const at = 8 + i * width;
    const v = width === 2 ? BigInt(view.getInt16(at, true)) : width === 4 ? BigInt(view.getInt32(at, true)) : view.getBigInt64(at, true);
    if (deep && prev !== null && v <= prev) return null;
    prev = v;
    out[i] = v.toString();
  }
  return out;
}
