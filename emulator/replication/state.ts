import { asciiLower } from '../resp/bytes.js';
import type { RedisServer } from '../server/server.js';
import { setInfoSection } from '../server/info.js';
import type { ReplicationBuffer } from './backlog.js';
import { InMemoryReplicationRuntime, type ReplicationRuntime } from './server-runtime.js';
import { ReplicationPrimary } from './primary.js';
import type { ReplicationReplica } from './replica.js';
import { replicationInfo, replicationMemory } from './info.js';
import { ReplicationCron } from './cron.js';

/**
 * A server's replication (src/replication.c): the state both roles share
 * and two parts. The shared state is what Redis keeps in its server
 * struct for either role: the replication IDs, the offset, the backlog
 * (the buffer every write enters once there is one), the primary it
 * follows, if any. The primary part (primary.ts) serves replicas: SYNC and
 * PSYNC, the stream's feed, their ACKs; a replica with replicas of its own
 * has one too. The replica part (replica.ts) follows a primary.
 */

/**
 * The replica part's code is kept apart from what a first session loads
 * (emulator/commands/on-demand.ts): on-demand-handlers.ts registers it, and
 * every way a server can come to follow a primary (REPLICAOF, SLAVEOF,
 * FAILOVER, `replicaof` in a lesson's or a shell's configuration, a replay)
 * loads that code first.
 */
let makeReplicaPart: ((s: ReplicationState) => ReplicationReplica) | null = null;

/** Called by on-demand-handlers.ts when it loads. */
export function registerReplicaPart(make: (s: ReplicationState) => ReplicationReplica): void {
  makeReplicaPart = make;
}

/**
 * The backlog's code is kept apart the same way: a server makes a backlog
 * only when a replica first synchronizes (primary-sync.ts), when it follows
 * a primary, or when it loads an RDB at start, and each of those runs code
 * that on-demand-handlers.ts brings.
 */
let makeBacklog: ((offset: number, size: () => number) => ReplicationBuffer) | null = null;

/** Called by on-demand-handlers.ts when it loads. */
export function registerBacklog(make: (offset: number, size: () => number) => ReplicationBuffer): void {
  makeBacklog = make;
}

/** CONFIG_REPL_BACKLOG_MIN_SIZE. */
const MIN_BACKLOG_BYTES = 16 * 1024;

/** An unset replication ID (replid2 after clearReplicationId2). */
export const ZERO_REPL_ID = '0'.repeat(40);

/** The replication fields of an RDB file (rdbPopulateSaveInfo). */
export interface RdbReplicationInfo {
  streamDb: number;
  replId: string;
  offset: number;
}

export class ReplicationState {
  /** The replication ID: which history this server's data and offset belong to (server.replid). */
  replId: string;
  /** The secondary ID, valid up to `secondReplOffset` (for replicas of a former primary). */
  replId2 = ZERO_REPL_ID;
  secondReplOffset = -1;
  /** The shared replication buffer; null while there is no backlog. */
  buffer: ReplicationBuffer | null = null;
  /** The primary this server replicates (server.masterhost, server.masterport); null for a primary. */
  masterHost: string | null = null;
  masterPort = 0;
  /** The replication fields of the RDB loaded at start, when it had them (for a replica's cached primary). */
  loadedRdbInfo: RdbReplicationInfo | null = null;
  /** The process running the server: its log, its RDB child, its files. */
  process: ReplicationRuntime;
  /** The part that serves replicas. */
  readonly primary: ReplicationPrimary;
  /** The part that follows a primary, made the first time it is needed. */
  private replicaPart: ReplicationReplica | null = null;
  /** replicationCron. */
  readonly cronJobs: ReplicationCron;
  /** master_repl_offset while there is no backlog to hold it. */
  private offsetWithoutBuffer = 0;

