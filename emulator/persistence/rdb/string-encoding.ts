import { parseInt64 } from '../../numbers/int64.js';
import { bytesFromArray, bytesToArray } from '../../resp/bytes.js';
import { ByteReader } from './bytes.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';
import { abort } from './errors.js';
import { lzfCompress, lzfDecompress } from '../../keyspace/encoding/lzf.js';

/**
 * RDB lengths and strings (src/rdb.c rdbSaveLen, rdbSaveRawString and
 * their loaders).
 *
 * A length is 00xxxxxx (6 bits), 01xxxxxx xxxxxxxx (14 bits, big-endian),
 * 0x80 + 32 bits or 0x81 + 64 bits (big-endian). 11xxxxxx introduces a
 * specially encoded string instead: int8, int16, int32 (little-endian) or
 * LZF (compressed length, original length, data).
 */

const ENC_INT8 = 0;
const ENC_INT16 = 1;
const ENC_INT32 = 2;
const ENC_LZF = 3;

/** Strings at most this long are tried as integers (rdbSaveRawString). */
const MAX_INT_STRING = 11;
/** Strings longer than this are tried with LZF when rdbcompression is on. */
const MIN_LZF_STRING = 20;

export function writeLength(w: ByteWriter, len: number): void {
  if (len < 1 << 6) {
    w.byte(len);
  } else if (len < 1 << 14) {
    w.byte((len >>> 8) | 0x40);
    w.byte(len & 0xff);
  } else if (len <= 0xffffffff) {
    w.byte(0x80);
    w.u32be(len);
  } else {
    w.byte(0x81);
    w.u64be(len);
  }
}

/** The bytes writeLength takes for len. */
export function lengthSize(len: number): number {
  return len < 1 << 6 ? 1 : len < 1 << 14 ? 2 : len <= 0xffffffff ? 5 : 9;
}

/** Writes an integer in the smallest of the int8/16/32 string encodings; false when it needs more. */
function writeEncodedInt(w: ByteWriter, v: number): boolean {
  if (v >= -128 && v <= 127) {
    w.byte(0xc0 | ENC_INT8);
    w.byte(v & 0xff);
  } else if (v >= -32768 && v <= 32767) {
    w.byte(0xc0 | ENC_INT16);
    w.u16le(v & 0xffff);
  } else if (v >= -2147483648 && v <= 2147483647) {
    w.byte(0xc0 | ENC_INT32);
    w.u32le(v >>> 0);
  } else {
    return false;
  }
  return true;
}

/** An LZF blob: the encoding byte, both lengths, the data (rdbSaveLzfBlob). */
export function writeLzfBlob(w: ByteWriter, compressed: Uint8Array, originalLength: number): void {
  w.byte(0xc0 | ENC_LZF);
  writeLength(w, compressed.length);
  writeLength(w, originalLength);
  w.bytes(compressed);
}

/**
 * Writes a byte string as Redis does: as an integer when it is the
 * canonical form of one that fits in 32 bits, else LZF-compressed when
 * allowed, longer than 20 bytes and at least 4 bytes smaller that way,
 * else verbatim.
 */
export function writeString(w: ByteWriter, s: string, compression: boolean): void {
  const len = s.length;
  if (len <= MAX_INT_STRING && len > 0) {
    const v = parseInt64(s);
    if (v !== null && typeof v === 'number' && writeEncodedInt(w, v)) return;
  }
  if (compression && len > MIN_LZF_STRING) {
    const packed = lzfCompress(bytesToArray(s), len - 4);
    if (packed !== null) {
      writeLzfBlob(w, packed, len);
      return;
    }
  }
  writeLength(w, len);
  w.str(s);
}

/** Like writeString for a blob already in bytes (listpacks, intsets, quicklist nodes). */
export function writeBlob(w: ByteWriter, blob: Uint8Array, compression: boolean): void {
  const len = blob.length;
  if (len <= MAX_INT_STRING && len > 0) {
    let s = '';
    for (let i = 0; i < len; i++) s += String.fromCharCode(blob[i]!);
    const v = parseInt64(s);
    if (v !== null && typeof v === 'number' && writeEncodedInt(w, v)) return;
  }
  if (compression && len > MIN_LZF_STRING) {
    const packed = lzfCompress(blob, len - 4);
    if (packed !== null) {
      writeLzfBlob(w, packed, len);
      return;
    }
  }
  writeLength(w, len);
  w.bytes(blob);
}

