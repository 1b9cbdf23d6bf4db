import { stringOf } from '../keyspace/values.js';
import type { Int64 } from '../numbers/int64.js';
import { ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg, opt } from './args.js';
import {
  bitInByte,
  bitOffsetArg,
  byteAt,
  findBit,
  onesInByte,
  popcount,
  stringForBitWrite,
} from './bitmap-bits.js';
import { bitfieldCommands } from './bitmap-field.js';
import { bitop } from './bitmap-op.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { modified } from './lookup.js';
import { readStringValue } from './string-access.js';
import type { Handler } from '../server/command-table.js';

/**
 * The bitmap commands (src/bitops.c): SETBIT, GETBIT, BITCOUNT and BITPOS
 * here, BITOP in bitmap-op.ts, BITFIELD and BITFIELD_RO in bitmap-field.ts.
 * A bitmap is a string value; writing bits leaves it raw-encoded and edited
 * in place, so that setting one bit of a long string costs O(1).
 */

const BIT_VALUE_ERROR = errorReply('bit is not an integer or out of range');
const BIT_ARG_ERROR = errorReply('The bit argument must be 1 or 0.');

function setbit(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const offset = bitOffsetArg(c, argv[2]!);
  if (offset instanceof ErrorReply) return offset;
  const on = int64Arg(argv[3]!);
  if (on !== 0 && on !== 1) return BIT_VALUE_ERROR;
  const target = stringForBitWrite(c, key, offset);
  if (target instanceof ErrorReply) return target;
  const { o, grew } = target;
  const byte = Math.floor(offset / 8);
  const mask = 1 << (7 - (offset % 8));
  const old = byteAt(o, byte);
  const was = (old & mask) !== 0 ? 1 : 0;
  if (grew || was !== on) {
    o.writeAt(byte, String.fromCharCode(on ? old | mask : old & ~mask));
    modified(c, key);
    notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'setbit', key, c.db.id);
  }
  return was;
}

function getbit(c: Client, argv: string[]): Reply {
  const offset = bitOffsetArg(c, argv[2]!);
  if (offset instanceof ErrorReply) return offset;
  const v = readStringValue(c, argv[1]!);
  if (v === null) return 0;
  if (v instanceof ErrorReply) return v;
  const byte = Math.floor(offset / 8);
  if (byte >= v.length) return 0;
  return (byteAt(v, byte) >> (7 - (offset % 8))) & 1;
}

/** An index beyond any string's length keeps its sign and stays beyond when made a number. */
function clampIndex(v: Int64): number {
  if (typeof v === 'number') return v;
  return v < 0n ? -(2 ** 60) : 2 ** 60;
}

/**
 * A BITCOUNT or BITPOS range in bytes. In BIT units the bits of the edge
 * bytes that lie outside the range are set in the masks.
 */
interface ByteRange {
  start: number;
  end: number;
  firstMask: number;
  lastMask: number;
}

/**
 * Turns start and end (inclusive, negative from the end, in bytes or bits)
 * into bytes of a string of `length` bytes; start > end means empty.
 */
function byteRange(length: number, startArg: Int64, endArg: Int64, inBits: boolean): ByteRange {
  const total = inBits ? length * 8 : length;
  let start = clampIndex(startArg);
  let end = clampIndex(endArg);
  if (start < 0) start = Math.max(0, total + start);
  if (end < 0) end = Math.max(0, total + end);
  if (end >= total) end = total - 1;
  let firstMask = 0;
  let lastMask = 0;
  if (inBits && start <= end) {
    firstMask = ~((1 << (8 - (start % 8))) - 1) & 0xff;
    lastMask = (1 << (7 - (end % 8))) - 1;
    start = Math.floor(start / 8);
    end = Math.floor(end / 8);
  }
  return { start, end, firstMask, lastMask };
}

/** BIT or BYTE; null when it is neither. */
function unitArg(arg: string): boolean | null {
  const u = opt(arg);
  return u === 'bit' ? true : u === 'byte' ? false : null;
}

/**
 * BITCOUNT key [start end [BYTE|BIT]]. The key is looked up before the
 * arguments are read, so a missing key answers 0 whatever follows it.
 */
