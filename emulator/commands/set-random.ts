import type { SetValue } from '../keyspace/values.js';
import { parseInt64 } from '../numbers/int64.js';
import { EMPTY_ARRAY, ErrorReply, SetReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { modified, readTyped, writeTyped } from './lookup.js';
import { unionOf } from './set-algebra.js';
import { EMPTY_SET, createSetFor, maxIntsetEntries, membersInOrder, randomMember, setAdd, setRemove } from './set-type.js';

/**
 * SPOP and SRANDMEMBER (src/t_set.c). Members are drawn uniformly with the
 * server's seeded generator. Where Redis's reply does not depend on chance
 * (the whole set is returned) the order is Redis's: numeric for an intset.
 */

const OUT_OF_RANGE_POSITIVE = errorReply('value is out of range, must be positive');
const SRANDMEMBER_RANGE = errorReply('value is out of range, value must between -9223372036854775807 and 9223372036854775807');

/**
 * A negative SRANDMEMBER count asks for that many picks, repeats allowed.
 * Redis would try to build any size of reply until memory runs out; the
 * emulator refuses replies beyond this many elements instead.
 */
export const MAX_RANDOM_REPLY_ELEMENTS = 1 << 24;
const REPLY_TOO_LARGE = errorReply(`reply too large: the emulator returns at most ${MAX_RANDOM_REPLY_ELEMENTS} random elements`);

/** SPOP turns to building the survivors anew when they are this many times fewer than the popped. */
const SPOP_MOVE_STRATEGY_MUL = 5;

/**
 * Propagates a list of removals as SREMs: all but the last are queued
 * directly, the last replaces the command's own argv, so that the whole
 * batch leaves as one unit (wrapped in MULTI/EXEC when more than one) and
 * SPOP itself is never propagated.
 */
function propagateRemovals(c: Client, key: string, members: readonly string[]): void {
  const last = members.length - 1;
  for (let i = 0; i < last; i++) c.server.propagate(c.db.id, ['SREM', key, members[i]!]);
  c.propagateArgv = ['SREM', key, members[last]!];
}

export function spop(c: Client, argv: string[]): Reply {
  if (argv.length === 3) return spopWithCount(c, argv);
  if (argv.length > 3) return SYNTAX_ERROR;
  const key = argv[1]!;
  const s = writeTyped(c, key, 'set');
  if (s === undefined) return null;
  if (s instanceof ErrorReply) return s;
  const member = randomMember(s, c.server.random);
  setRemove(s, member);
  notifyKeyspaceEvent(c.server, NOTIFY.SET, 'spop', key, c.db.id);
  c.propagateArgv = ['SREM', key, member];
  if (s.set.size === 0) {
    c.db.delete(key);
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  }
  modified(c, key);
  return member;
}

function spopWithCount(c: Client, argv: string[]): Reply {
  // The count is checked before the key (getPositiveLongFromObjectOrReply:
  // one message for anything that is not a non-negative integer).
  const parsed = parseInt64(argv[2]!);
  if (parsed === null || parsed < 0) return OUT_OF_RANGE_POSITIVE;
  const key = argv[1]!;
  const s = writeTyped(c, key, 'set');
  if (s === undefined) return EMPTY_SET;
  if (s instanceof ErrorReply) return s;
  if (parsed === 0) return EMPTY_SET;
  const size = s.set.size;
  notifyKeyspaceEvent(c.server, NOTIFY.SET, 'spop', key, c.db.id);

  if (parsed >= size) {
    // Everything goes: the reply is SUNION of the one set, and the command
    // propagates as a DEL.
    c.server.dirty += size;
    const all = unionOf([s], maxIntsetEntries(c));
    c.db.delete(key);
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
    c.propagateArgv = ['DEL', key];
    c.server.keyModified(c.db, key);
    return new SetReply(membersInOrder(all));
  }

  const count = Number(parsed);
  c.server.dirty += count;
  const remaining = size - count;
  let popped: string[];
  if (remaining * SPOP_MOVE_STRATEGY_MUL > count) {
    popped = new Array<string>(count);
    for (let i = 0; i < count; i++) {
      const m = randomMember(s, c.server.random);
      setRemove(s, m);
      popped[i] = m;
    }
  } else {
    // Few survivors: move them to a new set and return what is left of the
    // old one. The new set is created for its first member, so a hashtable
    // of integers can come out of this as an intset.
    const max = maxIntsetEntries(c);
    let kept: SetValue | null = null;
    for (let i = 0; i < remaining; i++) {
      const m = randomMember(s, c.server.random);
      kept ??= createSetFor(m);
      setAdd(kept, m, max);
      setRemove(s, m);
    }
    popped = membersInOrder(s);
    c.db.overwrite(key, kept!);
  }
  propagateRemovals(c, key, popped);
  c.server.keyModified(c.db, key);
  return new SetReply(popped);
}

export function srandmember(c: Client, argv: string[]): Reply {
  if (argv.length === 3) return srandmemberWithCount(c, argv);
  if (argv.length > 3) return SYNTAX_ERROR;
  const s = readTyped(c, argv[1]!, 'set');
  if (s === undefined) return null;
  if (s instanceof ErrorReply) return s;
  return randomMember(s, c.server.random);
}

/** SRANDMEMBER turns to removing random members from a copy when the count is this close to the size. */
const SRANDMEMBER_SUB_STRATEGY_MUL = 3;

function srandmemberWithCount(c: Client, argv: string[]): Reply {
  const l = parseInt64(argv[2]!);
  if (l === null) return NOT_INTEGER;
  if (l === -9223372036854775808n) return SRANDMEMBER_RANGE;
  const unique = l >= 0;
  const wanted = unique ? l : -l;
  const s = readTyped(c, argv[1]!, 'set');
  if (s === undefined) return EMPTY_ARRAY;
  if (s instanceof ErrorReply) return s;
  if (wanted === 0) return EMPTY_ARRAY;
  const size = s.set.size;
  const random = c.server.random;

  // Repeats allowed (or a single pick): independent draws.
  if (!unique || wanted === 1) {
    if (wanted > MAX_RANDOM_REPLY_ELEMENTS) return REPLY_TOO_LARGE;
    const n = Number(wanted);
    const out: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = randomMember(s, random);
    return out;
  }
  // At least the whole set: the whole set, in its own order.
  if (wanted >= size) return membersInOrder(s);

  const count = Number(wanted);
  if (count * SRANDMEMBER_SUB_STRATEGY_MUL > size) {
    // Close to the size: a partial Fisher-Yates shuffle of a copy.
    const all = Array.from(s.set);
    for (let i = 0; i < count; i++) {
      const j = i + random.below(size - i);
      const t = all[i]!;
      all[i] = all[j]!;
      all[j] = t;
    }
    all.length = count;
    return all;
  }
  // Far below the size: draw until enough distinct members came up.
  const picked = new Set<string>();
  while (picked.size < count) picked.add(randomMember(s, random));
  return Array.from(picked);
}
