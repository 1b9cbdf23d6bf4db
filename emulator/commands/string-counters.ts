import { stringOf } from '../keyspace/values.js';
import { INT64_MIN, addInt64, int64ToString, parseInt64, type Int64 } from '../numbers/int64.js';
import { addLongDouble, formatLongDoubleHuman, fromInteger, isInfinite, parseLongDouble } from '../numbers/long-double.js';
import { ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg } from './args.js';
import { NOT_FLOAT, NOT_INTEGER, OVERFLOW } from '../server/errors.js';
import { modified } from './lookup.js';
import { embstrOrRaw, writeString } from './string-access.js';
import type { Handler } from '../server/command-table.js';

/**
 * The string counters: INCR, DECR, INCRBY, DECRBY (int64) and INCRBYFLOAT
 * (x87 long double), see src/t_string.c. A missing key counts as 0 and the
 * key's TTL is kept.
 */

const DECREMENT_OVERFLOW = errorReply('decrement would overflow');
const NAN_OR_INFINITY = errorReply('increment would produce NaN or Infinity');
const LONG_DOUBLE_ZERO = fromInteger(0);

/**
 * incrDecrCommand. The result is always int-encoded in Redis, which is the
 * encoding a bare canonical integer string reports.
 */
function incrDecr(c: Client, key: string, by: Int64): Reply {
  const v = writeString(c, key);
  if (v instanceof ErrorReply) return v;
  let cur: Int64 = 0;
  if (v !== undefined) {
    const n = parseInt64(stringOf(v));
    if (n === null) return NOT_INTEGER;
    cur = n;
  }
  const next = addInt64(cur, by);
  if (next === null) return OVERFLOW;
  const s = int64ToString(next);
  if (v === undefined) c.db.add(key, s);
  else c.db.overwrite(key, s);
  modified(c, key);
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'incrby', key, c.db.id);
  return next;
}

function incr(c: Client, argv: string[]): Reply {
  return incrDecr(c, argv[1]!, 1);
}

function decr(c: Client, argv: string[]): Reply {
  return incrDecr(c, argv[1]!, -1);
}

function incrby(c: Client, argv: string[]): Reply {
  const by = int64Arg(argv[2]!);
  if (by === null) return NOT_INTEGER;
  return incrDecr(c, argv[1]!, by);
}

function decrby(c: Client, argv: string[]): Reply {
  const by = int64Arg(argv[2]!);
  if (by === null) return NOT_INTEGER;
  // The one decrement that cannot be negated into an increment.
  if (by === INT64_MIN) return DECREMENT_OVERFLOW;
  return incrDecr(c, argv[1]!, typeof by === 'number' ? 0 - by : -by);
}

/**
 * INCRBYFLOAT. The result is created from its text (embstr up to 44 bytes,
 * never int) and propagated as SET key result KEEPTTL, so that replicas and
 * the AOF do not redo the floating point arithmetic.
 */
function incrbyfloat(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const v = writeString(c, key);
  if (v instanceof ErrorReply) return v;
  const cur = v === undefined ? LONG_DOUBLE_ZERO : parseLongDouble(stringOf(v));
  if (cur === null) return NOT_FLOAT;
  const by = parseLongDouble(argv[2]!);
  if (by === null) return NOT_FLOAT;
  const sum = addLongDouble(cur, by);
  if (isInfinite(sum)) return NAN_OR_INFINITY;
  const s = formatLongDoubleHuman(sum);
  if (v === undefined) c.db.add(key, embstrOrRaw(s));
  else c.db.overwrite(key, embstrOrRaw(s));
  modified(c, key);
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'incrbyfloat', key, c.db.id);
  c.propagateArgv = ['SET', key, s, 'KEEPTTL'];
  return s;
}

export const stringCounterCommands: Record<string, Handler> = {
  incr,
  decr,
  incrby,
  decrby,
  incrbyfloat,
};
