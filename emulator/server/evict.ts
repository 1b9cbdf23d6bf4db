import type { Database } from '../keyspace/database.js';
import { lfuCounter } from './lfu.js';
import { touchWatchedKey } from '../keyspace/watch.js';
import { keyMemoryUsage } from './memory-estimate.js';
import { usedMemory } from './info.js';
import type { RedisServer } from './server.js';
import { NOTIFY, notifyKeyspaceEvent } from './notify.js';

/**
 * maxmemory and its policies (src/evict.c). Before each command, when
 * used_memory is above maxmemory, keys are evicted by the policy until
 * enough is freed; when nothing can be evicted (noeviction, or no candidate
 * key) the command is refused with -OOM if it may grow memory.
 *
 * Redis samples `maxmemory-samples` keys per round into a pool and evicts the
 * best; here each database keeps a rotating cursor and a round looks at the
 * next samples keys of each database (skipping a seeded random few so that
 * the random policies stay random), then evicts the best of them by the
 * policy's measure. The figures follow the emulator's memory estimate.
 */

/** The reply when a command that may grow memory is refused (shared.oomerr). */
export const OOM_MESSAGE = "-OOM command not allowed when used memory > 'maxmemory'.";

const LRU_CLOCK_MAX = (1 << 24) - 1;

/** Rotating sampling cursors, one per database. */
const cursors = new WeakMap<Database, Iterator<string>>();

function nextKeys(db: Database, pool: Map<string, unknown>, count: number, skip: number): string[] {
  const out: string[] = [];
  if (pool.size === 0) return out;
  let it = cursors.get(db);
  let restarts = 0;
  while (out.length < count && restarts < 2) {
    if (it === undefined) it = pool.keys();
    const next = it.next();
    if (next.done) {
      it = undefined;
      restarts++;
      continue;
    }
    if (skip > 0) {
      skip--;
      continue;
    }
    if (!out.includes(next.value)) out.push(next.value);
  }
  if (it === undefined) cursors.delete(db);
  else cursors.set(db, it);
  return out;
}

/** Lower is evicted first: the policy's idle-ness measure turned around. */
function score(server: RedisServer, db: Database, key: string, policy: string): number {
  if (policy.endsWith('-lru')) {
    const now = server.lruClock;
    const last = db.access.get(key) ?? now;
    const idle = now >= last ? now - last : now + (LRU_CLOCK_MAX - last);
    return -idle;
  }
  if (policy.endsWith('-lfu')) return lfuCounter(server, db.access.get(key) ?? 5);
  if (policy === 'volatile-ttl') return db.expires.get(key) ?? Infinity;
  return 0;
}

/** Candidates kept between rounds, best (lowest score) first: Redis's EVPOOL_SIZE. */
const POOL_SIZE = 16;
interface Candidate {
  db: Database;
  key: string;
  score: number;
}
const pools = new WeakMap<RedisServer, Candidate[]>();

/**
 * One victim: sample each database into the pool and take its best entry
 * that still exists, or null when no database has a candidate.
 */
function pickVictim(server: RedisServer, policy: string): { db: Database; key: string } | null {
  const volatile = policy.startsWith('volatile-');
  const random = policy.endsWith('-random');
  const samples = Math.max(1, server.config.getNumber('maxmemory-samples'));
  let pool = pools.get(server);
  if (pool === undefined) pools.set(server, (pool = []));
  for (const db of server.dbs) {
    const source = volatile ? db.expires : db.dict;
    if (source.size === 0) continue;
    const skip = server.random.below(Math.min(source.size, 32));
    for (const key of nextKeys(db, source, random ? 1 : samples, skip)) {
      if (pool.some((e) => e.db === db && e.key === key)) continue;
      pool.push({ db, key, score: random ? server.random.nextFloat() : score(server, db, key, policy) });
    }
  }
  pool.sort((a, b) => a.score - b.score);
  while (pool.length > 0) {
    const best = pool.shift()!;
    const source = volatile ? best.db.expires : best.db.dict;
    if (source.has(best.key)) {
      if (pool.length > POOL_SIZE) pool.length = POOL_SIZE;
      return best;
    }
  }
  return null;
}

/**
 * Frees memory down to maxmemory when above it. Returns false when memory is
 * still above the limit and nothing more can be evicted (EVICT_FAIL).
 */
export function performEvictions(server: RedisServer): boolean {
  const maxmemory = server.config.getNumber('maxmemory');
  if (maxmemory === 0) return true;
  // isSafeToPerformEvictions: a replica leaves memory to its primary
  // (replica-ignore-maxmemory), and a paused dataset holds still.
  if (server.replication.masterHost !== null && server.config.getBool('replica-ignore-maxmemory')) return true;
  if (server.pause.paused()) return true;
  const used = usedMemory(server);
  if (used <= maxmemory) return true;
  const policy = server.config.get('maxmemory-policy');
  if (policy === 'noeviction') return false;
  let toFree = used - maxmemory;
  while (toFree > 0) {
    const victim = pickVictim(server, policy);
    if (victim === null) return false;
    const { db, key } = victim;
    const value = db.dict.get(key);
    if (value === undefined) {
      db.expires.delete(key);
      continue;
    }
    toFree -= keyMemoryUsage(server, key, value);
    db.delete(key);
    server.stats.evictedKeys++;
    touchWatchedKey(db, key);
    notifyKeyspaceEvent(server, NOTIFY.EVICTED, 'evicted', key, db.id);
    server.propagate(db.id, ['DEL', key]);
  }
  return true;
}
