import { FramesReply, errorReply, type Reply } from '../resp/reply.js';
import { asciiLower, bytesFromArray } from '../resp/bytes.js';
import { parseInt64 } from '../numbers/int64.js';
import { NOT_INTEGER } from '../commands/errors.js';
import type { Client } from '../server/client.js';
import type { RedisServer } from '../server/server.js';
import { setInfoSection } from '../server/info.js';
import { BLOCKED } from '../server/blocking.js';
import { clientInfoLine } from '../commands/client.js';
import { MIN_BACKLOG_BYTES, ReplicationBuffer } from './backlog.js';
import { InMemoryReplicationProcess, type ReplicationProcess, type RdbPipe } from './process.js';
import { CAPA_EOF, CAPA_PSYNC2, REQ_EXCLUDE_DATA, REQ_RDB_MASK, ReplicaLink, cText } from './replica.js';
import { PING_COMMAND, selectCommand, streamCommand } from './stream.js';
import { BULK_PIECE_BYTES, DisklessTransfer, pump } from './transfer.js';
import { replicationInfo } from './info.js';

/**
 * The primary's side of replication (src/replication.c): the replication
 * IDs and offset, the backlog, the replicas and their full or partial
 * synchronization, the command stream, and replicationCron's chores.
 *
 * The replica's side (REPLICAOF, the handshake, loading the RDB, applying
 * the stream) plugs in through `masterHost` and `replicaSide`.
 */

/** A command that answers nothing at all (SYNC, REPLCONF ACK). */
export const NO_REPLY = new FramesReply([]);

/** An unset replication ID (replid2 after clearReplicationId2). */
export const ZERO_REPL_ID = '0'.repeat(40);

/** The replication fields of an RDB file (rdbPopulateSaveInfo). */
export interface RdbReplicationInfo {
  streamDb: number;
  replId: string;
  offset: number;
}

/** What the replica's side provides, once a server can be one (REPLICAOF). */
export interface ReplicaSide {
  /** INFO replication's lines after role:slave (master_host ... replica_announced). */
  infoLines(): string;
  /** ROLE's reply on a replica. */
  roleReply(): Reply;
  /** Whether the link with this server's own primary is up: sub-replicas may SYNC only then. */
  linkUp(): boolean;
  /** PSYNC <replid> <offset> FAILOVER on a replica: null when it became a primary, else the error. */
  failoverRequest(c: Client, replId: string): Reply | null;
  /** The database of the primary's stream, for the RDB's repl-stream-db; null without a primary client. */
  streamDb(): number | null;
  /** REPLCONF GETACK from the primary: answer with an ACK. */
  sendAck(): void;
  /** replicationCron's replica part: connecting, handshake timeouts, ACKs. */
  cron(): void;
}

export class ReplicationPrimary {
  /** The secondary ID, valid up to `secondReplOffset` (for replicas of a former primary). */
  replId2 = ZERO_REPL_ID;
  secondReplOffset = -1;
  /** The shared replication buffer; null while there is no backlog. */
  buffer: ReplicationBuffer | null = null;
  /** Replica connections in the order they came (server.slaves). */
  readonly replicas: Client[] = [];
  /** The database the stream last selected, -1 to force a SELECT (server.slaveseldb). */
  slaveSelDb = -1;
  /** Since when no replica is connected, unix seconds (repl_no_slaves_since). */
  noReplicasSinceS: number;
  /** Online replicas within min-replicas-max-lag (repl_good_slaves_count). */
  goodReplicas = 0;
  /** The process running the server: its log, its RDB child, its files. */
  process: ReplicationProcess;
  /** The primary this server replicates, as "host" (server.masterhost); null for a primary. */
  masterHost: string | null = null;
  /** The replica's side, set when the server is a replica. */
  replicaSide: ReplicaSide | null = null;
  /** The replication fields of the RDB loaded at start, when it had them (for a replica's cached primary). */
  loadedRdbInfo: RdbReplicationInfo | null = null;
  private offsetWithoutBuffer = 0;
  private readonly links = new WeakMap<Client, ReplicaLink>();
  private stopFeeding: (() => void) | null = null;
  /**
   * serverCron's and replicationCron's loop counters. Redis's first
   * serverCron runs a millisecond after start, before any client can
   * connect; the process here runs its first one a tick later, so the
   * counts start as if that first round had run.
   */
  private serverCronLoops = 1;
  private replicationCronLoops = 1;
  private transfer: DisklessTransfer | null = null;
  private rdbGeneratedByReplication = false;

