/**
 * CRC-64/Jones as Redis computes it over RDB files and DUMP payloads
 * (src/crc64.c): polynomial 0xad93d23594c935a9, reflected input and
 * output, initial value 0, no final xor. "123456789" gives
 * 0xe9c6d914c4b8d9ca.
 *
 * The 64-bit register is kept as two 32-bit halves so that the inner loop
 * stays in small integers, and eight bytes are consumed per step with eight
 * tables (slicing-by-8, as Redis's crcspeed does): a file of hundreds of
 * megabytes is checked at load and summed at save, and the byte-at-a-time
 * loop was the larger part of loading a file of small keys.
 */

import type { WasmCrc64 } from './crc64-wasm.js';

/** What makes the WebAssembly step (crc64-wasm.ts), or null where it cannot run. */
type LongStep = (tableLo: Uint32Array, tableHi: Uint32Array) => WasmCrc64 | null;

let longStep: LongStep | null = null;

/**
 * Called by on-demand-handlers.ts when it loads: from then on long sums run
 * in WebAssembly. The step stays out of the page's first load, where sums
 * are of small files; until it comes, every sum takes the loop below, with
 * the same result.
 */
export function registerCrc64LongStep(step: LongStep): void {
  longStep = step;
}

/** Below this many bytes, copying them into WebAssembly's memory costs more than it saves. */
const WASM_MIN_BYTES = 512;

/** The polynomial with its bits reversed, as a reflected CRC consumes it. */
const POLY_REFLECTED = reverse64(0xad93d23594c935a9n);

/**
 * Table k (at offset 256*k) gives the register's change for a byte followed
 * by k zero bytes; table 0 is the classic byte-at-a-time table.
 */
const TABLE_LO = new Uint32Array(8 * 256);
const TABLE_HI = new Uint32Array(8 * 256);
{
  const table: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let crc = BigInt(i);
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ POLY_REFLECTED : crc >> 1n;
    table.push(crc);
  }
  for (let i = 0; i < 256; i++) {
    let crc = table[i]!;
    for (let k = 0; k < 8; k++) {
      TABLE_LO[k * 256 + i] = Number(crc & 0xffffffffn);
      TABLE_HI[k * 256 + i] = Number(crc >> 32n);
      crc = table[Number(crc & 0xffn)]! ^ (crc >> 8n);
    }
  }
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
    if (end - start >= WASM_MIN_BYTES && longStep !== null) {
      const w = longStep(TABLE_LO, TABLE_HI);
      if (w !== null) return this.updateWasm(w, bytes, start, end);
    }
    const tl = TABLE_LO;
    const th = TABLE_HI;
    let lo = this.lo;
    let hi = this.hi;
    let i = start;
    // Eight bytes at a time: each byte, xored into the register, is looked
    // up in the table for the number of bytes that follow it in the block.
    for (const stop = start + ((end - start) & ~7); i < stop; i += 8) {
      const b0 = (lo ^ bytes[i]!) & 0xff;
      const b1 = ((lo >>> 8) ^ bytes[i + 1]!) & 0xff;
      const b2 = ((lo >>> 16) ^ bytes[i + 2]!) & 0xff;
      const b3 = ((lo >>> 24) ^ bytes[i + 3]!) & 0xff;
      const b4 = (hi ^ bytes[i + 4]!) & 0xff;
      const b5 = ((hi >>> 8) ^ bytes[i + 5]!) & 0xff;
      const b6 = ((hi >>> 16) ^ bytes[i + 6]!) & 0xff;
      const b7 = ((hi >>> 24) ^ bytes[i + 7]!) & 0xff;
      lo = (tl[1792 + b0]! ^ tl[1536 + b1]! ^ tl[1280 + b2]! ^ tl[1024 + b3]! ^ tl[768 + b4]! ^ tl[512 + b5]! ^ tl[256 + b6]! ^ tl[b7]!) >>> 0;
      hi = (th[1792 + b0]! ^ th[1536 + b1]! ^ th[1280 + b2]! ^ th[1024 + b3]! ^ th[768 + b4]! ^ th[512 + b5]! ^ th[256 + b6]! ^ th[b7]!) >>> 0;
    }
    for (; i < end; i++) {
      const idx = (lo ^ bytes[i]!) & 0xff;
      lo = (((lo >>> 8) | (hi << 24)) ^ tl[idx]!) >>> 0;
      hi = ((hi >>> 8) ^ th[idx]!) >>> 0;
    }
    this.lo = lo;
    this.hi = hi;
    return this;
  }

  /** The same steps in WebAssembly, a window of input at a time. */
  private updateWasm(w: WasmCrc64, bytes: Uint8Array, start: number, end: number): this {
    w.words[0] = this.lo;
    w.words[1] = this.hi;
    for (let at = start; at < end; at += w.windowBytes) {
      const n = Math.min(w.windowBytes, end - at);
      w.memory.set(bytes.subarray(at, at + n), w.dataAt);
      w.update(n);
    }
    this.lo = w.words[0]!;
    this.hi = w.words[1]!;
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
