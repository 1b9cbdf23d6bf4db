import { SetValue, type Value } from '../keyspace/values.js';
import { parseInt64 } from '../numbers/int64.js';
import { SetReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { opt } from './args.js';
import { SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import { modified } from './lookup.js';
import { EMPTY_SET, maxIntsetEntries, membersInOrder, setAdd, setRemove } from './set-type.js';

/**
 * SINTER, SUNION, SDIFF, their STORE forms, SINTERCARD and SMEMBERS (which
 * Redis serves with SINTER of one key), after src/t_set.c.
 *
 * Every result is built the way Redis builds it: members added one by one
 * to a new intset, which turns into a hashtable at the first non-integer or
 * past set-max-intset-entries. The result's encoding decides both the
 * encoding a STORE leaves behind and the reply order (numeric for an
 * intset), whatever the sources' encodings were.
 */

function isSet(v: Value): v is SetValue {
  return typeof v !== 'string' && v.type === 'set';
}

/**
 * Stores a computed set at dstKey under the command's event
 * ("sinterstore", ...), or deletes dstKey when it is empty; replies the size.
 */
function store(c: Client, dstKey: string, result: SetValue, event: string): Reply {
  const n = result.set.size;
  if (n === 0) {
    deleteDestination(c, dstKey);
    return 0;
  }
  // setKey looks the key up for writing first, so an expired destination
  // is expired (and counted) before it is replaced.
  c.db.lookupWrite(dstKey);
  c.db.setKey(dstKey, result);
  notifyKeyspaceEvent(c.server, NOTIFY.SET, event, dstKey, c.db.id);
  c.server.dirty++;
  return n;
}

/** An empty result removes the destination, if there was one. */
function deleteDestination(c: Client, dstKey: string): void {
  if (!c.db.delete(dstKey)) return;
  modified(c, dstKey);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', dstKey, c.db.id);
}

/**
 * The intersection of the sets at argv[from..to) (sinterGenericCommand).
 * Every key is looked up (and type-checked) before anything else, so a
 * missing key followed by a key of the wrong type is still WRONGTYPE.
 */
function sinterGeneric(c: Client, argv: string[], from: number, to: number, dstKey: string | null, cardinalityOnly: boolean, limit: number): Reply {
  const sets: SetValue[] = [];
  let empty = false;
  for (let j = from; j < to; j++) {
    const v = c.db.lookupRead(argv[j]!);
    if (v === undefined) {
      empty = true;
      continue;
    }
    if (!isSet(v)) return WRONGTYPE;
    sets.push(v);
  }
  if (empty) {
    if (dstKey !== null) {
      deleteDestination(c, dstKey);
      return 0;
    }
    return cardinalityOnly ? 0 : EMPTY_SET;
  }
  // Smallest first. Redis uses qsort, which glibc implements as a stable
  // merge sort, so sets of equal size keep their argument order, and the
  // first of them decides the reply order.
  if (sets.length > 1) sets.sort((a, b) => a.set.size - b.set.size);
  const first = sets[0]!;
  const inAll = (m: string): boolean => {
    for (let j = 1; j < sets.length; j++) {
      const s = sets[j]!;
      if (s !== first && !s.set.has(m)) return false;
    }
    return true;
  };

  if (cardinalityOnly) {
    let n = 0;
    for (const m of first.set) {
      if (!inAll(m)) continue;
      if (++n === limit) break;
    }
    return n;
  }
  if (dstKey !== null) {
    const result = new SetValue('intset');
    const max = maxIntsetEntries(c);
    for (const m of first.set) if (inAll(m)) setAdd(result, m, max);
    return store(c, dstKey, result, 'sinterstore');
  }
  const members = membersInOrder(first);
  if (sets.length === 1) return new SetReply(members);
  const out: string[] = [];
  for (const m of members) if (inAll(m)) out.push(m);
  return new SetReply(out);
}

/** A new set holding every member of `sets` (nulls are missing keys), built as SUNION builds it. */
export function unionOf(sets: ReadonlyArray<SetValue | null>, maxIntset: number): SetValue {
  const result = new SetValue('intset');
  for (const s of sets) {
    if (s === null) continue;
    for (const m of s.set) setAdd(result, m, maxIntset);
  }
  return result;
}

/**
 * The members of sets[0] that no later set holds. Which of Redis's two
 * algorithms runs matters beyond speed: the second copies the whole first
 * set into the result before removing, so the result may pass
 * set-max-intset-entries on the way and stay a hashtable.
 */
function differenceOf(sets: Array<SetValue | null>, maxIntset: number): SetValue {
  const result = new SetValue('intset');
  const first = sets[0];
  if (first === null || first === undefined) return result;
  // Redis's cost estimate: N*M/2 for checking each member of the first set
  // against every set, against the total size for copy-then-remove.
  let oneWork = 0;
  let twoWork = 0;
  for (const s of sets) {
    if (s === null) continue;
    oneWork += first.set.size;
    twoWork += s.set.size;
  }
  oneWork = Math.floor(oneWork / 2);
  if (oneWork <= twoWork) {
    // Larger sets first: a member is more likely to be found early.
    const others = sets.slice(1).filter((s): s is SetValue => s !== null);
    others.sort((a, b) => b.set.size - a.set.size);
    outer: for (const m of first.set) {
      for (const s of others) if (s.set.has(m)) continue outer;
      setAdd(result, m, maxIntset);
    }
    return result;
  }
  for (const m of first.set) setAdd(result, m, maxIntset);
  for (let j = 1; j < sets.length && result.set.size !== 0; j++) {
    const s = sets[j];
    if (s === null || s === undefined) continue;
    for (const m of s.set) setRemove(result, m);
  }
  return result;
}

/** SUNION, SDIFF and their STORE forms (sunionDiffGenericCommand). */
function sunionDiffGeneric(c: Client, argv: string[], from: number, dstKey: string | null, diff: boolean): Reply {
  const sets: Array<SetValue | null> = [];
  let sameSet = false;
  for (let j = from; j < argv.length; j++) {
    const v = c.db.lookupRead(argv[j]!);
    if (v === undefined) {
      sets.push(null);
      continue;
    }
    if (!isSet(v)) return WRONGTYPE;
    if (sets.length > 0 && sets[0] === v) sameSet = true;
    sets.push(v);
  }
  const max = maxIntsetEntries(c);
  let result: SetValue;
  if (!diff) result = unionOf(sets, max);
  // A set minus itself is empty.
  else if (sameSet) result = new SetValue('intset');
  else result = differenceOf(sets, max);
  if (dstKey !== null) return store(c, dstKey, result, diff ? 'sdiffstore' : 'sunionstore');
  return result.set.size === 0 ? EMPTY_SET : new SetReply(membersInOrder(result));
}

export function smembers(c: Client, argv: string[]): Reply {
  return sinterGeneric(c, argv, 1, 2, null, false, 0);
}

export function sinter(c: Client, argv: string[]): Reply {
  return sinterGeneric(c, argv, 1, argv.length, null, false, 0);
}

export function sinterstore(c: Client, argv: string[]): Reply {
  return sinterGeneric(c, argv, 2, argv.length, argv[1]!, false, 0);
}

/** SINTERCARD numkeys key [key ...] [LIMIT limit] */
export function sintercard(c: Client, argv: string[]): Reply {
  const numkeys = parseInt64(argv[1]!);
  if (numkeys === null || numkeys < 1) return errorReply('numkeys should be greater than 0');
  if (numkeys > argv.length - 2) return errorReply("Number of keys can't be greater than number of args");
  const end = 2 + Number(numkeys);
  let limit = 0;
  for (let j = end; j < argv.length; j++) {
    if (opt(argv[j]!) === 'limit' && j < argv.length - 1) {
      const l = parseInt64(argv[++j]!);
      if (l === null || l < 0) return errorReply("LIMIT can't be negative");
      limit = typeof l === 'bigint' ? Number.MAX_SAFE_INTEGER : l;
    } else {
      return SYNTAX_ERROR;
    }
  }
  return sinterGeneric(c, argv, 2, end, null, true, limit);
}

export function sunion(c: Client, argv: string[]): Reply {
  return sunionDiffGeneric(c, argv, 1, null, false);
}

export function sunionstore(c: Client, argv: string[]): Reply {
  return sunionDiffGeneric(c, argv, 2, argv[1]!, false);
}

export function sdiff(c: Client, argv: string[]): Reply {
  return sunionDiffGeneric(c, argv, 1, null, true);
}

export function sdiffstore(c: Client, argv: string[]): Reply {
  return sunionDiffGeneric(c, argv, 2, argv[1]!, true);
}
