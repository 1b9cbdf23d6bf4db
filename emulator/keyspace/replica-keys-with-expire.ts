import type { Database } from './database.js';

/**
 * The keys a client gave a TTL on a writable replica (`replica-read-only
 * no`), Redis 7.0's slaveKeysWithExpire (src/expire.c). A replica never
 * expires its primary's keys: the primary's DEL does. But the primary knows
 * nothing of a key written on the replica itself, so the replica remembers
 * such keys, by name and by the databases they were set in, and its cron
 * deletes them once their time has passed (expireSlaveKeys).
 */
export class ReplicaKeysWithExpire {
  /** Key name -> the ids of the databases it was given a TTL in (Redis keeps a 64-bit map of them). */
  private readonly keys = new Map<string, Set<number>>();
  /** Where the next cycle resumes: Redis samples at random, this walks on from the last key it saw. */
  private cursor: Iterator<[string, Set<number>]> | null = null;

  /** How many key names are remembered (INFO stats slave_expires_tracked_keys). */
  get size(): number {
    return this.keys.size;
  }

  /** rememberSlaveKeyWithExpire: databases past 63 are not tracked, as in Redis. */
  remember(dbId: number, key: string): void {
    if (dbId > 63) return;
    let dbIds = this.keys.get(key);
    if (dbIds === undefined) {
      dbIds = new Set();
      this.keys.set(key, dbIds);
    }
    dbIds.add(dbId);
  }

  /**
   * flushSlaveKeysWithExpireList: all data is gone (FLUSHALL, a full sync's
   * load), and keys of the same names from the primary must not be expired
   * here.
   */
  flush(): void {
    this.keys.clear();
    this.cursor = null;
  }

  /**
   * expireSlaveKeys, run by the replica's cron in place of the active
   * expiry cycle: check remembered keys, delete those whose time has passed
   * (as an expiry: counted, notified, written to the AOF), forget those that
   * no longer have a TTL, and stop after finding more than three that are
   * still to expire, or once every remembered key has been looked at.
   */
  expire(dbs: readonly Database[]): void {
    let still = 0;
    for (let seen = this.keys.size; seen > 0 && this.keys.size > 0; seen--) {
      let next = (this.cursor ??= this.keys.entries()).next();
      if (next.done) {
        this.cursor = this.keys.entries();
        next = this.cursor.next();
        if (next.done) break;
      }
      const [key, dbIds] = next.value;
      for (const id of dbIds) {
        const db = dbs[id];
        // expireIfNeeded forced as for a write: a replica deletes only then.
        if (db === undefined || !db.expires.has(key) || db.expireIfNeeded(key, true)) {
          dbIds.delete(id);
        } else {
          still++;
        }
      }
      if (dbIds.size === 0) this.keys.delete(key);
      if (still > 3) break;
    }
  }
}
