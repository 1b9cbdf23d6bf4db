import type { Database } from '../keyspace/database.js';
import type { Value } from '../keyspace/values.js';
import { ErrorReply, NULL_ARRAY, type Reply } from '../resp/reply.js';
import type { Client } from './client.js';
import type { RedisServer } from './server.js';
import type { CommandDef } from './command-table.js';

/**
 * Clients parked in a blocking command (BLPOP, BLMOVE, BZPOPMIN, ...), after
 * src/blocked.c and src/timeout.c.
 *
 * A blocked client waits on keys of its database. When a key it waits on is
 * created with the right type (Redis's signalKeyAsReady, called from dbAdd),
 * the key is queued as ready; after the command that created it (or the
 * EXEC around it) finishes, the waiting clients are served in the order they
 * blocked, each through the `serve` step of its own command, until the key
 * is gone. A client whose timeout passes gets a null array.
 *
 * Replies to a served client are delivered at once; the commands it had
 * pipelined after the blocking one resume once the current command's work
 * is done (Redis's processUnblockedClients in beforeSleep).
 */

/** Which type of key a blocked client waits for, or 'wait': WAIT, for replicas' acknowledgements (no key). */
export type BlockKind = 'list' | 'zset' | 'wait';

/**
 * Serves a client from a ready key holding a value of the right type: does
 * the pop (or move), propagates it, and returns the reply and whether the
 * key was deleted (which stops the serving of others on that key).
 */
export type ServeBlocked = (c: Client, key: string, value: Exclude<Value, string>) => { reply: Reply; deleted: boolean };

export interface BlockSpec {
  kind: BlockKind;
  /** The keys, in the order given (duplicates are ignored). */
  keys: string[];
  /**
   * Absolute unix ms after which the client times out; 0 waits forever
   * outside the timeout table; Infinity waits forever inside it.
   */
  timeoutMs: number;
  serve: ServeBlocked;
  /** The reply when the timeout passes (a null array unless given). */
  timeoutReply?: () => Reply;
  /** Told when the client is unblocked, however (unblockClientWaitingReplicas). */
  onUnblock?: () => void;
}

/** The state of a blocked client. */
export interface BlockState extends BlockSpec {
  db: Database;
  /** The blocking command, whose statistics the unblocking updates. */
  cmd: CommandDef | null;
}

/** What a blocking handler returns after parking its client: no reply yet. */
export const BLOCKED = Object.freeze({ blocked: true }) as unknown as Reply;

export class BlockingRegistry {
  /** Blocked clients, for INFO's blocked_clients. */
  count = 0;
  private readonly byKind = { list: 0, zset: 0, wait: 0 };
  /** Per database: key -> clients waiting on it, in the order they blocked. */
  private readonly waiting = new Map<Database, Map<string, Client[]>>();
  /** Keys that became ready, in the order they did, and the same as a set per database. */
  private ready: Array<{ db: Database; key: string }> = [];
  private readonly readySet = new Map<Database, Set<string>>();
  /** Clients with a timeout, for the timer. */
  private readonly timed = new Set<Client>();
  /** Clients unblocked whose pipelined commands must resume. */
  private unblocked: Client[] = [];
  private resuming = false;

  constructor(private readonly server: RedisServer) {}

  /** Parks a client. The handler then returns BLOCKED. */
  block(c: Client, spec: BlockSpec): void {
    const db = c.db;
    let keys = this.waiting.get(db);
    if (!keys) {
      keys = new Map();
      this.waiting.set(db, keys);
    }
    const distinct: string[] = [];
    for (const k of spec.keys) {
      if (distinct.includes(k)) continue;
      distinct.push(k);
      let list = keys.get(k);
      if (!list) {
        list = [];
        keys.set(k, list);
      }
      list.push(c);
    }
    c.blockedOn = { ...spec, keys: distinct, db, cmd: c.cmd };
    this.count++;
    this.byKind[spec.kind]++;
    if (spec.timeoutMs !== 0) this.timed.add(c);
  }