function bitcount(c: Client, argv: string[]): Reply {
  const v = readStringValue(c, argv[1]!);
  if (v === null) return 0;
  if (v instanceof ErrorReply) return v;
  let range: ByteRange;
  if (argv.length === 4 || argv.length === 5) {
    const startArg = int64Arg(argv[2]!);
    if (startArg === null) return NOT_INTEGER;
    const endArg = int64Arg(argv[3]!);
    if (endArg === null) return NOT_INTEGER;
    if (startArg < 0 && endArg < 0 && startArg > endArg) return 0;
    let inBits = false;
    if (argv.length === 5) {
      const unit = unitArg(argv[4]!);
      if (unit === null) return SYNTAX_ERROR;
      inBits = unit;
    }
    range = byteRange(v.length, startArg, endArg, inBits);
  } else if (argv.length === 2) {
    range = { start: 0, end: v.length - 1, firstMask: 0, lastMask: 0 };
  } else {
    return SYNTAX_ERROR;
  }
  const { start, end, firstMask, lastMask } = range;
  if (start > end) return 0;
  const s = stringOf(v);
  let n = popcount(s, start, end + 1);
  if (firstMask) n -= onesInByte(s.charCodeAt(start) & firstMask);
  if (lastMask) n -= onesInByte(s.charCodeAt(end) & lastMask);
  return n;
}

/**
 * BITPOS key bit [start [end [BYTE|BIT]]]. A missing key is all zeros. A 0
 * past the last byte counts as found (the string is taken to be followed
 * by zeros) unless an end was given.
 */
function bitpos(c: Client, argv: string[]): Reply {
  const bitArg = int64Arg(argv[2]!);
  if (bitArg === null) return NOT_INTEGER;
  if (bitArg !== 0 && bitArg !== 1) return BIT_ARG_ERROR;
  const bit = bitArg;
  const v = readStringValue(c, argv[1]!);
  if (v === null) return bit ? -1 : 0;
  if (v instanceof ErrorReply) return v;
  let range: ByteRange;
  let endGiven = false;
  if (argv.length >= 4 && argv.length <= 6) {
    const startArg = int64Arg(argv[3]!);
    if (startArg === null) return NOT_INTEGER;
    let inBits = false;
    if (argv.length === 6) {
      const unit = unitArg(argv[5]!);
      if (unit === null) return SYNTAX_ERROR;
      inBits = unit;
    }
    let endArg: Int64 = -1;
    if (argv.length >= 5) {
      const e = int64Arg(argv[4]!);
      if (e === null) return NOT_INTEGER;
      endArg = e;
      endGiven = true;
    }
    range = byteRange(v.length, startArg, endArg, inBits);
  } else if (argv.length === 3) {
    range = { start: 0, end: v.length - 1, firstMask: 0, lastMask: 0 };
  } else {
    return SYNTAX_ERROR;
  }
  if (range.start > range.end) return -1;
  return findInRange(stringOf(v), range, bit, endGiven);
}

/**
 * The search of bitposCommand: the first byte and the last byte are looked
 * at alone when the range cuts through them (BIT units), the bytes between
 * in one scan. `bytes` is what remains of the range when the search stops,
 * which decides whether a 0 "found" just past it lies outside the range.
 */
function findInRange(s: string, range: ByteRange, bit: number, endGiven: boolean): number {
  const { end, firstMask, lastMask } = range;
  let start = range.start;
  let bytes = end - start + 1;
  let pos: number;
  search: {
    if (firstMask) {
      let b = bit ? s.charCodeAt(start) & ~firstMask : s.charCodeAt(start) | firstMask;
      if (lastMask && bytes === 1) b = bit ? b & ~lastMask : b | lastMask;
      pos = bitInByte(b & 0xff, bit);
      if (bytes === 1 || (pos !== -1 && pos !== 8)) break search;
      start++;
      bytes--;
    }
    const middle = bytes - (lastMask ? 1 : 0);
    if (middle > 0) {
      pos = findBit(s, start, middle, bit);
      if (bytes === middle || (pos !== -1 && pos !== middle * 8)) break search;
      start += middle;
      bytes -= middle;
    }
    const b = bit ? s.charCodeAt(end) & ~lastMask : s.charCodeAt(end) | lastMask;
    pos = bitInByte(b & 0xff, bit);
  }
  if (endGiven && bit === 0 && pos === bytes * 8) return -1;
  return pos === -1 ? -1 : pos + start * 8;
}

export const bitmapCommands: Record<string, Handler> = {
  setbit,
  getbit,
  bitcount,
  bitpos,
  bitop,
  ...bitfieldCommands,
};
