import type { Database } from './database.js';
import type { Int64 } from '../numbers/int64.js';

/**
 * The databases keep expiry times as JavaScript numbers, which are exact up
 * to 2^53 ms (the year 287396). PEXPIREAT accepts any int64, and Redis
 * reports such a time back to the millisecond, so the exact value of an
 * expiry beyond that range is remembered here, keyed by the database's
 * expires map (a new map after FLUSHDB or SWAPDB makes old entries unreachable).
 */
const exactExpires = new WeakMap<Map<string, number>, Map<string, bigint>>();

/** Sets a key's expiry (setExpire), remembering it exactly when it is huge. */
export function setExpireExact(db: Database, key: string, whenMs: Int64): void {
  const n = Number(whenMs);
  db.setExpire(key, n);
  if (Number.isSafeInteger(n)) return;
  let side = exactExpires.get(db.expires);
  if (side === undefined) {
    side = new Map();
    exactExpires.set(db.expires, side);
  }
  side.set(key, BigInt(whenMs));
}

/** A key's expiry time in ms, exactly, or undefined when it has none (getExpire). */
export function getExpireExact(db: Database, key: string): Int64 | undefined {
  return db.expires.size === 0 ? undefined : expireIn(db.expires, key);
}

/** The same, from an expires table itself (a forked child reads the table it had at the fork). */
export function expireIn(expires: Map<string, number>, key: string): Int64 | undefined {
  const n = expires.get(key);
  if (n === undefined || Number.isSafeInteger(n)) return n;
  const exact = exactExpires.get(expires)?.get(key);
  return exact !== undefined && Number(exact) === n ? exact : BigInt(n);
}
