import { bytesFromArray } from '../../resp/bytes.js';
import { abort } from './errors.js';

/**
 * Bounds-checked input over Uint8Array, little-endian unless a method says
 * otherwise (its output side is keyspace/encoding/byte-writer.ts).
 */
/** Scratch space to read a little-endian double. */
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
    return bytesFromArray(this.buf, start, start + n);
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

