import { ZSetValue } from '../keyspace/values.js';
import { formatDouble } from '../numbers/double.js';
import type { Client } from '../server/client.js';

/**
 * The sorted-set value operations every command shares (src/t_zset.c
 * zsetAdd, zsetConvert, zsetConvertToListpackIfNeeded): adding with the
 * ZADD flags, and the encoding rules.
 *
 * A ZSetValue always keeps a dict and a skip list; its `encoding` is what
 * Redis would use. The encoding shows through in three places besides
 * OBJECT ENCODING: a listpack stores an integral score as an integer, so
 * -0 becomes 0 on the way in; ZSCAN returns a listpack whole and prints its
 * scores as the listpack holds them; and lexicographic searches walk a
 * listpack from its ends instead of descending the skip list, which answers
 * differently when members are not in lexicographic order.
 */

// ZADD input flags (ZADD_IN_*).
export const ZADD_INCR = 1;
export const ZADD_NX = 2;
export const ZADD_XX = 4;
export const ZADD_GT = 8;
export const ZADD_LT = 16;

// zsetAdd outcome flags (ZADD_OUT_*).
export const ZADD_NOP = 1;
export const ZADD_NAN = 2;
export const ZADD_ADDED = 4;
export const ZADD_UPDATED = 8;

/** The score zsetAdd last stored or would have stored (its newscore output). */
export const zaddResult = { score: 0 };

/** A new sorted set for a first member of `firstMemberBytes`, encoded as ZADD creates it. */
export function createZset(c: Client, firstMemberBytes: number): ZSetValue {
  const cfg = c.server.config;
  const entries = cfg.getNumber('zset-max-listpack-entries');
  const value = cfg.getNumber('zset-max-listpack-value');
  return new ZSetValue(entries === 0 || value < firstMemberBytes ? 'skiplist' : 'listpack');
}

/** A listpack keeps integral scores as integers, where -0 is 0 (zzlInsertAt). */
function listpackScore(score: number): number {
  return score === 0 ? 0 : score;
}

/**
 * Adds or updates a member under the ZADD flags. Returns the outcome flags;
 * ZADD_NAN means the (incremented) score is NaN and nothing changed. The
 * score the member has or would have is left in zaddResult.score.
 */
export function zsetAdd(c: Client, z: ZSetValue, score: number, member: string, flags: number): number {
  if (score !== score) return ZADD_NAN;
  const cur = z.dict.get(member);
  if (cur !== undefined) {
    if (flags & ZADD_NX) return ZADD_NOP;
    if (flags & ZADD_INCR) {
      score += cur;
      if (score !== score) return ZADD_NAN;
    }
    if ((flags & ZADD_LT && score >= cur) || (flags & ZADD_GT && score <= cur)) return ZADD_NOP;
    zaddResult.score = score;
    if (score === cur) return 0;
    const stored = z.encoding === 'listpack' ? listpackScore(score) : score;
    z.list.updateScore(cur, member, stored);
    z.dict.set(member, stored);
    return ZADD_UPDATED;
  }
  if (flags & ZADD_XX) return ZADD_NOP;
  zaddResult.score = score;
  if (z.encoding === 'listpack') {
    const cfg = c.server.config;
    if (z.dict.size + 1 > cfg.getNumber('zset-max-listpack-entries') || member.length > cfg.getNumber('zset-max-listpack-value')) {
      z.encoding = 'skiplist';
    } else {
      score = listpackScore(score);
    }
  }
  z.list.insert(score, member);
  z.dict.set(member, score);
  return ZADD_ADDED;
}

/**
 * Converts a skip-list set to a listpack when it is small enough
 * (zsetConvertToListpackIfNeeded); `maxMemberBytes` is its longest member.
 */
export function convertToListpackIfNeeded(c: Client, z: ZSetValue, maxMemberBytes: number): void {
  if (z.encoding === 'listpack') return;
  const cfg = c.server.config;
  if (z.dict.size > cfg.getNumber('zset-max-listpack-entries') || maxMemberBytes > cfg.getNumber('zset-max-listpack-value')) return;
  z.encoding = 'listpack';
  for (const node of z.list) {
    if (Object.is(node.score, -0)) {
      node.score = 0;
      z.dict.set(node.member, 0);
    }
  }
}

/**
 * A score as a listpack stores and returns it (zzlInsertAt, d2string): an
 * integer when the double is integral and within +-2^62, else "%.17g".
 */
export function listpackScoreText(score: number): string {
  if (Number.isInteger(score) && score >= -4611686018427387904 && score <= 4611686018427387904) {
    return Number.isSafeInteger(score) ? String(score) : BigInt(score).toString();
  }
  return formatDouble(score);
}