  constructor(readonly server: RedisServer) {
    this.replId = server.randomHex(40);
    this.process = new InMemoryReplicationRuntime(server);
    this.primary = new ReplicationPrimary(this);
    // replicaof in the configuration: the first replicationCron connects,
    // after the local files are loaded (setConfigReplicaOfOption).
    const replicaof = server.config.get('replicaof');
    if (replicaof !== '') {
      const space = replicaof.lastIndexOf(' ');
      this.masterHost = replicaof.slice(0, space);
      this.masterPort = Number(replicaof.slice(space + 1));
      this.replica.state = 'connect';
    }
    this.cronJobs = new ReplicationCron(this);
    setInfoSection(server, 'replication', () => replicationInfo(this));
    server.config.onApply('repl-backlog-size', (value) => {
      // resizeReplicationBacklog: never below the minimum, and trimmed at once.
      if (Number(value) < MIN_BACKLOG_BYTES) server.config.set('repl-backlog-size', String(MIN_BACKLOG_BYTES), true);
      this.buffer?.trim();
      return null;
    });
    // updateGoodSlaves: the count of good replicas follows a new limit at
    // once, not at the next serverCron (a write right after CONFIG SET
    // min-replicas-to-write is judged by it).
    for (const name of ['min-replicas-to-write', 'min-replicas-max-lag']) {
      server.config.onApply(name, () => {
        this.primary.refreshGoodReplicas();
        return null;
      });
    }
  }

  /** The part that follows a primary. */
  get replica(): ReplicationReplica {
    if (this.replicaPart === null) {
      if (makeReplicaPart === null) throw new Error("the replica side's code is not loaded (import emulator/commands/on-demand-handlers.js)");
      this.replicaPart = makeReplicaPart(this);
    }
    return this.replicaPart;
  }

  /** Whether this server has ever had the replica part (a server that never followed a primary has nothing for it to do). */
  get hasReplicaPart(): boolean {
    return this.replicaPart !== null;
  }

  /** A replica restarted on its RDB takes its offset from it; the backlog, if any, starts there. */
  setOffsetWithoutBacklog(offset: number): void {
    this.freeBacklog();
    this.offsetWithoutBuffer = offset;
  }

  /** master_repl_offset: the offset of the last byte of the stream. */
  get masterReplOffset(): number {
    return this.buffer !== null ? this.buffer.masterReplOffset : this.offsetWithoutBuffer;
  }

  /** server.unixtime. */
  get nowS(): number {
    return Math.floor(this.server.nowMs / 1000);
  }

