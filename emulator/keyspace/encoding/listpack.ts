import { parseInt64 } from '../../numbers/int64.js';
import { bytesFromArray } from '../../resp/bytes.js';
import { ByteWriter } from './byte-writer.js';

/**
 * Listpacks (src/listpack.c): a 4-byte total length and a 2-byte element
 * count (little-endian; 65535 means "count them"), the entries, and 0xFF.
 * Each entry is an encoding byte with its data, then a back-length of one to
 * five bytes giving the size of the encoding and data, so the list can be
 * walked backwards.
 *
 * Entries are chosen as lpEncodeGetType does: a string that is the
 * canonical form of an int64 is stored as the smallest integer that holds
 * it, any other string by its length.
 */

const HEADER_SIZE = 6;
const EOF = 0xff;
const COUNT_UNKNOWN = 0xffff;

/** Bytes of the back-length for an entry of n bytes (lpEncodeBacklen). */
function backlenSize(n: number): number {
  return n <= 127 ? 1 : n < 16383 ? 2 : n < 2097151 ? 3 : n < 268435455 ? 4 : 5;
}

/** Bytes of a string entry's encoding and data. */
function stringEntrySize(len: number): number {
  return len < 64 ? 1 + len : len < 4096 ? 2 + len : 5 + len;
}

function intEntrySize(v: number | bigint): number {
  if (v >= 0 && v <= 127) return 1;
  if (v >= -4096 && v <= 4095) return 2;
  if (v >= -32768 && v <= 32767) return 3;
  if (v >= -8388608 && v <= 8388607) return 4;
  if (v >= -2147483648 && v <= 2147483647) return 5;
  return 9;
}

/** Bytes an entry holding s takes in a listpack, back-length included. */
export function listpackEntrySize(s: string): number {
  const v = parseInt64(s);
  const n = v !== null ? intEntrySize(v) : stringEntrySize(s.length);
  return n + backlenSize(n);
}

/** Builds a listpack entry by entry. */
export class ListpackBuilder {
  private readonly w = new ByteWriter(64);
  count = 0;

  constructor() {
    this.w.length = HEADER_SIZE;
  }

  /** Bytes the listpack will have, header and terminator included (lpBytes). */
  get bytes(): number {
    return this.w.length + 1;
  }

  append(s: string): void {
    const w = this.w;
    const v = parseInt64(s);
    let n: number;
    if (v !== null) {
      n = writeInt(w, v);
    } else {
      const len = s.length;
      if (len < 64) {
        w.byte(0x80 | len);
        n = 1 + len;
      } else if (len < 4096) {
        w.byte(0xe0 | (len >>> 8));
        w.byte(len & 0xff);
        n = 2 + len;
      } else {
        w.byte(0xf0);
        w.u32le(len);
        n = 5 + len;
      }
      w.str(s);
    }
    writeBacklen(w, n);
    this.count++;
  }

  finish(): Uint8Array {
    this.w.byte(EOF);
    const out = this.w.finish();
    const total = out.length;
    out[0] = total & 0xff;
    out[1] = (total >>> 8) & 0xff;
    out[2] = (total >>> 16) & 0xff;
    out[3] = (total >>> 24) & 0xff;
    const count = Math.min(this.count, COUNT_UNKNOWN);
    out[4] = count & 0xff;
    out[5] = count >>> 8;
    return out;
  }
}

/** Writes an integer entry's encoding and data; returns their size. */
function writeInt(w: ByteWriter, v: number | bigint): number {
  if (typeof v === 'bigint') {
    w.byte(0xf4);
    w.i64le(v);
    return 9;
  }
  if (v >= 0 && v <= 127) {
    w.byte(v);
    return 1;
  }
  if (v >= -4096 && v <= 4095) {
    const u = v < 0 ? (1 << 13) + v : v;
    w.byte(0xc0 | (u >>> 8));
    w.byte(u & 0xff);
    return 2;
  }
  if (v >= -32768 && v <= 32767) {
    w.byte(0xf1);
    w.u16le(v & 0xffff);
    return 3;
  }
  if (v >= -8388608 && v <= 8388607) {
    const u = v & 0xffffff;
    w.byte(0xf2);
    w.byte(u & 0xff);
    w.byte((u >>> 8) & 0xff);
    w.byte(u >>> 16);
    return 4;
  }
  if (v >= -2147483648 && v <= 2147483647) {
    w.byte(0xf3);
    w.u32le(v >>> 0);
    return 5;
  }
  w.byte(0xf4);
  w.i64le(v);
  return 9;
}

