/**
 * CRC-64/Jones as Redis computes it over RDB files and DUMP payloads
 * (src/crc64.c): polynomial 0xad93d23594c935a9, reflected input and
 * output, initial value 0, no final xor. "123456789" gives
 * 0xe9c6d914c4b8d9ca.
 *
 * The 64-bit register is kept as two 32-bit halves so that the inner loop
 * stays in small integers.
 */

/** The polynomial with its bits reversed, as a reflected CRC consumes it. */
const POLY_REFLECTED = reverse64(0xad93d23594c935a9n);

const TABLE_LO = new Uint32Array(256);
const TABLE_HI = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let crc = BigInt(i);
  for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ POLY_REFLECTED : crc >> 1n;
  TABLE_LO[i] = Number(crc & 0xffffffffn);
  TABLE_HI[i] = Number(crc >> 32n);
}

function reverse64(v: bigint): bigint {
  let out = 0n;
  for (let i = 0; i < 64; i++) {
    out = (out << 1n) | (v & 1n);
    v >>= 1n;
  }
  return out;
}

/** A running CRC64: feed bytes in any number of pieces, then read `value`. */
export class Crc64 {
  private lo = 0;
  private hi = 0;

  update(bytes: Uint8Array, start = 0, end = bytes.length): this {
    let lo = this.lo;
    let hi = this.hi;
    for (let i = start; i < end; i++) {
      const idx = (lo ^ bytes[i]!) & 0xff;
      lo = (((lo >>> 8) | (hi << 24)) ^ TABLE_LO[idx]!) >>> 0;
      hi = ((hi >>> 8) ^ TABLE_HI[idx]!) >>> 0;
    }
    this.lo = lo;
    this.hi = hi;
    return this;
  }

  get value(): bigint {
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** The checksum as Redis stores it: eight bytes, little-endian. */
  bytesLE(): Uint8Array {
    const out = new Uint8Array(8);
    for (let i = 0; i < 4; i++) {
      out[i] = (this.lo >>> (8 * i)) & 0xff;
      out[4 + i] = (this.hi >>> (8 * i)) & 0xff;
    }
    return out;
  }
}

/** The CRC64 of bytes[start, end). */
export function crc64(bytes: Uint8Array, start = 0, end = bytes.length): bigint {
  return new Crc64().update(bytes, start, end).value;
}