  /**
   * Releases a blocked client and delivers `reply` to it (none when it is
   * going away). A client served from a key or released by CLIENT UNBLOCK
   * has its command logged in the slow log now; one that timed out does
   * not, as in Redis 7.0.
   */
  unblock(c: Client, reply: Reply | null, logged: 'served' | 'released' | false = false): void {
    const state = c.blockedOn;
    if (!state) return;
    const keys = this.waiting.get(state.db);
    for (const k of state.keys) {
      const list = keys?.get(k);
      if (!list) continue;
      const i = list.indexOf(c);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) keys!.delete(k);
    }
    c.blockedOn = null;
    this.count--;
    this.byKind[state.kind]--;
    this.timed.delete(c);
    state.onUnblock?.();
    if (reply === null) return;
    if (reply instanceof ErrorReply) {
      if (state.cmd) state.cmd.failedCalls++;
      this.server.stats.countError(reply.code);
    }
    // CLIENT UNBLOCK frees the command's arguments before the slow log
    // sees them (unblockClient, then updateStatsOnUnblock): its entry has none.
    if (logged === 'released') c.blockedArgv = [];
    if (logged !== false && state.cmd !== null) this.server.logUnblocked(c, state.cmd);
    else c.blockedArgv = null;
    c.onAsyncReply?.(reply);
    this.unblocked.push(c);
  }

  /**
   * A key was added to a database (dbAdd): if clients wait on it for a
   * value of this type, queue it as ready.
   */
  signalKeyAsReady(db: Database, key: string, value: Value): void {
    if (typeof value === 'string') return;
    const kind = value.type;
    if (kind !== 'list' && kind !== 'zset') return;
    if (this.byKind[kind] === 0) return;
    if (!this.waiting.get(db)?.has(key)) return;
    let set = this.readySet.get(db);
    if (!set) {
      set = new Set();
      this.readySet.set(db, set);
    }
    if (set.has(key)) return;
    set.add(key);
    this.ready.push({ db, key });
  }

  /** After SWAPDB: every waited-on key that now exists may serve someone. */
  scanForReadyKeys(db: Database): void {
    const keys = this.waiting.get(db);
    if (!keys) return;
    for (const key of keys.keys()) {
      const v = db.dict.get(key);
      if (v !== undefined) this.signalKeyAsReady(db, key, v);
    }
  }

  /** Blocked clients with a timeout (INFO clients_in_timeout_table). */
  get timedCount(): number {
    return this.timed.size;
  }

  /** Whether unblocked clients wait to run their pipelined commands. */
  get hasResumes(): boolean {
    return this.unblocked.length !== 0;
  }

  get hasReadyKeys(): boolean {
    return this.ready.length !== 0;
  }

  /** Serves the clients waiting on ready keys (handleClientsBlockedOnKeys). */
  handleReadyKeys(): void {
    while (this.ready.length !== 0) {
      const batch = this.ready;
      this.ready = [];
      for (const { db, key } of batch) {
        this.readySet.get(db)?.delete(key);
        this.server.updateTime();
        // Redis looks the ready key up without stats or notifications but
        // with a touch: under an LFU policy the key's counter goes up once
        // here (OBJECT FREQ shows 6, not 5, on a list that served a BLPOP).
        // A write lookup is the one that touches without counting; only
        // masters and writable replicas have blocked clients, and there it
        // expires a key just as a read lookup would.
        const value = db.lookupWrite(key);
        if (value === undefined || typeof value === 'string') continue;
        const waiters = this.waiting.get(db)?.get(key);
        if (!waiters) continue;
        for (const receiver of waiters.slice()) {
          const state = receiver.blockedOn;
          if (!state || state.kind !== value.type) continue;
          // The value may have been emptied and deleted by a previous receiver.
          if (db.dict.get(key) !== value) break;
          const { reply, deleted } = state.serve(receiver, key, value);
          this.unblock(receiver, reply, 'served');
          if (deleted) break;
        }
      }
    }
  }

  /** Times out the clients whose timeout has passed (handleBlockedClientsTimeout). */
  expireTimeouts(nowMs: number): void {
    if (this.timed.size === 0) return;
    for (const c of [...this.timed].sort((a, b) => a.blockedOn!.timeoutMs - b.blockedOn!.timeoutMs || a.id - b.id)) {
      if (c.blockedOn && c.blockedOn.timeoutMs < nowMs) this.unblock(c, c.blockedOn.timeoutReply?.() ?? NULL_ARRAY);
    }
  }

  /** The earliest time a blocked client times out, or null. */
  nextTimeoutMs(): number | null {
    let min: number | null = null;
    for (const c of this.timed) {
      const t = c.blockedOn!.timeoutMs;
      if (t === Infinity) continue;
      if (min === null || t < min) min = t;
    }
    return min;
  }

  /**
   * Lets unblocked clients run the commands they had pipelined behind the
   * blocking one. Called by transports once the current command's work is
   * done; re-entrant calls leave the work to the outer one.
   */
  resumeUnblocked(): void {
    if (this.resuming) return;
    this.resuming = true;
    try {
      while (this.unblocked.length !== 0) {
        const c = this.unblocked.shift()!;
        if (!c.closed && !c.blockedOn) c.onResume?.();
      }
    } finally {
      this.resuming = false;
    }
  }
}
