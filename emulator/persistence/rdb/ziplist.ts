import { parseInt64 } from '../../numbers/int64.js';
import { bytesFromArray } from '../../resp/bytes.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';

/**
 * Ziplists (src/ziplist.c), which Redis before 7.0 used where listpacks are
 * used now. 7.0 only reads them, from old RDB files; the writer here makes
 * such files for tests.
 *
 * Layout: 4-byte total length, 4-byte offset of the last entry, 2-byte
 * count (65535 means "count them"), the entries, 0xFF; little-endian. An
 * entry is the previous entry's length (1 byte, or 0xFE and 4 bytes), an
 * encoding, and data. Encodings: 00pppppp, 01pppppp qqqqqqqq (big-endian)
 * and 0x80 + 4 bytes (big-endian) for strings; 0xC0 int16, 0xD0 int32,
 * 0xE0 int64, 0xF0 int24, 0xFE int8, 0xF1..0xFD the values 0..12.
 */

const HEADER_SIZE = 10;
const END = 0xff;
const BIG_PREVLEN = 0xfe;

/** The encoding and data of one entry (zipTryEncoding's choice). */
function encodeEntry(w: ByteWriter, s: string): void {
  const v = s.length > 0 && s.length < 32 ? parseInt64(s) : null;
  if (v === null) {
    const len = s.length;
    if (len <= 0x3f) {
      w.byte(len);
    } else if (len <= 0x3fff) {
      w.byte(0x40 | (len >>> 8));
      w.byte(len & 0xff);
    } else {
      w.byte(0x80);
      w.u32be(len);
    }
    w.str(s);
  } else if (v >= 0 && v <= 12) {
    w.byte(0xf1 + Number(v));
  } else if (v >= -128 && v <= 127) {
    w.byte(0xfe);
    w.byte(Number(v) & 0xff);
  } else if (v >= -32768 && v <= 32767) {
    w.byte(0xc0);
    w.u16le(Number(v) & 0xffff);
  } else if (v >= -8388608 && v <= 8388607) {
    const u = Number(v) & 0xffffff;
    w.byte(0xf0);
    w.byte(u & 0xff);
    w.byte((u >>> 8) & 0xff);
    w.byte(u >>> 16);
  } else if (v >= -2147483648 && v <= 2147483647) {
    w.byte(0xd0);
    w.u32le(Number(v) >>> 0);
  } else {
    w.byte(0xe0);
    w.i64le(v);
  }
}

/** A ziplist holding these entries, in order. */
export function encodeZiplist(entries: Iterable<string>): Uint8Array {
  const w = new ByteWriter(64);
  w.length = HEADER_SIZE;
  let prevLen = 0;
  let tail = HEADER_SIZE;
  let count = 0;
  const body = new ByteWriter(32);
  for (const e of entries) {
    tail = w.length;
    if (prevLen < BIG_PREVLEN) {
      w.byte(prevLen);
    } else {
      w.byte(BIG_PREVLEN);
      w.u32le(prevLen);
    }
    body.length = 0;
    encodeEntry(body, e);
    w.bytes(body.view());
    prevLen = w.length - tail;
    count++;
  }
  w.byte(END);
  const out = w.finish();
  const view = new DataView(out.buffer);
  view.setUint32(0, out.length, true);
  view.setUint32(4, tail, true);
  view.setUint16(8, Math.min(count, 0xffff), true);
  return out;
}

/**
 * The entries of a ziplist as byte strings, or null when it is malformed
 * (ziplistValidateIntegrity with deep checks): header sizes, entry bounds,
 * previous-length fields, the tail offset and the count must all agree.
 */
export function decodeZiplist(zl: Uint8Array): string[] | null {
  const size = zl.length;
  if (size < HEADER_SIZE + 1) return null;
  const view = new DataView(zl.buffer, zl.byteOffset, zl.byteLength);
  if (view.getUint32(0, true) !== size || zl[size - 1] !== END) return null;
  const tail = view.getUint32(4, true);
  const declared = view.getUint16(8, true);
  const out: string[] = [];
  let p = HEADER_SIZE;
  let prevLen = 0;
  let lastStart = HEADER_SIZE;
  const last = size - 1;
  while (p < last) {
    const start = p;
    let storedPrev: number;
    if (zl[p] === END) return null;
    if (zl[p]! < BIG_PREVLEN) {
      storedPrev = zl[p]!;
      p += 1;
    } else {
      if (p + 5 > last) return null;
      storedPrev = view.getUint32(p + 1, true);
      p += 5;
    }
    if (storedPrev !== prevLen || p >= last) return null;
    const b = zl[p]!;
    let value: string;
    if (b < 0xc0) {
      let len: number;
      if (b >> 6 === 0) {
        len = b & 0x3f;
        p += 1;
      } else if (b >> 6 === 1) {
        if (p + 2 > last) return null;
        len = ((b & 0x3f) << 8) | zl[p + 1]!;
        p += 2;
      } else {
        // Any 10xxxxxx is the 32-bit form; the low bits are unused.
        if (p + 5 > last) return null;
        len = view.getUint32(p + 1, false);
        p += 5;
      }
      if (p + len > last) return null;
      value = bytesFromArray(zl, p, p + len);
      p += len;
    } else {
      const dataLen = b === 0xc0 ? 2 : b === 0xd0 ? 4 : b === 0xe0 ? 8 : b === 0xf0 ? 3 : b === 0xfe ? 1 : b >= 0xf1 && b <= 0xfd ? 0 : -1;
      if (dataLen < 0 || p + 1 + dataLen > last) return null;
      const at = p + 1;
      if (b === 0xc0) value = String(view.getInt16(at, true));
      else if (b === 0xd0) value = String(view.getInt32(at, true));
      else if (b === 0xe0) value = view.getBigInt64(at, true).toString();
      else if (b === 0xf0) value = String(((zl[at]! | (zl[at + 1]! << 8) | (zl[at + 2]! << 16)) << 8) >> 8);
      else if (b === 0xfe) value = String(view.getInt8(at));
      else value = String((b & 0x0f) - 1);
      p = at + dataLen;
    }
    out.push(value);
    prevLen = p - start;
    lastStart = start;
  }
  if (tail !== lastStart) return null;
  if (declared !== 0xffff && declared !== out.length) return null;
  return out;
}