  constructor(readonly server: RedisServer) {
    this.process = new InMemoryReplicationProcess(server);
    this.noReplicasSinceS = Math.floor(server.nowMs / 1000);
    setInfoSection(server, 'replication', () => replicationInfo(this));
    server.config.onApply('repl-backlog-size', (value) => {
      // resizeReplicationBacklog: never below the minimum, and trimmed at once.
      if (Number(value) < MIN_BACKLOG_BYTES) server.config.set('repl-backlog-size', String(MIN_BACKLOG_BYTES), true);
      this.buffer?.trim();
      return null;
    });
  }

  get replId(): string {
    return this.server.replId;
  }

  /** master_repl_offset: the offset of the last byte of the stream. */
  get masterReplOffset(): number {
    return this.buffer !== null ? this.buffer.masterReplOffset : this.offsetWithoutBuffer;
  }

  /** The replica fields of a connection, made on first use. */
  link(c: Client): ReplicaLink {
    let r = this.links.get(c);
    if (r === undefined) this.links.set(c, (r = new ReplicaLink(c)));
    return r;
  }

  /** The replica fields of a connection, if it ever had any. */
  linkOf(c: Client): ReplicaLink | undefined {
    return this.links.get(c);
  }

  private get nowS(): number {
    return Math.floor(this.server.nowMs / 1000);
  }

