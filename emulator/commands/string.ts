import { stringOf } from '../keyspace/values.js';
import { addInt64, int64ToString, type Int64 } from '../numbers/int64.js';
import { ErrorReply, OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR, invalidExpireTime } from '../server/errors.js';
import { setExpireBy } from './set-expire.js';
import { deleteKey, modified } from './lookup.js';
import { isStringValue, readString } from './string-access.js';
import { stringByteCommands } from './string-bytes.js';
import { stringCounterCommands } from './string-counters.js';
import type { Handler } from '../server/command-table.js';

/**
 * The string commands (src/t_string.c): GET and the SET family here, the
 * counters in string-counters.ts, the byte-range commands in
 * string-bytes.ts and LCS in string-lcs.ts.
 *
 * A value written as given (SET, MSET, GETSET, APPEND to a new key) is
 * stored as the bare argument, whose derived encoding is what Redis's
 * tryObjectEncoding picks for it.
 */

export { readString };

function get(c: Client, argv: string[]): Reply {
  return readString(c, argv[1]!);
}

// SET and GETEX option flags (src/t_string.c).
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
 * conflicting combination is a syntax error; a repeated option is not.
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
 * The absolute expiry in ms, exactly, for an EX/PX/EXAT/PXAT argument, or
 * an error (getExpireMillisecondsOrReply). Where C would wrap around on
 * adding the current time, the sum is out of the int64 range here; both
 * are reported as an invalid expire time.
 */
function expireWhen(c: Client, arg: string, flags: number, commandName = c.cmd!.name): Int64 | ErrorReply {
  const v = int64Arg(arg);
  if (v === null) return NOT_INTEGER;
  const seconds = (flags & (EX | EXAT)) !== 0;
  if (v <= 0 || (seconds && v > 9223372036854775807n / 1000n)) return invalidExpireTime(commandName);
  let ms: Int64 = seconds ? (typeof v === 'number' && v <= 9007199254740 ? v * 1000 : BigInt(v) * 1000n) : v;
  if (flags & (EX | PX)) {
    const sum = addInt64(ms, c.server.nowMs);
    if (sum === null) return invalidExpireTime(commandName);
    ms = sum;
  }
  return ms;
}

/** Like expireWhen, as a plain number of ms (for other command groups). */
export function expireArgToMs(c: Client, arg: string, flags: number, commandName: string): number | Reply {
  const r = expireWhen(c, arg, flags, commandName);
  return r instanceof ErrorReply ? r : Number(r);
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
  let when: Int64 = 0;
  if (expire !== null) {
    const r = expireWhen(c, expire, flags);
    if (r instanceof ErrorReply) return r;
    when = r;
  }
  let getReply: Reply = null;
  if (flags & GET) {
    getReply = readString(c, key);
    if (getReply instanceof ErrorReply) return getReply;
  }
  if (flags & (NX | XX) || c.server.lfuAccess) {
    // Under LFU the lookup's access counts, and an overwrite keeps it.
    const found = c.db.lookupWrite(key) !== undefined;
    if ((flags & NX && found) || (flags & XX && !found)) return flags & GET ? getReply : abortReply;
  } else if (c.db.expires.size !== 0) {
    // The lookup only matters for its expiry of a stale key: setKey stamps
    // the LRU access time itself.
    c.db.expireIfNeeded(key, true);
  }
  c.db.setKey(key, value, (flags & KEEPTTL) !== 0);
  c.server.dirty++;
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'set', key, c.db.id);
  if (expire !== null) {
    setExpireBy(c, c.db, key, when);
    c.propagateArgv = ['SET', key, value, 'PXAT', int64ToString(when)];
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'expire', key, c.db.id);
  } else if (flags & GET) {
    // Replicas and the AOF get the command without its GET options.
    c.propagateArgv = argv.filter((a, j) => j < 3 || opt(a) !== 'get');
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

/**
 * GETEX: GET that may also set or remove the TTL. It is never propagated
 * as itself but as the change it made: PEXPIREAT, PERSIST, or DEL when an
 * absolute time already passed.
 */
function getex(c: Client, argv: string[]): Reply {
  const args = parseExtendedArgs(argv, 2, false);
  if (args === null) return SYNTAX_ERROR;
  const key = argv[1]!;
  const value = readString(c, key);
  if (value === null || value instanceof ErrorReply) return value;
  const { flags, expire } = args;
  if (expire === null) {
    if (flags & PERSIST && c.db.removeExpire(key)) {
      modified(c, key);
      c.propagateArgv = ['PERSIST', key];
      notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'persist', key, c.db.id);
    }
    return value;
  }
  const when = expireWhen(c, expire, flags);
  if (when instanceof ErrorReply) return when;
  // Only an absolute time can be in the past.
  if (flags & (EXAT | PXAT) && c.server.alreadyExpired(when)) {
    deleteKey(c, key);
    c.server.dirty++;
    c.propagateArgv = [c.server.config.getBool('lazyfree-lazy-expire') ? 'UNLINK' : 'DEL', key];
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  } else {
    setExpireBy(c, c.db, key, when);
    modified(c, key);
    c.propagateArgv = ['PEXPIREAT', key, int64ToString(when)];
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'expire', key, c.db.id);
  }
  return value;
}

function getdel(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const value = readString(c, key);
  if (value === null || value instanceof ErrorReply) return value;
  deleteKey(c, key);
  c.server.dirty++;
  c.propagateArgv = [c.server.config.getBool('lazyfree-lazy-user-del') ? 'UNLINK' : 'DEL', key];
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  return value;
}

function getset(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const old = readString(c, key);
  if (old instanceof ErrorReply) return old;
  c.db.setKey(key, argv[2]!);
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'set', key, c.db.id);
  c.server.dirty++;
  c.propagateArgv = ['SET', key, argv[2]!];
  return old;
}

/** MGET answers null for a key of another type rather than WRONGTYPE. */
function mget(c: Client, argv: string[]): Reply {
  const out: Reply[] = new Array<Reply>(argv.length - 1);
  for (let j = 1; j < argv.length; j++) {
    const v = c.db.lookupRead(argv[j]!);
    out[j - 1] = v !== undefined && isStringValue(v) ? stringOf(v) : null;
  }
  return out;
}

/** MSET and MSETNX (msetGenericCommand). */
function msetGeneric(c: Client, argv: string[], nx: boolean): Reply {
  if (argv.length % 2 === 0) return errorReply(`wrong number of arguments for '${c.cmd!.name}' command`);
  if (nx) {
    for (let j = 1; j < argv.length; j += 2) if (c.db.lookupWrite(argv[j]!) !== undefined) return 0;
  }
  for (let j = 1; j < argv.length; j += 2) {
    c.db.setKey(argv[j]!, argv[j + 1]!);
    notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'set', argv[j]!, c.db.id);
  }
  c.server.dirty += (argv.length - 1) / 2;
  return nx ? 1 : OK;
}

function mset(c: Client, argv: string[]): Reply {
  return msetGeneric(c, argv, false);
}

function msetnx(c: Client, argv: string[]): Reply {
  return msetGeneric(c, argv, true);
}

export const stringCommands: Record<string, Handler> = {
  get,
  set,
  setnx,
  setex,
  psetex,
  getex,
  getdel,
  getset,
  mget,
  mset,
  msetnx,
  ...stringCounterCommands,
  ...stringByteCommands,
};