/** A length, or the special string encoding that follows (rdbLoadLenByRef). */
export interface LoadedLength {
  value: number;
  encoded: boolean;
}

const scratchLength: LoadedLength = { value: 0, encoded: false };

/** Reads a length or a special-encoding marker; the result is reused by the next call. */
export function readLengthOrEncoding(r: ByteReader): LoadedLength {
  const first = r.u8();
  const kind = first >> 6;
  scratchLength.encoded = false;
  if (kind === 3) {
    scratchLength.encoded = true;
    scratchLength.value = first & 0x3f;
  } else if (kind === 0) {
    scratchLength.value = first & 0x3f;
  } else if (kind === 1) {
    scratchLength.value = ((first & 0x3f) << 8) | r.u8();
  } else if (first === 0x80) {
    scratchLength.value = r.u32be();
  } else if (first === 0x81) {
    const v = r.u64be();
    // Nothing this large fits in memory; it can only be a damaged file.
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) abort('corrupt', `Unknown length encoding ${kind} in rdbLoadLen()`, r.pos);
    scratchLength.value = Number(v);
  } else {
    abort('corrupt', `Unknown length encoding ${kind} in rdbLoadLen()`, r.pos);
  }
  return scratchLength;
}

/** Reads a plain length; a special-encoding marker here is a damaged file. */
export function readLength(r: ByteReader): number {
  const l = readLengthOrEncoding(r);
  // Redis's rdbLoadLen ignores the flag and returns the low six bits; a
  // length is never written that way, so the bits mean what they say.
  return l.value;
}

/** The decimal form of an int8/16/32-encoded string. */
function readEncodedInt(r: ByteReader, enc: number): string {
  switch (enc) {
    case ENC_INT8: {
      const b = r.u8();
      return String(b > 127 ? b - 256 : b);
    }
    case ENC_INT16: {
      const v = r.u16le();
      return String(v > 32767 ? v - 65536 : v);
    }
    case ENC_INT32:
      return String(r.i32le());
    default:
      return abort('corrupt', `Unknown RDB string encoding type ${enc}`, r.pos);
  }
}

/** Reads a string (any encoding) as a byte string (rdbGenericLoadStringObject). */
export function readString(r: ByteReader): string {
  const l = readLengthOrEncoding(r);
  if (!l.encoded) return r.strBytes(l.value);
  if (l.value !== ENC_LZF) return readEncodedInt(r, l.value);
  return bytesFromArray(readLzf(r));
}

/** Reads a string (any encoding) as bytes: the form blobs such as listpacks take. */
export function readBlob(r: ByteReader): Uint8Array {
  const l = readLengthOrEncoding(r);
  if (!l.encoded) return r.take(l.value);
  if (l.value !== ENC_LZF) return bytesToArray(readEncodedInt(r, l.value));
  return readLzf(r);
}

function readLzf(r: ByteReader): Uint8Array {
  const compressedLength = readLength(r);
  const length = readLength(r);
  const data = r.take(compressedLength);
  const out = lzfDecompress(data, length);
  if (out === null) abort('corrupt', 'Invalid LZF compressed string', r.pos);
  return out;
}

/**
 * A double in the old text form (RDB_TYPE_ZSET): a length byte, then the
 * digits; 253, 254 and 255 stand for nan, inf and -inf.
 */
export function readTextDouble(r: ByteReader): number {
  const len = r.u8();
  if (len === 255) return -Infinity;
  if (len === 254) return Infinity;
  if (len === 253) return NaN;
  const text = r.strBytes(len);
  const v = Number.parseFloat(text);
  if (Number.isNaN(v) && !/^\s*[+-]?nan/i.test(text)) abort('short-read', 'Unexpected EOF reading RDB file', r.pos);
  return v;
}
