import { copyBytesInto } from '../../resp/bytes.js';

/**
 * Growable output over Uint8Array, little-endian unless a method says
 * otherwise: the encodings (listpack, quicklist) and the RDB writers lay
 * out their bytes with it. Values in the keyspace are byte strings (char
 * codes 0..255); `str` and `strBytes` move between the two forms.
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
    copyBytesInto(s, 0, n, this.buf, this.length);
    this.length += n;
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