  /** A line in the server's log. */
  log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    this.process.log(text, level);
  }

  // ---- replication IDs ----

  /** changeReplicationId: a new history starts. */
  changeReplicationId(): void {
    this.replId = this.server.randomHex(40);
  }

  /** clearReplicationId2. */
  clearReplicationId2(): void {
    this.replId2 = ZERO_REPL_ID;
    this.secondReplOffset = -1;
  }

  /** shiftReplicationId: the current ID becomes the secondary one (a replica promoted). */
  shiftReplicationId(): void {
    this.replId2 = this.replId;
    this.secondReplOffset = this.masterReplOffset + 1;
    this.changeReplicationId();
    this.log(
      `Setting secondary replication ID to ${this.replId2}, valid up to offset: ${this.secondReplOffset}. New replication ID is ${this.replId}`,
      'warning',
    );
  }

  /**
   * A replica takes its primary's history after a full sync
   * (readSyncBulkPayload): its ID and offset, and a new backlog from there
   * for sub-replicas and a later promotion.
   */
  adoptPrimaryHistory(replId: string, offset: number): void {
    this.freeBacklog();
    this.replId = replId;
    this.offsetWithoutBuffer = offset;
    this.clearReplicationId2();
    this.createBacklog();
  }

  /** DEBUG CHANGE-REPL-ID. */
  debugChangeReplicationId(): void {
    this.log('Changing replication IDs after receiving DEBUG change-repl-id', 'warning');
    this.changeReplicationId();
    this.clearReplicationId2();
  }

  // ---- the backlog ----

  /** createReplicationBacklog: from now on every write is fed to the stream. */
  createBacklog(): void {
    if (this.buffer !== null) return;
    if (makeBacklog === null) throw new Error("the replication backlog's code is not loaded (import emulator/commands/on-demand-handlers.js)");
    this.buffer = makeBacklog(this.offsetWithoutBuffer, () => this.backlogSize());
    this.primary.bufferCreated(this.buffer);
  }

  /** freeReplicationBacklog (no replica may be attached). */
  freeBacklog(): void {
    const b = this.buffer;
    if (b === null) return;
    this.offsetWithoutBuffer = b.masterReplOffset;
    b.clear();
    this.buffer = null;
    this.primary.bufferFreed();
  }

  /** The replication buffer's bytes as INFO memory splits them (read by the server's INFO, a layer below). */
  memory(): { backlog: number; replicas: number; total: number } {
    return replicationMemory(this);
  }

  /** repl-backlog-size, in bytes. */
  backlogSize(): number {
    return this.server.config.getNumber('repl-backlog-size');
  }

  /**
   * replicationFeedStreamFromMasterStream: on a replica, the primary's
   * stream goes on verbatim to the backlog and the sub-replicas.
   */
  feedFromPrimaryStream(bytes: string): void {
    if (this.buffer === null || bytes.length === 0) return;
    if (!this.buffer.tryAppend(bytes)) this.buffer.feed(bytes);
    this.primary.flushStreaming();
  }

  /** rdbPopulateSaveInfo: the replication fields an RDB saved now carries, or null for none. */
  rdbSaveInfo(): RdbReplicationInfo | null {
    if (this.masterHost === null) {
      if (this.buffer === null) return null;
      const db = this.primary.slaveSelDb;
      return { streamDb: db === -1 ? 0 : db, replId: this.replId, offset: this.masterReplOffset };
    }
    const db = this.replica.streamDb();
    return db === null ? null : { streamDb: db, replId: this.replId, offset: this.masterReplOffset };
  }

  // ---- loading an RDB at start (loadDataFromDisk) ----

  /**
   * Before the RDB is read: a primary makes a backlog, which takes the DEL
   * of each key found already expired.
   */
  beforeRdbLoad(): void {
    this.loadedRdbInfo = null;
    if (this.masterHost === null) this.createBacklog();
  }

  /** A key the load left out as expired (RDBFLAGS_FEED_REPL). */
  expiredOnLoad(db: number, key: string): void {
    if (this.buffer === null) return;
    this.primary.feedCommand(db, [this.server.config.getBool('lazyfree-lazy-expire') ? 'UNLINK' : 'DEL', key]);
  }

  /**
   * The RDB is in. When it carried its history (repl-id, repl-offset,
   * repl-stream-db), a primary keeps it as its secondary ID, so replicas
   * of its previous life can continue with PSYNC, and counts its offset
   * on from there; otherwise the backlog goes, though the offset keeps the
   * DELs it took.
   */
  afterRdbLoad(aux: ReadonlyArray<readonly [string, string]>): void {
    let replId: string | null = null;
    let offset = -1;
    let streamDb = -1;
    for (const [key, value] of aux) {
      const k = asciiLower(key);
      if (k === 'repl-id' && value.length === 40) replId = value;
      else if (k === 'repl-offset') offset = cInteger(value);
      else if (k === 'repl-stream-db') streamDb = cInteger(value);
    }
    const valid = replId !== null && offset !== -1 && streamDb !== -1;
    if (valid) this.loadedRdbInfo = { replId: replId!, offset, streamDb };
    if (valid && this.masterHost !== null) {
      // A replica's own history: it may continue it with its primary.
      this.replica.restoreFromRdb(replId!, offset, streamDb);
      return;
    }
    if (valid && this.masterHost === null && this.buffer !== null) {
      this.replId2 = replId!;
      this.secondReplOffset = offset + 1;
      this.buffer.rebase(offset);
      this.primary.noReplicasSinceS = this.nowS;
      return;
    }
    if (!valid && this.buffer !== null) this.freeBacklog();
  }

  /** beforeSleep's part, at the end of each event loop pass. */
  beforeSleep(): void {
    this.primary.beforeSleep();
    // A backlog that grew past its size while a slow replica held its
    // blocks shrinks each pass once they are free, not only as new
    // writes come (incrementalTrimReplicationBacklog in beforeSleep).
    this.buffer?.trimBeforeSleep();
  }

  // ---- serverCron ----

  /** serverCron's part, hz times a second. */
  cron(): void {
    this.server.updateTime();
    this.primary.cron();
    this.cronJobs.tick();
  }
}

/** strtoll / atoi: the leading integer of a string, 0 when there is none. */
function cInteger(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m === null ? 0 : Number(m[1]);
}
