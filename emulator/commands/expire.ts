import { getExpireExact } from '../keyspace/expire-exact.js';
import { setExpireBy } from './set-expire.js';
import { INT64_MAX, INT64_MIN, normalize } from '../numbers/int64.js';
import { errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg, opt } from './args.js';
import { NOT_INTEGER, invalidExpireTime } from '../server/errors.js';
import { modified } from './lookup.js';
import type { Handler } from '../server/command-table.js';
import { cString } from '../numbers/c-string.js';

/**
 * EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL, EXPIRETIME, PEXPIRETIME
 * and PERSIST (src/expire.c).
 */

// ---- EXPIRE and friends ----

const EXPIRE_NX = 1;
const EXPIRE_XX = 2;
const EXPIRE_GT = 4;
const EXPIRE_LT = 8;

/** The NX/XX/GT/LT flags after the time, or an error (parseExtendedExpireArgumentsOrReply). */
function parseExpireFlags(argv: string[]): number | Reply {
  let flags = 0;
  for (let j = 3; j < argv.length; j++) {
    const o = opt(argv[j]!);
    if (o === 'nx') flags |= EXPIRE_NX;
    else if (o === 'xx') flags |= EXPIRE_XX;
    else if (o === 'gt') flags |= EXPIRE_GT;
    else if (o === 'lt') flags |= EXPIRE_LT;
    else return errorReply(`Unsupported option ${cString(argv[j]!)}`);
  }
  if (flags & EXPIRE_NX && flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT)) {
    return errorReply('NX and XX, GT or LT options at the same time are not compatible');
  }
  if (flags & EXPIRE_GT && flags & EXPIRE_LT) return errorReply('GT and LT options at the same time are not compatible');
  return flags;
}

/**
 * The common body of the four EXPIRE commands (expireGenericCommand).
 * `relative` adds the current time; `seconds` scales the argument.
 */
function expireGeneric(c: Client, argv: string[], relative: boolean, seconds: boolean): Reply {
  const flags = parseExpireFlags(argv);
  if (typeof flags !== 'number') return flags;
  const arg = int64Arg(argv[2]!);
  if (arg === null) return NOT_INTEGER;
  const name = c.cmd!.name;
  let when = BigInt(arg);
  if (seconds) {
    if (when > INT64_MAX / 1000n || when < INT64_MIN / 1000n) return invalidExpireTime(name);
    when *= 1000n;
  }
  const base = relative ? BigInt(c.server.nowMs) : 0n;
  if (when > INT64_MAX - base) return invalidExpireTime(name);
  when += base;

  const key = argv[1]!;
  const db = c.db;
  if (db.lookupWrite(key) === undefined) return 0;

  if (flags !== 0) {
    const current = getExpireExact(db, key);
    if (flags & EXPIRE_NX && current !== undefined) return 0;
    if (flags & EXPIRE_XX && current === undefined) return 0;
    // A key without a TTL counts as expiring never: GT always fails, LT always passes.
    if (flags & EXPIRE_GT && (current === undefined || when <= BigInt(current))) return 0;
    if (flags & EXPIRE_LT && current !== undefined && when >= BigInt(current)) return 0;
  }

  // A time already past deletes the key, except where the key must wait (a replica, loading).
  if (c.server.alreadyExpired(when)) {
    db.delete(key);
    modified(c, key);
    c.propagateArgv = [c.server.config.get('lazyfree-lazy-expire') === 'yes' ? 'UNLINK' : 'DEL', key];
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
    return 1;
  }
  setExpireBy(c, db, key, normalize(when));
  modified(c, key);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'expire', key, c.db.id);
  // Propagated as PEXPIREAT with an absolute time in ms, options kept.
  if (relative || seconds) {
    const rewritten = argv.slice();
    rewritten[0] = 'PEXPIREAT';
    rewritten[2] = when.toString();
    c.propagateArgv = rewritten;
  }
  return 1;
}

function expire(c: Client, argv: string[]): Reply {
  return expireGeneric(c, argv, true, true);
}

function pexpire(c: Client, argv: string[]): Reply {
  return expireGeneric(c, argv, true, false);
}

function expireat(c: Client, argv: string[]): Reply {
  return expireGeneric(c, argv, false, true);
}

function pexpireat(c: Client, argv: string[]): Reply {
  return expireGeneric(c, argv, false, false);
}

// ---- TTL and friends ----

/**
 * TTL, PTTL, EXPIRETIME, PEXPIRETIME (ttlGenericCommand): -2 for a missing
 * key, -1 for a key without a TTL, otherwise the time left (or the absolute
 * time), never negative; seconds are rounded to the nearest.
 */
function ttlGeneric(c: Client, key: string, inMs: boolean, absolute: boolean): Reply {
  const db = c.db;
  if (db.lookupNoTouch(key, true) === undefined) return -2;
  const when = getExpireExact(db, key);
  if (when === undefined) return -1;
  if (typeof when === 'number') {
    let ttl = absolute ? when : when - c.server.nowMs;
    if (ttl < 0) ttl = 0;
    return inMs ? ttl : Math.floor((ttl + 500) / 1000);
  }
  let ttl = absolute ? when : when - BigInt(c.server.nowMs);
  if (ttl < 0n) ttl = 0n;
  return normalize(inMs ? ttl : (ttl + 500n) / 1000n);
}

function ttl(c: Client, argv: string[]): Reply {
  return ttlGeneric(c, argv[1]!, false, false);
}

function pttl(c: Client, argv: string[]): Reply {
  return ttlGeneric(c, argv[1]!, true, false);
}

function expiretime(c: Client, argv: string[]): Reply {
  return ttlGeneric(c, argv[1]!, false, true);
}

function pexpiretime(c: Client, argv: string[]): Reply {
  return ttlGeneric(c, argv[1]!, true, true);
}

function persist(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  if (c.db.lookupWrite(key) === undefined) return 0;
  if (!c.db.removeExpire(key)) return 0;
  modified(c, key);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'persist', key, c.db.id);
  return 1;
}

export const expireCommands: Record<string, Handler> = {
  expire,
  pexpire,
  expireat,
  pexpireat,
  ttl,
  pttl,
  expiretime,
  pexpiretime,
  persist,
};