/** The back-length: most significant 7-bit group first, every byte but the first flagged with 0x80. */
function writeBacklen(w: ByteWriter, n: number): void {
  const size = backlenSize(n);
  for (let i = size - 1; i >= 0; i--) {
    const group = Math.floor(n / 2 ** (7 * i)) & 127;
    w.byte(i === size - 1 ? group : group | 128);
  }
}

/** A listpack holding these entries, in order. */
export function encodeListpack(entries: Iterable<string>): Uint8Array {
  const b = new ListpackBuilder();
  for (const e of entries) b.append(e);
  return b.finish();
}

/**
 * The entries of a listpack as byte strings (integers in decimal), or null
 * when it is malformed: wrong total length, missing terminator, an entry
 * running past the end, a back-length that disagrees with its entry, or an
 * element count that does not match.
 */
export function decodeListpack(lp: Uint8Array): string[] | null {
  const size = lp.length;
  if (size < HEADER_SIZE + 1) return null;
  const total = (lp[0]! | (lp[1]! << 8) | (lp[2]! << 16) | (lp[3]! << 24)) >>> 0;
  if (total !== size || lp[size - 1] !== EOF) return null;
  const declared = lp[4]! | (lp[5]! << 8);
  const out: string[] = [];
  let p = HEADER_SIZE;
  const last = size - 1;
  while (p < last) {
    const b = lp[p]!;
    let n: number;
    let value: string;
    if (b < 0x80) {
      n = 1;
      value = String(b);
    } else if (b < 0xc0) {
      const len = b & 0x3f;
      n = 1 + len;
      if (p + n > last) return null;
      value = bytesFromArray(lp, p + 1, p + 1 + len);
    } else if (b < 0xe0) {
      n = 2;
      if (p + n > last) return null;
      let v = ((b & 0x1f) << 8) | lp[p + 1]!;
      if (v >= 1 << 12) v -= 1 << 13;
      value = String(v);
    } else if (b < 0xf0) {
      if (p + 2 > last) return null;
      const len = ((b & 0x0f) << 8) | lp[p + 1]!;
      n = 2 + len;
      if (p + n > last) return null;
      value = bytesFromArray(lp, p + 2, p + 2 + len);
    } else if (b === 0xf0) {
      if (p + 5 > last) return null;
      const len = (lp[p + 1]! | (lp[p + 2]! << 8) | (lp[p + 3]! << 16) | (lp[p + 4]! << 24)) >>> 0;
      n = 5 + len;
      if (p + n > last) return null;
      value = bytesFromArray(lp, p + 5, p + 5 + len);
    } else if (b === 0xf1) {
      n = 3;
      if (p + n > last) return null;
      const v = lp[p + 1]! | (lp[p + 2]! << 8);
      value = String(v >= 1 << 15 ? v - (1 << 16) : v);
    } else if (b === 0xf2) {
      n = 4;
      if (p + n > last) return null;
      const v = lp[p + 1]! | (lp[p + 2]! << 8) | (lp[p + 3]! << 16);
      value = String(v >= 1 << 23 ? v - (1 << 24) : v);
    } else if (b === 0xf3) {
      n = 5;
      if (p + n > last) return null;
      value = String(lp[p + 1]! | (lp[p + 2]! << 8) | (lp[p + 3]! << 16) | (lp[p + 4]! << 24));
    } else if (b === 0xf4) {
      n = 9;
      if (p + n > last) return null;
      let u = 0n;
      for (let i = 8; i >= 1; i--) u = (u << 8n) | BigInt(lp[p + i]!);
      value = BigInt.asIntN(64, u).toString();
    } else {
      return null;
    }
    const bl = backlenSize(n);
    if (p + n + bl > last || readBacklen(lp, p + n + bl - 1) !== n) return null;
    out.push(value);
    p += n + bl;
  }
  if (declared !== COUNT_UNKNOWN && declared !== out.length) return null;
  return out;
}

/** Decodes the back-length ending at index `end`, reading backwards. */
function readBacklen(lp: Uint8Array, end: number): number {
  let v = 0;
  let shift = 0;
  for (let p = end; ; p--) {
    const b = lp[p]!;
    v += (b & 127) * 2 ** shift;
    if (!(b & 128)) return v;
    shift += 7;
    if (shift > 28) return -1;
  }
}

/** Whether the header is sound: total length and terminator (lpValidateIntegrity without deep). */
export function listpackHeaderValid(lp: Uint8Array): boolean {
  const size = lp.length;
  if (size < HEADER_SIZE + 1) return false;
  const total = (lp[0]! | (lp[1]! << 8) | (lp[2]! << 16) | (lp[3]! << 24)) >>> 0;
  return total === size && lp[size - 1] === EOF;
}
