import { bytesFromArray } from '../../resp/bytes.js';
import { abort } from './errors.js';

/**
 * Growable output and bounds-checked input over Uint8Array, little-endian
 * unless a method says otherwise. Values in the keyspace are byte strings
 * (char codes 0..255); `str` and `strBytes` move between the two forms.
 */
export class ByteWriter {
  private buf: Uint8Array;
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  private room(n: number): void {
    const need = this.length + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  bytes(a: Uint8Array): void {
    this.room(a.length);
    this.buf.set(a, this.length);
    this.length += a.length;
  }

  /** Appends a byte string. */
  str(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.length = at;
  }

  u16le(v: number): void {
    this.byte(v & 0xff);
    this.byte((v >>> 8) & 0xff);
  }

  u32le(v: number): void {
    this.room(4);
    const b = this.buf;
    const at = this.length;
    b[at] = v & 0xff;
    b[at + 1] = (v >>> 8) & 0xff;
    b[at + 2] = (v >>> 16) & 0xff;
    b[at + 3] = (v >>> 24) & 0xff;
    this.length += 4;
  }

  u32be(v: number): void {
    this.room(4);
    const b = this.buf;
    const at = this.length;
    b[at] = (v >>> 24) & 0xff;
    b[at + 1] = (v >>> 16) & 0xff;
    b[at + 2] = (v >>> 8) & 0xff;
    b[at + 3] = v & 0xff;
    this.length += 4;
  }

  /** Eight bytes of a 64-bit two's complement integer, little-endian. */
  i64le(v: number | bigint): void {
    let u = BigInt.asUintN(64, BigInt(v));
    for (let i = 0; i < 8; i++) {
      this.byte(Number(u & 0xffn));
      u >>= 8n;
    }
  }

  u64be(v: number | bigint): void {
    const u = BigInt.asUintN(64, BigInt(v));
    for (let i = 7; i >= 0; i--) this.byte(Number((u >> BigInt(i * 8)) & 0xffn));
  }

  /** An IEEE 754 binary64, little-endian. */
  f64le(d: number): void {
    F64_VIEW.setFloat64(0, d, true);
    this.bytes(F64_BYTES);
  }

  /** The bytes written so far, in a buffer of their own. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }

  /** A view of the bytes written so far (valid until the next write). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** Scratch space for moving doubles to and from bytes in a fixed byte order. */
const F64_BYTES = new Uint8Array(8);
const F64_VIEW = new DataView(F64_BYTES.buffer);

/** Reads from a byte array; running past the end aborts with 'short-read'. */
export class ByteReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    /** Where the readable data ends. */
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): void {
    if (this.end - this.pos < n) abort('short-read', 'Unexpected EOF reading RDB file', this.pos);
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  /** The next n bytes as a view into the input. */
  take(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The next n bytes as a byte string. */
  strBytes(n: number): string {
    this.need(n);
    const start = this.pos;
    this.pos += n;
    return n <= 12 ? shortString(this.buf, start, n) : bytesFromArray(this.buf, start, start + n);
  }

  u16le(): number {
    this.need(2);
    const b = this.buf;
    const v = b[this.pos]! | (b[this.pos + 1]! << 8);
    this.pos += 2;
    return v;
  }

  u32le(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  i32le(): number {
    return this.u32le() | 0;
  }

  u32be(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  }

  /** A signed 64-bit little-endian integer: a number when exact, else a bigint. */
  i64le(): number | bigint {
    const lo = this.u32le();
    const hi = this.u32le();
    const v = BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
    return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
  }

  u64be(): bigint {
    const hi = this.u32be();
    const lo = this.u32be();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  f64le(): number {
    this.need(8);
    F64_BYTES.set(this.buf.subarray(this.pos, this.pos + 8));
    this.pos += 8;
    return F64_VIEW.getFloat64(0, true);
  }
}

const fromCodes = String.fromCharCode;

/**
 * Up to 12 bytes as a byte string made in one call: the keys and values of
 * a file of small keys are mostly this short, and building them a character
 * at a time leaves a dozen dead strings behind each one.
 */
function shortString(a: Uint8Array, s: number, n: number): string {
  switch (n) {
    case 0:
      return '';
    case 1:
      return fromCodes(a[s]!);
    case 2:
      return fromCodes(a[s]!, a[s + 1]!);
    case 3:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!);
    case 4:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!);
    case 5:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!);
    case 6:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!);
    case 7:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!);
    case 8:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!);
    case 9:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!);
    case 10:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!, a[s + 9]!);
    case 11:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!, a[s + 9]!, a[s + 10]!);
    default:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!, a[s + 9]!, a[s + 10]!, a[s + 11]!);
  }
}
