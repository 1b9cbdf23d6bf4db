import { StringObject } from '../keyspace/values.js';
import type { Int64 } from '../numbers/int64.js';
import { ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg } from './args.js';
import { NOT_INTEGER } from '../server/errors.js';
import { modified } from './lookup.js';
import { checkStringLength, readStringValue, writeString } from './string-access.js';
import type { Handler } from '../server/command-table.js';

/**
 * The commands that treat a string as an array of bytes: APPEND, STRLEN,
 * GETRANGE (and its old name SUBSTR), SETRANGE (src/t_string.c).
 *
 * APPEND to an existing key and SETRANGE always leave a raw-encoded string
 * in Redis (they edit an unshared sds in place), whatever its length or
 * content, so their results are raw StringObjects, edited in place from
 * then on so that each edit costs what it writes.
 */

const OFFSET_OUT_OF_RANGE = errorReply('offset is out of range');

/** The value at key as a raw StringObject that may be edited in place (dbUnshareStringValue). */
function unshare(c: Client, key: string, v: string | StringObject): StringObject {
  if (typeof v !== 'string' && v.encoding === 'raw') return v;
  const raw = new StringObject(typeof v === 'string' ? v : v.s, 'raw');
  c.db.overwrite(key, raw);
  return raw;
}

function append(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const tail = argv[2]!;
  const v = writeString(c, key);
  if (v instanceof ErrorReply) return v;
  let length: number;
  if (v === undefined) {
    c.db.add(key, tail);
    length = tail.length;
  } else {
    const tooLong = checkStringLength(c, v.length, tail.length);
    if (tooLong) return tooLong;
    const o = unshare(c, key, v);
    o.writeAt(o.length, tail);
    length = o.length;
  }
  modified(c, key);
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'append', key, c.db.id);
  return length;
}

function strlen(c: Client, argv: string[]): Reply {
  const v = readStringValue(c, argv[1]!);
  if (v === null) return 0;
  return v instanceof ErrorReply ? v : v.length;
}

/** An index beyond any string's length keeps its sign and stays beyond when made a number. */
function clampIndex(v: Int64): number {
  if (typeof v === 'number') return v;
  return v < 0n ? -(2 ** 60) : 2 ** 60;
}

/** GETRANGE and SUBSTR: both ends inclusive, negative counts from the end, out-of-range clamped. */
function getrange(c: Client, argv: string[]): Reply {
  const startArg = int64Arg(argv[2]!);
  if (startArg === null) return NOT_INTEGER;
  const endArg = int64Arg(argv[3]!);
  if (endArg === null) return NOT_INTEGER;
  const v = readStringValue(c, argv[1]!);
  if (v === null) return '';
  if (v instanceof ErrorReply) return v;
  if (startArg < 0 && endArg < 0 && startArg > endArg) return '';
  const n = v.length;
  let start = clampIndex(startArg);
  let end = clampIndex(endArg);
  if (start < 0) start = Math.max(0, n + start);
  if (end < 0) end = Math.max(0, n + end);
  if (end >= n) end = n - 1;
  if (start > end || n === 0) return '';
  return v.slice(start, end + 1);
}

/**
 * SETRANGE: overwrites bytes from an offset, zero-padding a shorter string.
 * An empty value changes nothing (not even a missing key) and only reports
 * the length.
 */
function setrange(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const offsetArg = int64Arg(argv[2]!);
  if (offsetArg === null) return NOT_INTEGER;
  if (offsetArg < 0) return OFFSET_OUT_OF_RANGE;
  const patch = argv[3]!;
  const v = writeString(c, key);
  if (v instanceof ErrorReply) return v;
  if (patch.length === 0) return v === undefined ? 0 : v.length;
  const tooLong = checkStringLength(c, offsetArg, patch.length);
  if (tooLong) return tooLong;
  let o: StringObject;
  if (v === undefined) {
    o = new StringObject('', 'raw');
    c.db.add(key, o);
  } else {
    o = unshare(c, key, v);
  }
  // Within proto-max-bulk-len, so a safe integer.
  o.writeAt(Number(offsetArg), patch);
  modified(c, key);
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'setrange', key, c.db.id);
  return o.length;
}

export const stringByteCommands: Record<string, Handler> = {
  append,
  strlen,
  getrange,
  substr: getrange,
  setrange,
};
