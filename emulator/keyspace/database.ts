import type { Value } from './values.js';
import type { WatchedKey } from './watch.js';
import type { ForkView } from './fork-view.js';
import { AccessStamps } from './access-stamps.js';

/**
 * What a database needs from the server it belongs to: the time of the
 * current command, the LRU clock, counters, and the side effects of a key
 * expiring (WATCH invalidation, propagation, the expired_keys counter).
 */
export interface KeyspaceHost {
  /** The time of the command being run, in ms (Redis's server.mstime). */
  readonly nowMs: number;
  /** The LRU clock value to stamp on an access (Redis's LRU_CLOCK()). */
  readonly lruClock: number;
  /** Whether expired keys found by lookups may be deleted (not on read-only replicas). */
  readonly mayDeleteExpired: boolean;
  /** The dataset is being loaded (AOF replay): nothing expires until it is done (keyIsExpired). */
  readonly loadingData?: boolean;
  /** Counters: keyspace_hits, keyspace_misses. */
  stats: { keyspaceHits: number; keyspaceMisses: number };
  /** A key was deleted because it expired. */
  keyExpired(db: Database, key: string): void;
  /**
   * A read found no key (Redis's lookupKey counts a miss and publishes the
   * "keymiss" event, unless told not to, as OBJECT does).
   */
  keyMissed?(db: Database, key: string): void;
  /** A key was modified (Redis's signalModifiedKey): invalidates WATCH. */
  keyModified(db: Database, key: string): void;
  /**
   * A key was created (Redis's dbAdd): clients blocked on it may now be
   * served (signalKeyAsReady), and the "new" keyspace event is published.
   */
  keyAdded(db: Database, key: string, value: Value): void;
  /**
   * Under an LFU maxmemory-policy, the access data to store for a key given
   * its previous data (undefined for a new value): Redis's updateLFU, or the
   * initial counter. Null or absent when access times are LRU clock values.
   */
  readonly lfuAccess?: ((previous: number | undefined) => number) | null;
  /** The views of forked children (BGSAVE) that must see keys as they were before a write. */
  readonly forkViews?: readonly ForkView[];
}

/**
 * One of the numbered databases: the main dictionary, the expires
 * dictionary (absolute unix ms), per-key access times for OBJECT IDLETIME and
 * eviction, and the keys clients WATCH.
 */
export class Database {
  dict = new Map<string, Value>();
  expires = new Map<string, number>();
  /** LRU clock (or LFU data) at the last access of each key. */
  access = new AccessStamps();
  /** WATCHed keys and who watches them (see watch.ts). */
  watched = new Map<string, WatchedKey[]>();
  /** Running estimate of the average TTL, as INFO keyspace shows (avg_ttl). */
  avgTtlMs = 0;
  /** Where the active expiry cycle resumes sampling (Redis's expires_cursor). */
  expireCursor: Iterator<[string, number]> | null = null;

  constructor(
    public id: number,
    private readonly host: KeyspaceHost,
  ) {}

  get size(): number {
    return this.dict.size;
  }

  /**
   * Looks a key up for reading: expires it if due, stamps its access time,
   * counts a hit or a miss. Redis's lookupKeyRead.
   */
  lookupRead(key: string): Value | undefined {
    const v = this.dict.get(key);
    if (v !== undefined && (this.expires.size === 0 || !this.expireIfNeeded(key))) {
      this.touch(key);
      this.host.stats.keyspaceHits++;
      return v;
    }
    this.host.stats.keyspaceMisses++;
    this.host.keyMissed?.(this, key);
    return undefined;
  }

  /** Looks a key up for writing: expires it if due and stamps its access; no stats. */
  lookupWrite(key: string): Value | undefined {
    const v = this.dict.get(key);
    if (v === undefined) return undefined;
    if (this.expires.size !== 0 && this.expireIfNeeded(key, true)) return undefined;
    // The caller may change the value in place: a forked child keeps its copy first.
    this.beforeWrite(key);
    this.touch(key);
    return v;
  }

  /** Whether a forked child is writing the dataset out (writes must let it keep keys first). */
  private forking(): boolean {
    const views = this.host.forkViews;
    return views !== undefined && views.length !== 0;
  }

  /** Lets forked children keep the key as it was before the write about to happen. */
  private beforeWrite(key: string): void {
    if (!this.forking()) return;
    for (const v of this.host.forkViews!) v.beforeWrite(this, key);
  }

  /** Stamps an access to an existing key: the LRU clock, or updateLFU. */
  private touch(key: string): void {
    const lfu = this.host.lfuAccess;
    this.access.set(key, lfu ? lfu(this.access.get(key)) : this.host.lruClock);
  }

  /** The access data of a newly created value (createObject's lru field). */
  private freshStamp(): number {
    const lfu = this.host.lfuAccess;
    return lfu ? lfu(undefined) : this.host.lruClock;
  }

