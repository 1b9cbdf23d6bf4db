import type { StringObject } from '../keyspace/values.js';
import { normalize } from '../numbers/int64.js';
import { ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg, opt } from './args.js';
import { bitOffsetArg, bytesOf, stringForBitWrite, type StringValue } from './bitmap-bits.js';
import { NOT_INTEGER, SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import { modified } from './lookup.js';
import { isStringValue } from './string-access.js';
import type { Handler } from '../server/command-table.js';

/**
 * BITFIELD and BITFIELD_RO (src/bitops.c bitfieldGeneric): signed and
 * unsigned integers of 1 to 64 bits (unsigned up to 63, so that every value
 * fits a RESP integer) read and written at any bit offset, big-endian.
 *
 * All the operations are parsed first, so a bad one fails the command
 * before anything is written. Field values are bigints: the overflow rules
 * are those of C's 64-bit arithmetic, wrap-arounds included, and bigints
 * with BigInt.asIntN / asUintN say them exactly.
 */

const GET = 0;
const SET = 1;
const INCRBY = 2;

const WRAP = 0;
const SAT = 1;
const FAIL = 2;

interface FieldOp {
  code: number;
  overflow: number;
  signed: boolean;
  bits: number;
  offset: number;
  /** The value of SET or the increment of INCRBY. */
  value: bigint;
}

const TYPE_ERROR = errorReply('Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.');
const OVERFLOW_TYPE_ERROR = errorReply('Invalid OVERFLOW type specified');
const READONLY_ERROR = errorReply('BITFIELD_RO only supports the GET subcommand');

/** MASKS[n] has the low n bits set. */
const MASKS: bigint[] = [];
for (let n = 0; n <= 64; n++) MASKS.push((1n << BigInt(n)) - 1n);

/** The largest value of a signed field of `bits` bits. */
function signedMax(bits: number): bigint {
  return MASKS[bits - 1]!;
}

/**
 * A type such as "i16" or "u8" (getBitfieldTypeFromArgument): the width is
 * read up to a NUL byte, as C's strlen would.
 */
function parseType(arg: string): { signed: boolean; bits: number } | null {
  const sign = arg.charCodeAt(0);
  if (sign !== 105 /* i */ && sign !== 117 /* u */) return null;
  const signed = sign === 105;
  const nul = arg.indexOf('\0', 1);
  const bits = int64Arg(arg.slice(1, nul < 0 ? arg.length : nul));
  if (bits === null || bits < 1 || bits > (signed ? 64 : 63)) return null;
  return { signed, bits: Number(bits) };
}

function parseOverflow(arg: string): number | null {
  const o = opt(arg);
  return o === 'wrap' ? WRAP : o === 'sat' ? SAT : o === 'fail' ? FAIL : null;
}

/**
 * The 72 bits from the byte holding `offset`: enough for any field that
 * starts in that byte. Bytes past the end of the string read as zero.
 */
function window(v: StringValue | undefined, byte: number): bigint {
  const s = v === undefined ? '' : bytesOf(v, byte, byte + 9);
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 5; i++) hi = hi * 256 + (i < s.length ? s.charCodeAt(i) : 0);
  for (let i = 5; i < 9; i++) lo = lo * 256 + (i < s.length ? s.charCodeAt(i) : 0);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** The field of `bits` bits at `offset`, as an unsigned number. */
function readField(v: StringValue | undefined, offset: number, bits: number): bigint {
  const byte = Math.floor(offset / 8);
  const shift = 72 - (offset - byte * 8) - bits;
  return (window(v, byte) >> BigInt(shift)) & MASKS[bits]!;
}

/** Stores the low `bits` bits of value at `offset`; the string is long enough. */
function writeField(o: StringObject, offset: number, bits: number, value: bigint): void {
  const byte = Math.floor(offset / 8);
  const start = offset - byte * 8;
  const shift = BigInt(72 - start - bits);
  const mask = MASKS[bits]!;
  const w = (window(o, byte) & ~(mask << shift)) | ((value & mask) << shift);
  const n = Math.ceil((start + bits) / 8);
  let bytes = '';
  for (let i = 0; i < n; i++) bytes += String.fromCharCode(Number((w >> BigInt(64 - 8 * i)) & 0xffn));
  o.writeAt(byte, bytes);
}

/**
 * checkUnsignedBitfieldOverflow: 1 if value + incr is above what `bits`
 * bits hold, -1 if below zero, else 0. `value` is a uint64.
 */
function unsignedOverflow(value: bigint, incr: bigint, bits: number): number {
  const max = MASKS[bits]!;
  const maxIncr = BigInt.asIntN(64, max - value);
  const minIncr = BigInt.asIntN(64, -value);
  if (value > max || (incr > 0n && incr > maxIncr)) return 1;
  if (incr < 0n && incr < minIncr) return -1;
  return 0;
}

/**
 * checkSignedBitfieldOverflow, with the differences of its int64 limits
 * wrapping around as they do in C: a SET of a value far below the range
 * counts as an overflow upwards.
 */
function signedOverflow(value: bigint, incr: bigint, bits: number): number {
  const max = signedMax(bits);
  const min = -max - 1n;
  const maxIncr = BigInt.asIntN(64, max - value);
  const minIncr = BigInt.asIntN(64, min - value);
  if (value > max || (bits !== 64 && incr > maxIncr) || (value >= 0n && incr > 0n && incr > maxIncr)) return 1;
  if (value < min || (bits !== 64 && incr < minIncr) || (value < 0n && incr < 0n && incr < minIncr)) return -1;
  return 0;
}

/** What an overflowing SET or INCRBY stores under WRAP or SAT. */
function overflowResult(op: FieldOp, value: bigint, incr: bigint, direction: number): bigint {
  if (op.overflow === WRAP) {
    return op.signed ? BigInt.asIntN(op.bits, value + incr) : BigInt.asUintN(op.bits, value + incr);
  }
  if (op.signed) return direction > 0 ? signedMax(op.bits) : -signedMax(op.bits) - 1n;
  return direction > 0 ? MASKS[op.bits]! : 0n;
}

/**
 * Runs one SET or INCRBY on the string: its reply (the old value for SET,
 * the new one for INCRBY, null when OVERFLOW FAIL refuses it) and whether
 * the field changed.
 */
function writeOp(o: StringObject, op: FieldOp): { reply: Reply; changed: boolean } {
  const raw = readField(o, op.offset, op.bits);
  const old = op.signed ? BigInt.asIntN(op.bits, raw) : raw;
  let next: bigint;
  let direction: number;
  if (op.code === INCRBY) {
    direction = op.signed ? signedOverflow(old, op.value, op.bits) : unsignedOverflow(old, op.value, op.bits);
    next = direction ? overflowResult(op, old, op.value, direction) : op.signed ? old + op.value : BigInt.asUintN(64, old + op.value);
  } else {
    const value = op.signed ? op.value : BigInt.asUintN(64, op.value);
    direction = op.signed ? signedOverflow(value, 0n, op.bits) : unsignedOverflow(value, 0n, op.bits);
    next = direction ? overflowResult(op, value, 0n, direction) : value;
  }
  if (direction && op.overflow === FAIL) return { reply: null, changed: false };
  writeField(o, op.offset, op.bits, next);
  return { reply: normalize(op.code === INCRBY ? next : old), changed: old !== next };
}

function bitfieldGeneric(c: Client, argv: string[], readonlyCommand: boolean): Reply {
  const key = argv[1]!;
  const ops: FieldOp[] = [];
  let overflow = WRAP;
  let writes = false;
  let highestBit = 0;
  for (let j = 2; j < argv.length; j++) {
    const remaining = argv.length - j - 1;
    const sub = opt(argv[j]!);
    let code: number;
    if (sub === 'get' && remaining >= 2) code = GET;
    else if (sub === 'set' && remaining >= 3) code = SET;
    else if (sub === 'incrby' && remaining >= 3) code = INCRBY;
    else if (sub === 'overflow' && remaining >= 1) {
      const o = parseOverflow(argv[++j]!);
      if (o === null) return OVERFLOW_TYPE_ERROR;
      overflow = o;
      continue;
    } else {
      return SYNTAX_ERROR;
    }
    const type = parseType(argv[j + 1]!);
    if (type === null) return TYPE_ERROR;
    const offset = bitOffsetArg(c, argv[j + 2]!, type.bits);
    if (offset instanceof ErrorReply) return offset;
    let value = 0n;
    if (code !== GET) {
      writes = true;
      highestBit = Math.max(highestBit, offset + type.bits - 1);
      const v = int64Arg(argv[j + 3]!);
      if (v === null) return NOT_INTEGER;
      value = BigInt(v);
    }
    ops.push({ code, overflow, signed: type.signed, bits: type.bits, offset, value });
    j += code === GET ? 2 : 3;
  }

  let source: StringValue | undefined;
  let target: StringObject | null = null;
  let grew = false;
  if (!writes) {
    const v = c.db.lookupRead(key);
    if (v !== undefined && !isStringValue(v)) return WRONGTYPE;
    source = v;
  } else {
    if (readonlyCommand) return READONLY_ERROR;
    const t = stringForBitWrite(c, key, highestBit);
    if (t instanceof ErrorReply) return t;
    source = target = t.o;
    grew = t.grew;
  }

  const replies: Reply[] = new Array<Reply>(ops.length);
  let changes = 0;
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (op.code === GET) {
      const u = readField(source, op.offset, op.bits);
      replies[k] = normalize(op.signed ? BigInt.asIntN(op.bits, u) : u);
      continue;
    }
    const r = writeOp(target!, op);
    replies[k] = r.reply;
    if (r.reply !== null && (grew || r.changed)) changes++;
  }
  if (changes) {
    modified(c, key, changes);
    notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'setbit', key, c.db.id);
  }
  return replies;
}

function bitfield(c: Client, argv: string[]): Reply {
  return bitfieldGeneric(c, argv, false);
}

function bitfieldRo(c: Client, argv: string[]): Reply {
  return bitfieldGeneric(c, argv, true);
}

export const bitfieldCommands: Record<string, Handler> = {
  bitfield,
  bitfield_ro: bitfieldRo,
};
