import { StringObject, stringOf, type Value } from '../keyspace/values.js';
import { addInt64, parseInt64 } from '../numbers/int64.js';
import { OK, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { int64Arg, opt } from './args.js';
import { NOT_INTEGER, OVERFLOW, SYNTAX_ERROR, WRONGTYPE, invalidExpireTime } from './errors.js';
import type { Handler } from './table.js';

/**
 * The string commands (src/t_string.c).
 */

/** The string at key for reading: its bytes, null when missing, or WRONGTYPE. */
export function readString(c: Client, key: string): string | null | typeof WRONGTYPE {
  const v = c.db.lookupRead(key);
  if (v === undefined) return null;
  if (typeof v === 'string') return v;
  return v.type === 'string' ? v.s : WRONGTYPE;
}

function isStringValue(v: Value): v is string | StringObject {
  return typeof v === 'string' || v.type === 'string';
}

function get(c: Client, argv: string[]): Reply {
  const v = c.db.lookupRead(argv[1]!);
  if (v === undefined) return null;
  if (typeof v === 'string') return v;
  return v.type === 'string' ? v.s : WRONGTYPE;
}

// SET option flags (src/t_string.c).
const NX = 1;
const XX = 2;
const EX = 4;
const PX = 8;
const KEEPTTL = 16;
const GET = 32;
const EXAT = 64;
const PXAT = 128;
const PERSIST = 256;
const ANY_EXPIRE = EX | PX | EXAT | PXAT;

interface ExtendedArgs {
  flags: number;
  expire: string | null;
}

/**
 * SET's and GETEX's options (parseExtendedStringArgumentsOrReply): every
 * conflicting combination is a syntax error.
 */
export function parseExtendedArgs(argv: string[], start: number, forSet: boolean): ExtendedArgs | null {
  let flags = 0;
  let expire: string | null = null;
  for (let j = start; j < argv.length; j++) {
    const o = opt(argv[j]!);
    const hasNext = j < argv.length - 1;
    if (o === 'nx' && forSet && !(flags & XX)) flags |= NX;
    else if (o === 'xx' && forSet && !(flags & NX)) flags |= XX;
    else if (o === 'get' && forSet) flags |= GET;
    else if (o === 'keepttl' && forSet && !(flags & (PERSIST | ANY_EXPIRE))) flags |= KEEPTTL;
    else if (o === 'persist' && !forSet && !(flags & (ANY_EXPIRE | KEEPTTL))) flags |= PERSIST;
    else if (o === 'ex' && hasNext && !(flags & (KEEPTTL | PERSIST | EXAT | PX | PXAT))) {
      flags |= EX;
      expire = argv[++j]!;
    } else if (o === 'px' && hasNext && !(flags & (KEEPTTL | PERSIST | EX | EXAT | PXAT))) {
      flags |= PX;
      expire = argv[++j]!;
    } else if (o === 'exat' && hasNext && !(flags & (KEEPTTL | PERSIST | EX | PX | PXAT))) {
      flags |= EXAT;
      expire = argv[++j]!;
    } else if (o === 'pxat' && hasNext && !(flags & (KEEPTTL | PERSIST | EX | EXAT | PX))) {
      flags |= PXAT;
      expire = argv[++j]!;
    } else {
      return null;
    }
  }
  return { flags, expire };
}

/**
 * The absolute expiry in ms for an EX/PX/EXAT/PXAT argument, or an error
 * (getExpireMillisecondsOrReply).
 */
export function expireArgToMs(c: Client, arg: string, flags: number, commandName: string): number | Reply {
  const v = int64Arg(arg);
  if (v === null) return NOT_INTEGER;
  const seconds = (flags & (EX | EXAT)) !== 0;
  if (v <= 0 || (seconds && BigInt(v) > 9223372036854775807n / 1000n)) return invalidExpireTime(commandName);
  let ms: bigint | number = seconds ? BigInt(v) * 1000n : v;
  if (flags & (EX | PX)) {
    const sum = addInt64(ms, c.server.nowMs);
    if (sum === null) return invalidExpireTime(commandName); // wraps negative in C
    ms = sum;
  }
  const n = Number(ms);
  if (n <= 0) return invalidExpireTime(commandName);
  return n;
}

/** The common body of SET, SETNX, SETEX and PSETEX (setGenericCommand). */
function setGeneric(
  c: Client,
  argv: string[],
  flags: number,
  key: string,
  value: string,
  expire: string | null,
  okReply: Reply,
  abortReply: Reply,
): Reply {
  let whenMs = 0;
  if (expire !== null) {
    const r = expireArgToMs(c, expire, flags, c.cmd!.name);
    if (typeof r !== 'number') return r;
    whenMs = r;
  }
  let getReply: Reply = null;
  if (flags & GET) {
    const old = c.db.lookupRead(key);
    if (old !== undefined) {
      if (!isStringValue(old)) return WRONGTYPE;
      getReply = stringOf(old);
    }
  }
  const found = c.db.lookupWrite(key) !== undefined;
  if ((flags & NX && found) || (flags & XX && !found)) return flags & GET ? getReply : abortReply;
  c.db.setKey(key, value, (flags & KEEPTTL) !== 0);
  c.server.dirty++;
  if (expire !== null) {
    c.db.setExpire(key, whenMs);
    c.propagateArgv = ['SET', key, value, 'PXAT', String(whenMs)];
  } else if (flags & GET) {
    // Propagate without the GET options.
    c.propagateArgv = argv.filter((a, j) => j < 3 || opt(a) !== 'get' || a.length !== 3);
  }
  return flags & GET ? getReply : okReply;
}

function set(c: Client, argv: string[]): Reply {
  const args = parseExtendedArgs(argv, 3, true);
  if (args === null) return SYNTAX_ERROR;
  return setGeneric(c, argv, args.flags, argv[1]!, argv[2]!, args.expire, OK, null);
}

function setnx(c: Client, argv: string[]): Reply {
  return setGeneric(c, argv, NX, argv[1]!, argv[2]!, null, 1, 0);
}

function setex(c: Client, argv: string[]): Reply {
  return setGeneric(c, argv, EX, argv[1]!, argv[3]!, argv[2]!, OK, null);
}

function psetex(c: Client, argv: string[]): Reply {
  return setGeneric(c, argv, PX, argv[1]!, argv[3]!, argv[2]!, OK, null);
}

/** INCR, DECR, INCRBY, DECRBY (incrDecrCommand). */
function incrDecr(c: Client, key: string, by: number | bigint): Reply {
  const v = c.db.lookupWrite(key);
  let cur: number | bigint = 0;
  if (v !== undefined) {
    if (!isStringValue(v)) return WRONGTYPE;
    const n = parseInt64(stringOf(v));
    if (n === null) return NOT_INTEGER;
    cur = n;
  }
  const next = addInt64(cur, by);
  if (next === null) return OVERFLOW;
  const s = String(next);
  if (v === undefined) c.db.add(key, s);
  else c.db.overwrite(key, s);
  c.db.access.set(key, c.server.lruClock);
  c.server.keyModified(c.db, key);
  c.server.dirty++;
  return next;
}

function incr(c: Client, argv: string[]): Reply {
  return incrDecr(c, argv[1]!, 1);
}

function decr(c: Client, argv: string[]): Reply {
  return incrDecr(c, argv[1]!, -1);
}

export const stringCommands: Record<string, Handler> = {
  get,
  set,
  setnx,
  setex,
  psetex,
  incr,
  decr,
};
