import type { Database } from './database.js';

/** What the active expiry cycle needs from the server. */
export interface ExpireCycleHost {
  readonly dbs: readonly Database[];
  readonly nowMs: number;
  readonly config: { getNumber(name: string): number };
  readonly stats: { expiredStalePerc: number; expiredTimeCapReachedCount: number };
  /** The database the next cycle starts with (Redis's static current_db). */
  expireCycleNextDb: number;
}

const KEYS_PER_LOOP = 20;
const ACCEPTABLE_STALE_PERC = 10;
const SLOW_TIME_PERC = 25;
const DBS_PER_CALL = 16;
/** The cost model of one sampled key, in microseconds of server CPU. */
const SAMPLE_COST_US = 1;

/**
 * Redis's slow active expiry cycle (src/expire.c activeExpireCycle), run by
 * serverCron: sample keys that have a TTL, delete the expired ones, and keep
 * going in a database while more than 10% of a sample was expired, within a
 * time budget of 25% of a cron period (in the CPU cost model). Returns the
 * number of keys expired.
 */
export function activeExpireCycle(host: ExpireCycleHost): number {
  const effort = host.config.getNumber('active-expire-effort') - 1;
  const keysPerLoop = KEYS_PER_LOOP + (KEYS_PER_LOOP / 4) * effort;
  const acceptableStale = ACCEPTABLE_STALE_PERC - effort;
  const hz = Math.max(1, host.config.getNumber('hz'));
  const timeLimitUs = Math.max(1, Math.floor(((SLOW_TIME_PERC + 2 * effort) * 1_000_000) / hz / 100));
  const now = host.nowMs;
  let spentUs = 0;
  let totalSampled = 0;
  let totalExpired = 0;
  let capped = false;
  const dbs = host.dbs;
  const perCall = Math.min(DBS_PER_CALL, dbs.length);
  let visited = 0;
  for (let j = 0; j < perCall && !capped; j++) {
    const db = dbs[(host.expireCycleNextDb + j) % dbs.length]!;
    visited++;
    let iteration = 0;
    for (;;) {
      iteration++;
      const num = db.expires.size;
      if (num === 0) {
        db.avgTtlMs = 0;
        break;
      }
      const want = Math.min(num, keysPerLoop);
      let sampled = 0;
      let expired = 0;
      let ttlSum = 0;
      let ttlSamples = 0;
      let it = db.expireCursor ?? db.expires.entries();
      while (sampled < want) {
        let next = it.next();
        if (next.done) {
          it = db.expires.entries();
          next = it.next();
          if (next.done) break;
        }
        const [key, when] = next.value;
        sampled++;
        const ttl = when - now;
        if (ttl < 0) {
          if (db.expireIfNeeded(key)) expired++;
        } else if (ttl > 0) {
          ttlSum += ttl;
          ttlSamples++;
        }
      }
      db.expireCursor = it;
      totalSampled += sampled;
      totalExpired += expired;
      spentUs += sampled * SAMPLE_COST_US;
      if (ttlSamples) {
        const avg = Math.floor(ttlSum / ttlSamples);
        if (db.avgTtlMs === 0) db.avgTtlMs = avg;
        db.avgTtlMs = Math.floor(db.avgTtlMs / 50) * 49 + Math.floor(avg / 50);
      }
      if ((iteration & 0xf) === 0 && spentUs > timeLimitUs) {
        capped = true;
        host.stats.expiredTimeCapReachedCount++;
        break;
      }
      // Keep going in this database while the sample was stale enough.
      if (sampled !== 0 && Math.floor((expired * 100) / sampled) <= acceptableStale) break;
    }
  }
  // The next cycle starts after the last database visited, even one left
  // early when the time budget ran out.
  host.expireCycleNextDb = (host.expireCycleNextDb + visited) % Math.max(1, dbs.length);
  const perc = totalSampled ? totalExpired / totalSampled : 0;
  host.stats.expiredStalePerc = perc * 0.05 + host.stats.expiredStalePerc * 0.95;
  return totalExpired;
}
