import { Crc64 } from '../../rdb/crc64.js';
import { lzfDecompress } from '../../../keyspace/encoding/lzf.js';
import { corrupt } from './report.js';

/**
 * The RDB file as redis-check-rdb reads it through Redis's rio layer
 * (src/rio.h, src/rdb.c): every read is all or nothing, and only a read
 * that succeeds counts toward `processed` (the offset the tool prints) and
 * the running CRC64. After a failed read every later read fails at once.
 */

/** rdbLoadLen's error value; a stored 64-bit length of 2^64-1 reads as an error too. */
export const LENERR = (1n << 64n) - 1n;

const ENC_INT8 = 0;
const ENC_INT16 = 1;
const ENC_INT32 = 2;
const ENC_LZF = 3;

/** Line numbers in the rdb.c of the Debian 7.0.15 build, which its error messages print. */
export const LINE = {
  unknownLengthEncoding: 236,
  invalidLzf: 413,
  unknownStringEncoding: 529,
} as const;

export class Rio {
  processed = 0;
  readError = false;
  readonly crc = new Crc64();

  constructor(
    readonly data: Uint8Array,
    /** Where the file position starts (0 for a file opened for the check). */
    public pos = 0,
  ) {}

  /** rioRead: `n` bytes or null. */
  read(n: number): Uint8Array | null {
    if (this.readError) return null;
    if (n > this.data.length - this.pos) {
      this.pos = this.data.length;
      this.readError = true;
      return null;
    }
    const out = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    this.crc.update(out);
    this.processed += n;
    return out;
  }

  /** One byte, or -1 (rdbLoadType). */
  u8(): number {
    const b = this.read(1);
    return b === null ? -1 : b[0]!;
  }

  /** rdbLoadLenByRef: a length, or the special encoding that follows; null on a failed read. */
  lenOrEncoding(): { value: bigint; encoded: boolean } | null {
    const first = this.read(1);
    if (first === null) return null;
    const b = first[0]!;
    const kind = b >> 6;
    if (kind === 3) return { value: BigInt(b & 0x3f), encoded: true };
    if (kind === 0) return { value: BigInt(b & 0x3f), encoded: false };
    if (kind === 1) {
      const next = this.read(1);
      return next === null ? null : { value: BigInt(((b & 0x3f) << 8) | next[0]!), encoded: false };
    }
    if (b === 0x80) {
      const v = this.read(4);
      return v === null ? null : { value: BigInt(((v[0]! << 24) | (v[1]! << 16) | (v[2]! << 8) | v[3]!) >>> 0), encoded: false };
    }
    if (b === 0x81) {
      const v = this.read(8);
      if (v === null) return null;
      let u = 0n;
      for (let i = 0; i < 8; i++) u = (u << 8n) | BigInt(v[i]!);
      return { value: u, encoded: false };
    }
    return corrupt(LINE.unknownLengthEncoding, `Unknown length encoding ${kind} in rdbLoadLen()`);
  }

  /** rdbLoadLen: LENERR on a failed read. */
  len(): bigint {
    const l = this.lenOrEncoding();
    return l === null ? LENERR : l.value;
  }

  /** A little-endian signed 64-bit integer (rdbLoadMillisecondTime), or null. */
  i64(): bigint | null {
    const v = this.read(8);
    if (v === null) return null;
    let u = 0n;
    for (let i = 7; i >= 0; i--) u = (u << 8n) | BigInt(v[i]!);
    return BigInt.asIntN(64, u);
  }

  /**
   * rdbGenericLoadStringObject: a string in any of its encodings, as bytes;
   * null on a failed read.
   */
  string(): Uint8Array | null {
    const l = this.lenOrEncoding();
    if (l === null || l.value === LENERR) return null;
    if (!l.encoded) {
      if (l.value === 0n) return new Uint8Array(0);
      // Redis allocates first and then reads: a length past the end of
      // the file is simply a failed read.
      if (l.value > BigInt(this.data.length)) return this.read(this.data.length + 1);
      return this.read(Number(l.value));
    }
    const enc = Number(l.value);
    if (enc === ENC_INT8 || enc === ENC_INT16 || enc === ENC_INT32) {
      const n = enc === ENC_INT8 ? 1 : enc === ENC_INT16 ? 2 : 4;
      const v = this.read(n);
      if (v === null) return null;
      const u = n === 1 ? v[0]! : n === 2 ? v[0]! | (v[1]! << 8) : (v[0]! | (v[1]! << 8) | (v[2]! << 16) | (v[3]! << 24)) >>> 0;
      const signed = n === 1 ? (u << 24) >> 24 : n === 2 ? (u << 16) >> 16 : u | 0;
      return asciiBytes(String(signed));
    }
    if (enc === ENC_LZF) return this.lzf();
    return corrupt(LINE.unknownStringEncoding, `Unknown RDB string encoding type ${enc}`);
  }

  private lzf(): Uint8Array | null {
    const clen = this.len();
    if (clen === LENERR) return null;
    const len = this.len();
    if (len === LENERR) return null;
    const packed = clen > BigInt(this.data.length) ? this.read(this.data.length + 1) : this.read(Number(clen));
    if (packed === null) return null;
    // lzf_decompress reports failure as 0 bytes, which a declared length
    // of 0 takes for success.
    if (len === 0n) return new Uint8Array(0);
    // A back reference expands three bytes into at most 264, so nothing
    // larger than this can come out of the data.
    const out = len > BigInt(packed.length) * 264n ? null : lzfDecompress(packed, Number(len));
    if (out === null) return corrupt(LINE.invalidLzf, 'Invalid LZF compressed string');
    return out;
  }
}

function asciiBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