  /**
   * A lookup that does not touch the access time (TYPE, EXISTS, TTL,
   * OBJECT...); with countStats it counts a hit or a miss, and a miss is
   * published as "keymiss" unless notifyMiss is false (OBJECT).
   */
  lookupNoTouch(key: string, countStats = false, notifyMiss = countStats): Value | undefined {
    const v = this.dict.get(key);
    if (v !== undefined && (this.expires.size === 0 || !this.expireIfNeeded(key))) {
      if (countStats) this.host.stats.keyspaceHits++;
      return v;
    }
    if (countStats) this.host.stats.keyspaceMisses++;
    if (notifyMiss) this.host.keyMissed?.(this, key);
    return undefined;
  }

  /** Whether the key exists (after expiring it if due), without side effects on stats. */
  exists(key: string): boolean {
    return this.lookupNoTouch(key) !== undefined;
  }

  /**
   * Stores a value under a key that may or may not exist: Redis's setKey.
   * The TTL is removed unless keepTtl; WATCH is signalled.
   */
  setKey(key: string, value: Value, keepTtl = false): void {
    this.beforeWrite(key);
    // Replacing a value keeps the old one's LFU data (dbOverwrite).
    if (!this.host.lfuAccess || !this.dict.has(key)) this.access.set(key, this.freshStamp());
    const sizeBefore = this.dict.size;
    this.dict.set(key, value);
    if (!keepTtl && this.expires.size !== 0) this.expires.delete(key);
    if (this.dict.size !== sizeBefore) this.host.keyAdded(this, key, value);
    this.host.keyModified(this, key);
  }

  /** Adds a key known not to exist (Redis's dbAdd). Does not signal. */
  add(key: string, value: Value): void {
    this.beforeWrite(key);
    this.dict.set(key, value);
    this.access.set(key, this.freshStamp());
    this.host.keyAdded(this, key, value);
  }

  /**
   * Adds a key read from an RDB file (dbAddRDBLoad): nobody is told, no
   * client is woken, no keyspace event.
   */
  addLoaded(key: string, value: Value): void {
    this.beforeWrite(key);
    this.dict.set(key, value);
    this.access.set(key, this.freshStamp());
  }

  /** Replaces the value of a key known to exist, keeping its TTL (dbOverwrite). Does not signal. */
  overwrite(key: string, value: Value): void {
    this.beforeWrite(key);
    this.dict.set(key, value);
  }

  /** Deletes a key and its TTL; returns whether it existed. Does not signal. */
  delete(key: string): boolean {
    if (this.forking()) {
      if (!this.dict.has(key)) return false;
      this.beforeWrite(key);
    }
    if (!this.dict.delete(key)) return false;
    if (this.expires.size !== 0) this.expires.delete(key);
    this.access.delete(key);
    return true;
  }

  getExpire(key: string): number | undefined {
    return this.expires.size === 0 ? undefined : this.expires.get(key);
  }

  setExpire(key: string, whenMs: number): void {
    this.beforeWrite(key);
    this.expires.set(key, whenMs);
  }

  removeExpire(key: string): boolean {
    if (this.forking() && this.expires.has(key)) this.beforeWrite(key);
    return this.expires.delete(key);
  }

  /** Whether a key has a TTL in the past (does not delete it). */
  isExpired(key: string): boolean {
    if (this.host.loadingData === true) return false;
    const when = this.expires.size === 0 ? undefined : this.expires.get(key);
    return when !== undefined && when < this.host.nowMs;
  }

  /**
   * Deletes the key if its TTL has passed; returns whether it is (logically)
   * expired. On a read-only replica a logically expired key is reported as
   * missing but kept, unless forced for a write.
   */
  expireIfNeeded(key: string, forWrite = false): boolean {
    const when = this.expires.get(key);
    if (when === undefined || when >= this.host.nowMs) return false;
    if (this.host.loadingData === true) return false;
    if (!this.host.mayDeleteExpired && !forWrite) return true;
    this.delete(key);
    this.host.keyExpired(this, key);
    return true;
  }

  /** Removes every key; returns how many there were. */
  clear(): number {
    const n = this.dict.size;
    const views = this.host.forkViews;
    if (views !== undefined) for (const v of views) v.beforeClear(this);
    this.dict = new Map();
    this.expires = new Map();
    this.access = new AccessStamps();
    this.avgTtlMs = 0;
    this.expireCursor = null;
    return n;
  }

  /** Exchanges contents (not WATCH registrations) with another database (SWAPDB). */
  swapContents(other: Database): void {
    [this.dict, other.dict] = [other.dict, this.dict];
    [this.expires, other.expires] = [other.expires, this.expires];
    [this.access, other.access] = [other.access, this.access];
    [this.avgTtlMs, other.avgTtlMs] = [other.avgTtlMs, this.avgTtlMs];
    this.expireCursor = null;
    other.expireCursor = null;
  }
}
