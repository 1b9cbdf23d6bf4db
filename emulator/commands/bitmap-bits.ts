import { StringObject, stringOf } from '../keyspace/values.js';
import { errorReply, type ErrorReply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { int64Arg } from './args.js';
import { STRING_TOO_LONG, WRONGTYPE } from '../server/errors.js';
import { isStringValue } from './string-access.js';

/**
 * What the bitmap commands share (src/bitops.c): reading single bytes and
 * byte ranges of a string value, counting and finding bits, parsing a bit
 * offset, and getting a string ready to have bits written into it.
 *
 * Bit 0 of a bitmap is the most significant bit of its first byte.
 */

export type StringValue = string | StringObject;

export const BIT_OFFSET_ERROR = errorReply('bit offset is not an integer or out of range');

/**
 * The longest string the emulator can hold (V8's limit, as in
 * string-access.ts). Redis grows a bitmap to whatever offset it is given;
 * past this length the emulator answers as if proto-max-bulk-len forbade it.
 */
const MAX_BITMAP_BYTES = 2 ** 29 - 24;

/** The byte at index i of a string value (i < its length). */
export function byteAt(v: StringValue, i: number): number {
  return typeof v === 'string' ? v.charCodeAt(i) : v.slice(i, i + 1).charCodeAt(0);
}

/** Bytes [start, end) of a string value as a byte string, without building all of it. */
export function bytesOf(v: StringValue, start: number, end: number): string {
  return v.slice(start, end);
}

/** The number of set bits in each byte value. */
const ONES = new Uint8Array(256);
for (let b = 1; b < 256; b++) ONES[b] = (b & 1) + ONES[b >> 1]!;

export function onesInByte(b: number): number {
  return ONES[b]!;
}

/** The number of set bits in bytes [start, end) of s. */
export function popcount(s: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) n += ONES[s.charCodeAt(i)]!;
  return n;
}

/**
 * Where the first bit equal to `bit` is in one byte, counting from its most
 * significant bit: -1 when looking for a 1 in a zero byte, 8 when looking
 * for a 0 in a byte of ones (as if a zero byte followed).
 */
export function bitInByte(b: number, bit: number): number {
  if (bit) return b === 0 ? -1 : Math.clz32(b) - 24;
  return b === 0xff ? 8 : Math.clz32(~b & 0xff) - 24;
}

/**
 * Redis's redisBitpos: the position of the first bit equal to `bit` in the
 * `count` bytes of s from `start`, relative to `start`. Not finding a 1
 * gives -1; not finding a 0 gives count * 8, since the string is taken to
 * be followed by zero bytes.
 */
export function findBit(s: string, start: number, count: number, bit: number): number {
  const skip = bit ? 0 : 0xff;
  for (let i = 0; i < count; i++) {
    const b = s.charCodeAt(start + i);
    if (b !== skip) return i * 8 + bitInByte(b, bit);
  }
  return bit ? -1 : count * 8;
}

/**
 * A bit offset argument (getBitOffsetFromArgument): a non-negative int64
 * whose byte lies within proto-max-bulk-len, except for commands from the
 * primary, which are obeyed whatever they say. With `fieldBits` > 0 (BITFIELD)
 * an offset may be written "#N", meaning N fields of that width; the product
 * wraps around like a 64-bit multiplication in C.
 *
 * An offset past 2^53 can only come from a primary or a huge
 * proto-max-bulk-len; it then loses precision, which matters to no string
 * the emulator can hold.
 */
export function bitOffsetArg(c: Client, arg: string, fieldBits = 0): number | ErrorReply {
  const byField = fieldBits > 0 && arg.charCodeAt(0) === 35; /* # */
  let v = int64Arg(byField ? arg.slice(1) : arg);
  if (v === null) return BIT_OFFSET_ERROR;
  if (byField) v = BigInt.asIntN(64, BigInt(v) * BigInt(fieldBits));
  if (v < 0) return BIT_OFFSET_ERROR;
  const offset = Number(v);
  if (c.role !== 'master' && Math.floor(offset / 8) >= c.server.config.getNumber('proto-max-bulk-len')) {
    return BIT_OFFSET_ERROR;
  }
  return offset;
}

/** A string made ready for writing bits (see stringForBitWrite). */
export interface BitTarget {
  o: StringObject;
  /** Whether the key was created or the string grew: a change even if no bit flips. */
  grew: boolean;
}

/**
 * Redis's lookupStringForBitCommand: the string at key as a raw object that
 * may be edited in place, zero-padded so that bit `maxBit` exists, created
 * if missing. Like any in-place edit in Redis, this leaves the value raw
 * even when no bit changes. A missing key is added without signalling it:
 * the caller signals once it knows whether anything changed.
 */
export function stringForBitWrite(c: Client, key: string, maxBit: number): BitTarget | ErrorReply {
  const byte = Math.floor(maxBit / 8);
  const v = c.db.lookupWrite(key);
  if (v !== undefined && !isStringValue(v)) return WRONGTYPE;
  if (byte >= MAX_BITMAP_BYTES) return STRING_TOO_LONG;
  if (v === undefined) {
    const o = new StringObject('', 'raw');
    o.writeAt(byte, '\0');
    c.db.add(key, o);
    return { o, grew: true };
  }
  let o: StringObject;
  if (typeof v !== 'string' && v.encoding === 'raw') {
    o = v;
  } else {
    o = new StringObject(stringOf(v), 'raw');
    c.db.overwrite(key, o);
  }
  const grew = byte >= o.length;
  if (grew) o.writeAt(byte, '\0');
  return { o, grew };
}
