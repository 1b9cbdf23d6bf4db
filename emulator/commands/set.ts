import type { SetValue, Value } from '../keyspace/values.js';
import { ErrorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { WRONGTYPE } from '../server/errors.js';
import { modified, readTyped, writeTyped } from './lookup.js';
import { sdiff, sdiffstore, sinter, sintercard, sinterstore, smembers, sunion, sunionstore } from './set-algebra.js';
import { createSetFor, maxIntsetEntries, setAdd, setRemove } from './set-type.js';
import type { Handler } from '../server/command-table.js';

/**
 * The set commands (src/t_set.c). The set algebra (SINTER, SUNION, SDIFF and
 * their STORE and CARD forms, SMEMBERS) lives in set-algebra.ts, the random
 * ones (SPOP, SRANDMEMBER) in set-random.ts, SSCAN in set-scan.ts.
 */

function sadd(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  let s = writeTyped(c, key, 'set');
  if (s instanceof ErrorReply) return s;
  if (s === undefined) {
    // The first member decides the initial encoding (setTypeCreate).
    s = createSetFor(argv[2]!);
    c.db.add(key, s);
  }
  const max = maxIntsetEntries(c);
  let added = 0;
  for (let j = 2; j < argv.length; j++) if (setAdd(s, argv[j]!, max)) added++;
  if (added !== 0) {
    modified(c, key, added);
    notifyKeyspaceEvent(c.server, NOTIFY.SET, 'sadd', key, c.db.id);
  }
  return added;
}

function srem(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const s = writeTyped(c, key, 'set');
  if (s === undefined) return 0;
  if (s instanceof ErrorReply) return s;
  let deleted = 0;
  let keyRemoved = false;
  for (let j = 2; j < argv.length; j++) {
    if (!setRemove(s, argv[j]!)) continue;
    deleted++;
    // Redis stops at the member that empties the set: later arguments are
    // not counted even when they were members too (they cannot be).
    if (s.set.size === 0) {
      c.db.delete(key);
      keyRemoved = true;
      break;
    }
  }
  if (deleted !== 0) {
    modified(c, key, deleted);
    notifyKeyspaceEvent(c.server, NOTIFY.SET, 'srem', key, c.db.id);
    if (keyRemoved) notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  }
  return deleted;
}

function isSet(v: Value): v is SetValue {
  return typeof v !== 'string' && v.type === 'set';
}

function smove(c: Client, argv: string[]): Reply {
  const srcKey = argv[1]!;
  const dstKey = argv[2]!;
  const member = argv[3]!;
  const src = c.db.lookupWrite(srcKey);
  const dst = c.db.lookupWrite(dstKey);
  // A missing source answers 0 before the destination's type is looked at.
  if (src === undefined) return 0;
  if (!isSet(src) || (dst !== undefined && !isSet(dst))) return WRONGTYPE;
  if (src === dst) return src.set.has(member) ? 1 : 0;
  if (!setRemove(src, member)) return 0;
  notifyKeyspaceEvent(c.server, NOTIFY.SET, 'srem', srcKey, c.db.id);
  if (src.set.size === 0) {
    c.db.delete(srcKey);
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', srcKey, c.db.id);
  }
  let target = dst;
  if (target === undefined) {
    target = createSetFor(member);
    c.db.add(dstKey, target);
  }
  modified(c, srcKey);
  if (setAdd(target, member, maxIntsetEntries(c))) {
    modified(c, dstKey);
    notifyKeyspaceEvent(c.server, NOTIFY.SET, 'sadd', dstKey, c.db.id);
  }
  return 1;
}

function sismember(c: Client, argv: string[]): Reply {
  const s = readTyped(c, argv[1]!, 'set');
  if (s === undefined) return 0;
  if (s instanceof ErrorReply) return s;
  return s.set.has(argv[2]!) ? 1 : 0;
}

function smismember(c: Client, argv: string[]): Reply {
  // A missing key is an empty set: every answer is 0.
  const s = readTyped(c, argv[1]!, 'set');
  if (s instanceof ErrorReply) return s;
  const out: Reply[] = new Array(argv.length - 2);
  for (let j = 2; j < argv.length; j++) out[j - 2] = s !== undefined && s.set.has(argv[j]!) ? 1 : 0;
  return out;
}

function scard(c: Client, argv: string[]): Reply {
  const s = readTyped(c, argv[1]!, 'set');
  if (s === undefined) return 0;
  if (s instanceof ErrorReply) return s;
  return s.set.size;
}

export const setCommands: Record<string, Handler> = {
  sadd,
  srem,
  smove,
  sismember,
  smismember,
  scard,
  smembers,
  sinter,
  sintercard,
  sinterstore,
  sunion,
  sunionstore,
  sdiff,
  sdiffstore,
};
