import { SetValue, isIntEncodable } from '../keyspace/values.js';
import { EMPTY_ARRAY, SetReply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { Random } from '../sim/random.js';

/**
 * The set type's operations (src/t_set.c setType*): membership with the
 * intset/hashtable encoding rules, the member order Redis replies in, and
 * uniform random members.
 *
 * Every change to the members of an existing set goes through setAdd and
 * setRemove, so that the random-access index below stays in step.
 */

/** The empty set reply: "*0" in RESP2, "~0" in RESP3 (shared.emptyset). */
export const EMPTY_SET = new SetReply(EMPTY_ARRAY);

/** Redis never lets an intset grow past 2^30 entries, whatever the config says (setTypeAdd). */
const INTSET_HARD_LIMIT = 1 << 30;

/** set-max-intset-entries as setTypeAdd applies it. Read once per command. */
export function maxIntsetEntries(c: Client): number {
  const n = c.server.config.getNumber('set-max-intset-entries');
  return n >= INTSET_HARD_LIMIT ? INTSET_HARD_LIMIT : n;
}

/**
 * A new, empty set in the encoding that can hold `first` (setTypeCreate):
 * an intset when it is a canonical int64, a hashtable otherwise.
 */
export function createSetFor(first: string): SetValue {
  return new SetValue(isIntEncodable(first) ? 'intset' : 'hashtable');
}

/**
 * Adds a member; returns whether it was new. An intset becomes a hashtable
 * when the member is not a canonical int64 or when a new member takes it
 * past `maxIntset` entries; nothing ever converts a set back.
 */
export function setAdd(s: SetValue, member: string, maxIntset: number): boolean {
  if (s.set.has(member)) return false;
  insert(s, member);
  if (s.encoding === 'intset' && (s.set.size > maxIntset || !isIntEncodable(member))) s.encoding = 'hashtable';
  return true;
}

/** Removes a member; returns whether it was there. The caller deletes an emptied key. */
export function setRemove(s: SetValue, member: string): boolean {
  if (!s.set.delete(member)) return false;
  const index = samplers.get(s);
  if (index !== undefined) index.remove(member);
  return true;
}

function insert(s: SetValue, member: string): void {
  s.set.add(member);
  const index = samplers.get(s);
  if (index !== undefined) index.add(member);
}

/**
 * The members in the order Redis iterates them: an intset is a sorted array
 * of integers, so its order is numeric; a hashtable's order is the
 * insertion order here (Redis's depends on a per-process hash seed, so no
 * client can rely on it).
 */
export function membersInOrder(s: SetValue): string[] {
  const out = Array.from(s.set);
  if (s.encoding === 'intset') out.sort(compareIntStrings);
  return out;
}

/**
 * Orders two canonical int64 strings numerically without converting them
 * (doubles lose precision past 2^53): the sign first, then the number of
 * digits, then the digits.
 */
export function compareIntStrings(a: string, b: string): number {
  const aNeg = a.charCodeAt(0) === 45;
  const bNeg = b.charCodeAt(0) === 45;
  if (aNeg !== bNeg) return aNeg ? -1 : 1;
  if (a === b) return 0;
  const smallerMagnitude = a.length !== b.length ? a.length < b.length : a < b;
  return smallerMagnitude !== aNeg ? -1 : 1;
}

// ---- uniform random members ----

/**
 * Below this size a random member is found by walking the set; above it an
 * index (an array of the members and each one's position) gives O(1) picks,
 * as Redis's intsetRandom and dictGetFairRandomKey are.
 */
const WALK_LIMIT = 32;

/** An array of a set's members for O(1) random picks, with O(1) swap-removal. */
class RandomIndex {
  readonly members: string[];
  private readonly pos = new Map<string, number>();

  constructor(s: SetValue) {
    this.members = Array.from(s.set);
    for (let i = 0; i < this.members.length; i++) this.pos.set(this.members[i]!, i);
  }

  add(member: string): void {
    this.pos.set(member, this.members.length);
    this.members.push(member);
  }

  remove(member: string): void {
    const i = this.pos.get(member);
    if (i === undefined) return;
    this.pos.delete(member);
    const last = this.members.pop()!;
    if (i < this.members.length) {
      this.members[i] = last;
      this.pos.set(last, i);
    }
  }
}

/** Built on the first random pick from a large set; dropped with the set. */
const samplers = new WeakMap<SetValue, RandomIndex>();

/** A uniformly chosen member of a non-empty set. */
export function randomMember(s: SetValue, random: Random): string {
  const n = s.set.size;
  if (n <= WALK_LIMIT) {
    let k = random.below(n);
    for (const m of s.set) if (k-- === 0) return m;
  }
  let index = samplers.get(s);
  // A set whose members were changed without setAdd/setRemove (a value built
  // by a loader, say) shows up as a size mismatch: rebuild the index then.
  if (index === undefined || index.members.length !== n) {
    index = new RandomIndex(s);
    samplers.set(s, index);
  }
  return index.members[random.below(n)]!;
}