  private log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    this.process.log(text, level);
  }

  // ---- replication IDs and the backlog ----

  /** changeReplicationId: a new history starts. */
  changeReplicationId(): void {
    this.server.replId = this.server.randomHex(40);
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

  /** DEBUG CHANGE-REPL-ID. */
  debugChangeReplicationId(): void {
    this.log('Changing replication IDs after receiving DEBUG change-repl-id', 'warning');
    this.changeReplicationId();
    this.clearReplicationId2();
  }

  /** createReplicationBacklog: from now on every write is fed to the stream. */
  createBacklog(): void {
    if (this.buffer !== null) return;
    this.buffer = new ReplicationBuffer(this.offsetWithoutBuffer, () => this.backlogSize());
    this.stopFeeding = this.server.onPropagate((db, argv) => this.feedCommand(db, argv));
  }

  /** freeReplicationBacklog (no replica may be attached). */
  freeBacklog(): void {
    const b = this.buffer;
    if (b === null) return;
    this.offsetWithoutBuffer = b.masterReplOffset;
    b.clear();
    this.buffer = null;
    this.stopFeeding?.();
    this.stopFeeding = null;
  }

  private backlogSize(): number {
    return this.server.config.getNumber('repl-backlog-size');
  }

  /** rdbPopulateSaveInfo: the replication fields an RDB saved now carries, or null for none. */
  rdbSaveInfo(): RdbReplicationInfo | null {
    if (this.masterHost === null) {
      if (this.buffer === null) return null;
      return { streamDb: this.slaveSelDb === -1 ? 0 : this.slaveSelDb, replId: this.replId, offset: this.masterReplOffset };
    }
    const db = this.replicaSide?.streamDb() ?? null;
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
    this.feedCommand(db, [this.server.config.getBool('lazyfree-lazy-expire') ? 'UNLINK' : 'DEL', key]);
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
    if (valid && this.masterHost === null && this.buffer !== null) {
      this.replId2 = replId!;
      this.secondReplOffset = offset + 1;
      this.buffer.rebase(offset);
      this.noReplicasSinceS = this.nowS;
      return;
    }
    if (!valid && this.buffer !== null) this.freeBacklog();
  }

  // ---- the stream ----

  /**
   * replicationFeedSlaves: a write (or serverCron's PING) enters the
   * stream, after a SELECT when its database is not the stream's. Each
   * part is fed as Redis feeds it, so the buffer's blocks come out the same.
   */
  feedCommand(db: number, argv: readonly string[]): void {
    if (this.masterHost !== null) return;
    const b = this.buffer;
    if (b === null) return;
    const select = this.slaveSelDb !== db ? selectCommand(db) : '';
    this.slaveSelDb = db;
    const command = streamCommand(argv);
    const bytes = select + command;
    if (!b.tryAppend(bytes)) {
      // Near a block's end, each part goes in as Redis feeds it, so the blocks come out the same.
      if (select !== '') b.feed(select);
      b.feed(`*${argv.length}\r\n`);
      for (let i = 0; i < argv.length; i++) {
        const a = argv[i]!;
        b.feed(`$${a.length}\r\n`);
        if (a.length !== 0) b.feed(a);
        b.feed('\r\n');
      }
    }
    this.flushStreaming(bytes);
  }

  /**
   * replicationFeedStreamFromMasterStream: on a replica, the primary's
   * stream goes on verbatim to the backlog and the sub-replicas.
   */
  feedFromPrimaryStream(bytes: string): void {
    if (this.buffer === null || bytes.length === 0) return;
    if (!this.buffer.tryAppend(bytes)) this.buffer.feed(bytes);
    this.flushStreaming(bytes);
  }

  /**
   * Sends each streaming replica what it has not been sent yet: the bytes
   * just fed, as they are, for one that had everything before them.
   */
  private flushStreaming(fed: string): void {
    const b = this.buffer!;
    const replicas = this.replicas;
    for (let i = 0; i < replicas.length; i++) {
      const r = this.links.get(replicas[i]!)!;
      if (!r.streaming || r.gone) continue;
      if (b.pending(r.cursor) === fed.length) {
        b.skipToEnd(r.cursor);
        r.client.rawOutput?.write(fed);
        this.server.stats.netReplOutputBytes += fed.length;
      } else {
        this.flushReplica(r);
      }
    }
  }

  private flushReplica(r: ReplicaLink): void {
    const b = this.buffer;
    if (b === null || r.gone) return;
    const bytes = b.take(r.cursor);
    if (bytes.length === 0) return;
    r.client.rawOutput?.write(bytes);
    this.server.stats.netReplOutputBytes += bytes.length;
  }

  // ---- SYNC and PSYNC ----

  /** syncCommand: SYNC, or PSYNC <replid> <offset>. */
  sync(c: Client, argv: string[], psync: boolean): Reply {
    const r = this.link(c);
    // A replica asking again, or a monitor (Redis flags both as slaves), gets nothing.
    if (r.state !== null || c.role === 'monitor') return NO_REPLY;
    if (psync && argv.length > 3 && asciiLower(cText(argv[3]!)) === 'failover') {
      this.log(`Failover request received for replid ${cText(argv[1]!)}.`, 'warning');
      if (this.masterHost === null) return errorReply("PSYNC FAILOVER can't be sent to a master.");
      const refused = this.replicaSide?.failoverRequest(c, argv[1]!) ?? null;
      if (refused !== null) return refused;
    }
    if (this.masterHost !== null && !(this.replicaSide?.linkUp() ?? false)) {
      return errorReply("-NOMASTERLINK Can't SYNC while not connected with my master");
    }
    if (c.repliesPending) return errorReply('SYNC and PSYNC are invalid with pending output');
    if (r.req & REQ_RDB_MASK && !(r.capa & CAPA_EOF)) return errorReply('Filtered replica requires EOF capability');
    this.log(`Replica ${r.name} asks for synchronization`);
    const stats = this.server.stats;
    if (psync) {
      const offset = parseInt64(argv[2]!);
      if (offset === null) {
        this.log(`Replica ${r.name} asks for synchronization but with a wrong offset`, 'warning');
        return NOT_INTEGER;
      }
      if (this.tryPartialResync(r, argv[1]!, Number(offset))) {
        stats.syncPartialOk++;
        return NO_REPLY;
      }
      // "?" asks for a full resync on purpose: not a failed partial one.
      if (argv[1]!.charCodeAt(0) !== 63) stats.syncPartialErr++;
    } else {
      r.prePsync = true;
    }
    stats.syncFull++;
    r.state = 'wait_bgsave_start';
    c.role = 'replica';
    this.replicas.push(c);
    if (this.replicas.length === 1 && this.buffer === null) {
      // A backlog made from nothing starts a new history.
      this.changeReplicationId();
      this.clearReplicationId2();
      this.createBacklog();
      this.log(`Replication backlog created, my new replication IDs are '${this.replId}' and '${this.replId2}'`);
    }
    const child = this.process.childKind();
    if (child === 'disk') {
      this.attachToRunningBgsave(r);
    } else if (child === 'socket') {
      this.log('Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC');
    } else if (this.server.config.getBool('repl-diskless-sync') && r.capa & CAPA_EOF && this.server.config.getNumber('repl-diskless-sync-delay') > 0) {
      // replicationCron starts it, giving other replicas time to come.
      this.log('Delay next BGSAVE for diskless SYNC');
    } else if (child === null) {
      this.startBgsaveForReplication(r.capa, r.req);
    } else {
      this.log('No BGSAVE in progress, but another BG operation is active. BGSAVE for replication delayed');
    }
    return NO_REPLY;
  }

  /**
   * A BGSAVE to disk is running: the replica can share it if another
   * replica has been accumulating the stream since that fork (and it has
   * every capability and the same requirements); else it waits for the next.
   */
  private attachToRunningBgsave(r: ReplicaLink): void {
    let other: ReplicaLink | null = null;
    for (const o of this.replicas) {
      const l = this.links.get(o)!;
      if (l.state === 'wait_bgsave_end' && (!l.rdbOnly || r.rdbOnly)) {
        other = l;
        break;
      }
    }
    if (other !== null && (r.capa & other.capa) === other.capa && r.req === other.req) {
      if (!r.rdbOnly && this.buffer !== null) this.buffer.copyCursor(other.cursor, r.cursor);
      this.setupFullResync(r, other.initialOffset);
      this.log('Waiting for end of BGSAVE for SYNC');
    } else {
      this.log("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
    }
  }

  /**
   * masterTryPartialResynchronization: the replica continues from `offset`
   * when it names this history (or the previous one, up to where it was
   * valid) and the backlog still holds that offset.
   */
  private tryPartialResync(r: ReplicaLink, askedId: string, offset: number): boolean {
    const id = cText(askedId);
    const isId1 = sameId(id, this.replId);
    const isId2 = sameId(id, this.replId2);
    if (!isId1 && (!isId2 || offset > this.secondReplOffset)) {
      if (id.charCodeAt(0) !== 63) {
        if (!isId1 && !isId2) {
          this.log(
            `Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '${id}', my replication IDs are '${this.replId}' and '${this.replId2}')`,
          );
        } else {
          this.log(`Partial resynchronization not accepted: Requested offset for second ID was ${offset}, but I can reply up to ${this.secondReplOffset}`);
        }
      } else {
        this.log(`Full resync requested by replica ${r.name}`);
      }
      return false;
    }
    const b = this.buffer;
    if (b === null || offset < b.firstByteOffset || offset > b.firstByteOffset + b.histlen) {
      this.log(`Unable to partial resync with replica ${r.name} for lack of backlog (Replica request was: ${offset}).`);
      if (offset > this.masterReplOffset) {
        this.log(`Warning: replica ${r.name} tried to PSYNC with an offset that is greater than the master replication offset.`, 'warning');
      }
      return false;
    }
    const c = r.client;
    c.role = 'replica';
    r.state = 'online';
    r.ackTimeS = this.nowS;
    r.startStreamOnAck = false;
    this.replicas.push(c);
    c.rawOutput?.write(r.capa & CAPA_PSYNC2 ? `+CONTINUE ${this.replId}\r\n` : '+CONTINUE\r\n');
    const n = b.cursorAt(offset, r.cursor);
    this.log(`Partial resynchronization request from ${r.name} accepted. Sending ${n} bytes of backlog starting from offset ${offset}.`);
    this.refreshGoodReplicas();
    r.streaming = true;
    this.flushReplica(r);
    return true;
  }

  /**
   * replicationSetupSlaveForFullResync: the replica waits for the RDB of a
   * BGSAVE that forked at `offset`, accumulating the stream from there; a
   * PSYNC replica is told so with +FULLRESYNC.
   */
  private setupFullResync(r: ReplicaLink, offset: number): void {
    r.initialOffset = offset;
    r.state = 'wait_bgsave_end';
    // The stream it accumulates must start by selecting its database.
    this.slaveSelDb = -1;
    if (!r.rdbOnly) this.buffer?.attach(r.cursor);
    if (!r.prePsync) r.client.rawOutput?.write(`+FULLRESYNC ${this.replId} ${offset}\r\n`);
  }

  /**
   * startBgsaveForReplication: a BGSAVE for the replicas waiting for one,
   * to the replicas' sockets when they all take a diskless transfer and the
   * configuration (or a filter) asks for it, else to disk.
   */
  startBgsaveForReplication(mincapa: number, req: number): boolean {
    const socket = (this.server.config.getBool('repl-diskless-sync') || (req & REQ_RDB_MASK) !== 0) && (mincapa & CAPA_EOF) !== 0;
    this.log(`Starting BGSAVE for SYNC with target: ${socket ? 'replicas sockets' : 'disk'}`);
    const rsi = this.rdbSaveInfo();
    let ok: boolean;
    if (rsi === null) {
      this.log("BGSAVE for replication: replication information not available, can't generate the RDB file right now. Try later.", 'warning');
      ok = false;
    } else if (socket) {
      ok = this.startDisklessTransfer(req, rsi);
    } else {
      ok = this.process.startDiskSave();
    }
    if (ok && !socket && this.server.config.getBool('rdb-del-sync-files')) this.rdbGeneratedByReplication = true;
    if (!ok) {
      this.log('BGSAVE for replication failed', 'warning');
      for (const c of [...this.replicas]) {
        const r = this.links.get(c)!;
        if (r.state !== 'wait_bgsave_start') continue;
        this.forget(c, r);
        c.role = 'normal';
        c.onAsyncReply?.(errorReply("BGSAVE failed, replication can't continue"));
        c.closeAfterReply = true;
        this.server.kill(c);
      }
      return false;
    }
    if (!socket) {
      for (const c of this.replicas) {
        const r = this.links.get(c)!;
        if (r.state === 'wait_bgsave_start' && r.req === req) this.setupFullResync(r, this.masterReplOffset);
      }
    }
    if (this.process.immediate) this.bgsaveDone(true, socket ? 'socket' : 'disk');
    return true;
  }

  /**
   * rdbSaveToSlavesSockets: the waiting replicas with these requirements
   * are set up, then a child writes the RDB, framed by an EOF mark, into a
   * pipe the parent passes on to them.
   */
  private startDisklessTransfer(req: number, rsi: RdbReplicationInfo): boolean {
    const targets: ReplicaLink[] = [];
    for (const c of this.replicas) {
      const r = this.links.get(c)!;
      if (r.state === 'wait_bgsave_start' && r.req === req) {
        targets.push(r);
        this.setupFullResync(r, this.masterReplOffset);
      }
    }
    const transfer = new DisklessTransfer(targets, (n) => (this.server.stats.netReplOutputBytes += n));
    this.transfer = transfer;
    const pipe: RdbPipe = {
      write: (piece, next) => {
        if (this.transfer !== transfer) return;
        if (!transfer.write(piece, next)) {
          this.log('Diskless rdb transfer, last replica dropped, killing fork child.', 'warning');
          this.process.killRdbChild();
        }
      },
      end: (release) => {
        if (this.transfer !== transfer) return;
        this.log(`Diskless rdb transfer, done reading from pipe, ${transfer.targets.size} replicas still up.`, 'warning');
        release();
      },
    };
    const ok = this.process.startSocketSave(pipe, (req & REQ_EXCLUDE_DATA) !== 0, rsi);
    if (!ok) {
      this.transfer = null;
      for (const c of this.replicas) {
        const r = this.links.get(c)!;
        if (r.state === 'wait_bgsave_end') r.state = 'wait_bgsave_start';
      }
    }
    return ok;
  }

  /**
   * updateSlavesWaitingBgsave: an RDB child ended. The replicas that
   * waited for it get the file from disk, or (diskless) are online and
   * wait for their first ACK; on failure they are dropped. Then a BGSAVE
   * starts for replicas still waiting for one (checkChildrenDone).
   */
  bgsaveDone(ok: boolean, type: 'disk' | 'socket'): void {
    if (type === 'socket') this.transfer = null;
    let file: Uint8Array | string | null = null;
    for (const c of [...this.replicas]) {
      const r = this.links.get(c);
      if (r === undefined || r.state !== 'wait_bgsave_end' || r.gone) continue;
      if (!ok) {
        this.log('SYNC failed. BGSAVE child returned an error', 'warning');
        this.server.kill(c);
        continue;
      }
      if (type === 'socket') {
        this.log(`Streamed RDB transfer with replica ${r.name} succeeded (socket). Waiting for REPLCONF ACK from slave to enable streaming`);
        if (!this.putOnline(r)) {
          this.server.kill(c);
          continue;
        }
        r.startStreamOnAck = true;
        continue;
      }
      file ??= this.process.readRdbFile();
      if (typeof file === 'string') {
        this.log(`SYNC failed. Can't open/stat DB after BGSAVE: ${file}`, 'warning');
        this.server.kill(c);
        continue;
      }
      r.state = 'send_bulk';
      this.sendBulk(r, file);
    }
    this.startPendingFork();
  }

  /** sendBulkToSlave: "$<size>\r\n", then the file, as fast as the replica's socket takes it. */
  private sendBulk(r: ReplicaLink, file: Uint8Array): void {
    const out = r.client.rawOutput;
    if (out === null) {
      this.bulkSent(r);
      return;
    }
    let preamble: string | null = `$${file.length}\r\n`;
    let off = 0;
    const stats = this.server.stats;
    pump(out, () => {
      if (r.gone || r.state !== 'send_bulk') return false;
      if (preamble !== null) {
        out.write(preamble);
        stats.netReplOutputBytes += preamble.length;
        preamble = null;
        if (file.length !== 0) return true;
      } else {
        const end = Math.min(file.length, off + BULK_PIECE_BYTES);
        out.write(bytesFromArray(file, off, end));
        stats.netReplOutputBytes += end - off;
        off = end;
      }
      if (off < file.length) return true;
      this.bulkSent(r);
      return false;
    });
  }

  /** The whole file left: the replica goes online and its stream starts, or (RDB only) it is let go. */
  private bulkSent(r: ReplicaLink): void {
    if (!this.putOnline(r)) {
      this.server.kill(r.client);
      return;
    }
    this.startCommandStream(r);
  }

  /** replicaPutOnline: false for a client that wanted the RDB only (it is to be closed). */
  private putOnline(r: ReplicaLink): boolean {
    if (r.rdbOnly) {
      r.state = 'rdb_transmitted';
      this.log(`RDB transfer completed, rdb only replica (${r.name}) should be disconnected asap`);
      return false;
    }
    r.state = 'online';
    r.ackTimeS = this.nowS;
    this.refreshGoodReplicas();
    this.log(`Synchronization with replica ${r.name} succeeded`);
    return true;
  }

  /** replicaStartCommandStream: what accumulated since the fork, and everything after, flows. */
  private startCommandStream(r: ReplicaLink): void {
    r.startStreamOnAck = false;
    r.streaming = true;
    this.flushReplica(r);
  }

  // ---- REPLCONF ----

  /** REPLCONF ACK <offset> from a replica (no reply either way). */
  ack(c: Client, offset: number): void {
    const r = this.links.get(c);
    if (r === undefined || r.state === null) return;
    if (offset > r.ackOffset) r.ackOffset = offset;
    r.ackTimeS = this.nowS;
    const child = this.process.childKind();
    if ((child === 'disk' || child === 'socket') && r.state === 'wait_bgsave_end') this.process.checkChildDone();
    if (r.startStreamOnAck && r.state === 'online') this.startCommandStream(r);
  }

  /** A newline from a replica refreshes its ACK time (processInlineBuffer). */
  newlineFromReplica(c: Client): void {
    const r = this.links.get(c);
    if (r !== undefined && r.state !== null) r.ackTimeS = this.nowS;
  }

  // ---- a replica's connection ----

  /**
   * A replica's command made a reply: Redis never writes replies into the
   * stream, so it logs the misuse and drops the replica instead.
   */
  replyFromReplica(c: Client, argv: readonly string[], reply: Reply): Reply {
    if (reply === NO_REPLY || reply === BLOCKED) return reply;
    if (reply instanceof FramesReply && reply.frames.length === 0) return reply;
    const r = this.links.get(c);
    if (r === undefined || r.state === null) return reply;
    const name = this.server.commands.get(argv[0]!) === undefined ? '<unknown>' : c.lastCommand;
    this.log(`Replica generated a reply to command '${name}', disconnecting it: ${clientInfoLine(c, c, argv)}`, 'warning');
    this.server.kill(c);
    return NO_REPLY;
  }

  /** freeClient's part for a replica: it leaves the list, its buffer and (maybe) the BGSAVE made for it. */
  clientGone(c: Client): void {
    const r = this.links.get(c);
    if (r === undefined || r.state === null || r.gone) return;
    this.log(`Connection with replica ${r.name} lost.`, 'warning');
    const wasWaiting = r.state === 'wait_bgsave_end';
    this.forget(c, r);
    r.gone = true;
    // Nobody needs the running BGSAVE any more and no save rule wants it either.
    if (
      wasWaiting &&
      noSaveRules(this.server) &&
      this.process.childKind() === 'disk' &&
      !this.replicas.some((o) => this.links.get(o)!.state === 'wait_bgsave_end')
    ) {
      this.process.killRdbChild();
    }
  }

  /** Takes a replica out of the list and the buffer. */
  private forget(c: Client, r: ReplicaLink): void {
    this.buffer?.detach(r.cursor);
    this.transfer?.drop(r);
    r.streaming = false;
    r.state = null;
    const i = this.replicas.indexOf(c);
    if (i >= 0) this.replicas.splice(i, 1);
    if (this.replicas.length === 0) this.noReplicasSinceS = this.nowS;
    this.refreshGoodReplicas();
  }

  // ---- serverCron ----

  /** serverCron's part, hz times a second: replicationCron runs once a second (run_with_period(1000)). */
  cron(): void {
    const hz = Math.min(500, Math.max(1, this.server.config.getNumber('hz')));
    const every = Math.max(1, Math.floor(1000 / Math.floor(1000 / hz)));
    if (this.serverCronLoops++ % every === 0) this.replicationCron();
  }

  /** replicationCron: pings, keep-alive newlines, timeouts, the backlog's TTL, pending BGSAVEs. */
  replicationCron(): void {
    const server = this.server;
    server.updateTime();
    const cfg = server.config;
    const nowS = this.nowS;
    this.replicaSide?.cron();
    if (this.replicationCronLoops % cfg.getNumber('repl-ping-replica-period') === 0 && this.replicas.length !== 0) {
      this.feedCommand(this.slaveSelDb, PING_COMMAND);
    }
    // Replicas still waiting for their RDB hear a newline each second, so they do not time out.
    const child = this.process.childKind();
    for (const c of this.replicas) {
      const r = this.links.get(c)!;
      if (r.state === 'wait_bgsave_start' || (r.state === 'wait_bgsave_end' && child !== 'socket')) c.rawOutput?.write('\n');
    }
    const timeoutS = cfg.getNumber('repl-timeout');
    for (const c of [...this.replicas]) {
      const r = this.links.get(c)!;
      if (r.state === 'online' && !r.prePsync && nowS - r.ackTimeS > timeoutS) {
        this.log(`Disconnecting timedout replica (streaming sync): ${r.name}`, 'warning');
        server.kill(c);
      } else if (r.state === 'wait_bgsave_end' && child === 'socket' && r.lastPartialWriteS !== 0 && nowS - r.lastPartialWriteS > timeoutS) {
        this.log(`Disconnecting timedout replica (full sync): ${r.name}`, 'warning');
        server.kill(c);
      }
    }
    const ttl = cfg.getNumber('repl-backlog-ttl');
    if (this.replicas.length === 0 && ttl > 0 && this.buffer !== null && this.masterHost === null && nowS - this.noReplicasSinceS > ttl) {
      // Without a backlog the offset stops counting: the old ID must not be trusted any more.
      this.changeReplicationId();
      this.clearReplicationId2();
      this.freeBacklog();
      this.log(`Replication backlog freed after ${ttl} seconds without connected replicas.`);
    }
    this.startPendingFork();
    this.removeRdbUsedToSyncReplicas();
    this.refreshGoodReplicas();
    this.replicationCronLoops++;
  }

  /**
   * replicationStartPendingFork: a BGSAVE for the replicas waiting for one
   * (those with the first one's requirements), once no child runs; a
   * diskless one waits repl-diskless-sync-delay for more replicas to come.
   */
  startPendingFork(): void {
    if (this.process.childKind() !== null) return;
    const nowS = this.nowS;
    let waiting = 0;
    let maxIdle = 0;
    let mincapa = 0;
    let req = 0;
    for (const c of this.replicas) {
      const r = this.links.get(c)!;
      if (r.state !== 'wait_bgsave_start') continue;
      if (waiting === 0) req = r.req;
      else if (r.req !== req) continue;
      maxIdle = Math.max(maxIdle, nowS - Math.floor(c.lastInteractionMs / 1000));
      mincapa = waiting === 0 ? r.capa : mincapa & r.capa;
      waiting++;
    }
    if (waiting === 0) return;
    const cfg = this.server.config;
    const maxReplicas = cfg.getNumber('repl-diskless-sync-max-replicas');
    if (!cfg.getBool('repl-diskless-sync') || (maxReplicas > 0 && waiting >= maxReplicas) || maxIdle >= cfg.getNumber('repl-diskless-sync-delay')) {
      this.startBgsaveForReplication(mincapa, req);
    }
  }

  /** rdb-del-sync-files: a server with no persistence does not keep the RDB it made for replicas. */
  private removeRdbUsedToSyncReplicas(): void {
    const cfg = this.server.config;
    if (!cfg.getBool('rdb-del-sync-files')) {
      this.rdbGeneratedByReplication = false;
      return;
    }
    const persistenceOff = noSaveRules(this.server) && !cfg.getBool('appendonly');
    if (!persistenceOff || !this.rdbGeneratedByReplication) return;
    for (const c of this.replicas) {
      const s = this.links.get(c)!.state;
      if (s === 'wait_bgsave_start' || s === 'wait_bgsave_end' || s === 'send_bulk') return;
    }
    if (!this.process.rdbFileExists()) return;
    this.rdbGeneratedByReplication = false;
    this.log('Removing the RDB file used to feed replicas in a persistence-less instance');
    this.process.removeRdbFile();
  }

  /** refreshGoodSlavesCount, for min-replicas-to-write. */
  refreshGoodReplicas(): void {
    const cfg = this.server.config;
    const maxLag = cfg.getNumber('min-replicas-max-lag');
    if (cfg.getNumber('min-replicas-to-write') === 0 || maxLag === 0) return;
    const nowS = this.nowS;
    let good = 0;
    for (const c of this.replicas) {
      const r = this.links.get(c)!;
      if (r.state === 'online' && nowS - r.ackTimeS <= maxLag) good++;
    }
    this.goodReplicas = good;
  }
}

/** strtoll / atoi: the leading integer of a string, 0 when there is none. */
function cInteger(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m === null ? 0 : Number(m[1]);
}

/** The `save` parameter holds no rule (saveparamslen == 0). */
function noSaveRules(server: RedisServer): boolean {
  return server.config.get('save').trim() === '';
}

/** strcasecmp of two C strings being equal. */
function sameId(a: string, b: string): boolean {
  return a.length === b.length && asciiLower(a) === asciiLower(b);
}
