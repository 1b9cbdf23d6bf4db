import { errorReply, type Reply } from '../resp/reply.js';
import { asciiLower, bytesFromArray } from '../resp/bytes.js';
import { parseInt64 } from '../numbers/int64.js';
import { NOT_INTEGER } from '../server/errors.js';
import type { Client } from '../server/client.js';
import type { RdbPipe } from './server-runtime.js';
import { NO_REPLY, type ReplicationPrimary } from './primary.js';
import type { RdbReplicationInfo } from './state.js';
import { cString } from '../numbers/c-string.js';
import { CAPA_EOF, CAPA_PSYNC2, REQ_EXCLUDE_DATA, REQ_RDB_MASK, type ReplicaLink } from './primary-replica-link.js';
import { BULK_PIECE_BYTES, DisklessTransfer, pump } from './primary-transfer.js';

/**
 * A replica's synchronization with the primary (src/replication.c):
 * SYNC and PSYNC, the partial resync from the backlog, or the full one by
 * a BGSAVE to disk (shared with replicas that come while it runs) or to
 * the replicas' sockets, the RDB sent at the pace each socket takes it,
 * and the replica put online once it has it.
 */
export class Synchronization {
  /** The diskless transfer in progress, if any. */
  private transfer: DisklessTransfer | null = null;
  /** A disk save was made for replicas (rdb-del-sync-files may remove it). */
  rdbGeneratedByReplication = false;

  constructor(private readonly p: ReplicationPrimary) {}

  /** syncCommand: SYNC, or PSYNC <replid> <offset>. */
  sync(c: Client, argv: string[], psync: boolean): Reply {
    const r = this.p.link(c);
    // A replica asking again, or a monitor (Redis flags both as slaves), gets nothing.
    if (r.state !== null || c.role === 'monitor') return NO_REPLY;
    if (psync && argv.length > 3 && asciiLower(cString(argv[3]!)) === 'failover') {
      this.p.log(`Failover request received for replid ${cString(argv[1]!)}.`, 'warning');
      if (this.p.state.masterHost === null) return errorReply("PSYNC FAILOVER can't be sent to a master.");
      const refused = this.p.state.replica.failoverRequest(c, argv);
      if (refused !== null) return refused;
    }
    // Replicas may not sync with a primary that is handing over.
    if (this.p.failoverState !== 'no-failover') return errorReply("-NOMASTERLINK Can't SYNC while failing over");
    if (this.p.state.masterHost !== null && !this.p.state.replica.linkUp()) {
      return errorReply("-NOMASTERLINK Can't SYNC while not connected with my master");
    }
    if (c.repliesPending) return errorReply('SYNC and PSYNC are invalid with pending output');
    if (r.req & REQ_RDB_MASK && !(r.capa & CAPA_EOF)) return errorReply('Filtered replica requires EOF capability');
    this.p.log(`Replica ${r.name} asks for synchronization`);
    this.p.step(`step 1: ${r.name} asks for the stream (${psync ? `PSYNC ${cString(argv[1]!)} ${cString(argv[2]!)}` : 'SYNC'})`);
    const stats = this.p.server.stats;
    if (psync) {
      const offset = parseInt64(argv[2]!);
      if (offset === null) {
        this.p.log(`Replica ${r.name} asks for synchronization but with a wrong offset`, 'warning');
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
    this.p.replicas.push(c);
    if (this.p.replicas.length === 1 && this.p.buffer === null) {
      // A backlog made from nothing starts a new history.
      this.p.state.changeReplicationId();
      this.p.state.clearReplicationId2();
      this.p.state.createBacklog();
      this.p.log(`Replication backlog created, my new replication IDs are '${this.p.replId}' and '${this.p.state.replId2}'`);
    }
    const child = this.p.state.process.childKind();
    if (child === 'disk') {
      this.attachToRunningBgsave(r);
    } else if (child === 'socket') {
      this.p.log('Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC');
    } else if (this.p.server.config.getBool('repl-diskless-sync') && r.capa & CAPA_EOF && this.p.server.config.getNumber('repl-diskless-sync-delay') > 0) {
      // replicationCron starts it, giving other replicas time to come.
      this.p.log('Delay next BGSAVE for diskless SYNC');
    } else if (child === null) {
      this.startBgsaveForReplication(r.capa, r.req);
    } else {
      this.p.log('No BGSAVE in progress, but another BG operation is active. BGSAVE for replication delayed');
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
    for (const o of this.p.replicas) {
      const l = this.p.link(o);
      if (l.state === 'wait_bgsave_end' && (!l.rdbOnly || r.rdbOnly)) {
        other = l;
        break;
      }
    }
    if (other !== null && (r.capa & other.capa) === other.capa && r.req === other.req) {
      if (!r.rdbOnly && this.p.buffer !== null) this.p.buffer.copyCursor(other.cursor, r.cursor);
      this.setupFullResync(r, other.initialOffset);
      this.p.step(`step 2: ${r.name} shares the BGSAVE already running for ${other.name}`);
      this.p.log('Waiting for end of BGSAVE for SYNC');
    } else {
      this.p.log("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
    }
  }

  /**
   * masterTryPartialResynchronization: the replica continues from `offset`
   * when it names this history (or the previous one, up to where it was
   * valid) and the backlog still holds that offset.
   */
  private tryPartialResync(r: ReplicaLink, askedId: string, offset: number): boolean {
    const id = cString(askedId);
    const isId1 = sameId(id, this.p.replId);
    const isId2 = sameId(id, this.p.state.replId2);
    if (!isId1 && (!isId2 || offset > this.p.state.secondReplOffset)) {
      if (id.charCodeAt(0) !== 63) {
        if (!isId1 && !isId2) {
          this.p.log(
            `Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '${id}', my replication IDs are '${this.p.replId}' and '${this.p.state.replId2}')`,
          );
        } else {
          this.p.log(`Partial resynchronization not accepted: Requested offset for second ID was ${offset}, but I can reply up to ${this.p.state.secondReplOffset}`);
        }
      } else {
        this.p.log(`Full resync requested by replica ${r.name}`);
      }
      return false;
    }
    const b = this.p.buffer;
    if (b === null || offset < b.firstByteOffset || offset > b.firstByteOffset + b.histlen) {
      this.p.log(`Unable to partial resync with replica ${r.name} for lack of backlog (Replica request was: ${offset}).`);
      if (offset > this.p.masterReplOffset) {
        this.p.log(`Warning: replica ${r.name} tried to PSYNC with an offset that is greater than the master replication offset.`, 'warning');
      }
      return false;
    }
    const c = r.client;
    c.role = 'replica';
    r.state = 'online';
    r.ackTimeS = this.p.nowS;
    r.startStreamOnAck = false;
    this.p.replicas.push(c);
    c.rawOutput?.write(r.capa & CAPA_PSYNC2 ? `+CONTINUE ${this.p.replId}\r\n` : '+CONTINUE\r\n');
    const n = b.cursorAt(offset, r.cursor);
    this.p.step(`partial resync: ${r.name} continues from offset ${offset}, ${n} bytes of backlog`);
    this.p.log(`Partial resynchronization request from ${r.name} accepted. Sending ${n} bytes of backlog starting from offset ${offset}.`);
    this.p.refreshGoodReplicas();
    r.streaming = true;
    this.p.flushReplica(r);
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
    this.p.slaveSelDb = -1;
    if (!r.rdbOnly) this.p.buffer?.attach(r.cursor);
    if (!r.prePsync) r.client.rawOutput?.write(`+FULLRESYNC ${this.p.replId} ${offset}\r\n`);
    this.p.step(`step 2: a BGSAVE for ${r.name} holds the dataset at offset ${offset}; the writes after it are kept in a backlog`);
  }

  /**
   * startBgsaveForReplication: a BGSAVE for the replicas waiting for one,
   * to the replicas' sockets when they all take a diskless transfer and the
   * configuration (or a filter) asks for it, else to disk.
   */
  startBgsaveForReplication(mincapa: number, req: number): boolean {
    const socket = (this.p.server.config.getBool('repl-diskless-sync') || (req & REQ_RDB_MASK) !== 0) && (mincapa & CAPA_EOF) !== 0;
    this.p.log(`Starting BGSAVE for SYNC with target: ${socket ? 'replicas sockets' : 'disk'}`);
    const rsi = this.p.state.rdbSaveInfo();
    let ok: boolean;
    if (rsi === null) {
      this.p.log("BGSAVE for replication: replication information not available, can't generate the RDB file right now. Try later.", 'warning');
      ok = false;
    } else if (socket) {
      ok = this.startDisklessTransfer(req, rsi);
    } else {
      ok = this.p.state.process.startDiskSave();
    }
    if (ok && !socket && this.p.server.config.getBool('rdb-del-sync-files')) this.rdbGeneratedByReplication = true;
    if (!ok) {
      this.p.log('BGSAVE for replication failed', 'warning');
      for (const c of [...this.p.replicas]) {
        const r = this.p.link(c);
        if (r.state !== 'wait_bgsave_start') continue;
        this.p.forget(c, r);
        c.role = 'normal';
        c.onAsyncReply?.(errorReply("BGSAVE failed, replication can't continue"));
        c.closeAfterReply = true;
        this.p.server.kill(c);
      }
      return false;
    }
    if (!socket) {
      const sharing: string[] = [];
      for (const c of this.p.replicas) {
        const r = this.p.link(c);
        if (r.state !== 'wait_bgsave_start' || r.req !== req) continue;
        this.setupFullResync(r, this.p.masterReplOffset);
        sharing.push(r.name);
      }
      this.stepShared(sharing);
    }
    if (this.p.state.process.immediate) this.bgsaveDone(true, socket ? 'socket' : 'disk');
    return true;
  }

  /** Several replicas that waited together share the one snapshot made for them all. */
  private stepShared(names: readonly string[]): void {
    if (names.length > 1) this.p.step(`step 2: one BGSAVE for ${names.join(' and ')}`);
  }

  /**
   * rdbSaveToSlavesSockets: the waiting replicas with these requirements
   * are set up, then a child writes the RDB, framed by an EOF mark, into a
   * pipe the parent passes on to them.
   */
  private startDisklessTransfer(req: number, rsi: RdbReplicationInfo): boolean {
    const targets: ReplicaLink[] = [];
    for (const c of this.p.replicas) {
      const r = this.p.link(c);
      if (r.state === 'wait_bgsave_start' && r.req === req) {
        targets.push(r);
        this.setupFullResync(r, this.p.masterReplOffset);
      }
    }
    this.stepShared(targets.map((r) => r.name));
    for (const r of targets) this.p.step(`step 3: the snapshot streams to ${r.name} as the child writes it`);
    const transfer = new DisklessTransfer(
      targets,
      (n) => (this.p.server.stats.netReplOutputBytes += n),
      () => this.p.nowS,
    );
    this.transfer = transfer;
    const pipe: RdbPipe = {
      write: (piece, next) => {
        if (this.transfer !== transfer) return;
        if (!transfer.write(piece, next)) {
          this.p.log('Diskless rdb transfer, last replica dropped, killing fork child.', 'warning');
          this.p.state.process.killRdbChild();
        }
      },
      end: (release) => {
        if (this.transfer !== transfer) return;
        this.p.log(`Diskless rdb transfer, done reading from pipe, ${transfer.targets.size} replicas still up.`, 'warning');
        release();
      },
    };
    const ok = this.p.state.process.startSocketSave(pipe, (req & REQ_EXCLUDE_DATA) !== 0, rsi);
    if (!ok) {
      this.transfer = null;
      for (const c of this.p.replicas) {
        const r = this.p.link(c);
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
    for (const c of [...this.p.replicas]) {
      const r = this.p.linkOf(c);
      if (r === undefined || r.state !== 'wait_bgsave_end' || r.gone) continue;
      if (!ok) {
        this.p.log('SYNC failed. BGSAVE child returned an error', 'warning');
        this.p.server.kill(c);
        continue;
      }
      if (type === 'socket') {
        this.p.log(`Streamed RDB transfer with replica ${r.name} succeeded (socket). Waiting for REPLCONF ACK from slave to enable streaming`);
        if (!this.putOnline(r)) {
          this.p.server.kill(c);
          continue;
        }
        r.startStreamOnAck = true;
        continue;
      }
      file ??= this.p.state.process.readRdbFile();
      if (typeof file === 'string') {
        this.p.log(`SYNC failed. Can't open/stat DB after BGSAVE: ${file}`, 'warning');
        this.p.server.kill(c);
        continue;
      }
      r.state = 'send_bulk';
      this.sendBulk(r, file);
    }
    this.p.state.cronJobs.startPendingFork();
  }

  /** sendBulkToSlave: "$<size>\r\n", then the file, as fast as the replica's socket takes it. */
  private sendBulk(r: ReplicaLink, file: Uint8Array): void {
    const out = r.client.rawOutput;
    if (out === null) {
      this.bulkSent(r);
      return;
    }
    this.p.step(`step 3: BGSAVE done; sends the snapshot to ${r.name} (${file.length} bytes)`);
    let preamble: string | null = `$${file.length}\r\n`;
    let off = 0;
    const stats = this.p.server.stats;
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
      this.p.server.kill(r.client);
      return;
    }
    this.startCommandStream(r);
  }

  /** replicaPutOnline: false for a client that wanted the RDB only (it is to be closed). */
  private putOnline(r: ReplicaLink): boolean {
    if (r.rdbOnly) {
      r.state = 'rdb_transmitted';
      this.p.log(`RDB transfer completed, rdb only replica (${r.name}) should be disconnected asap`);
      return false;
    }
    r.state = 'online';
    r.ackTimeS = this.p.nowS;
    this.p.refreshGoodReplicas();
    this.p.log(`Synchronization with replica ${r.name} succeeded`);
    this.p.step(`step 4: snapshot sent to ${r.name}; the backlog of writes follows`);
    return true;
  }

  /** replicaStartCommandStream: what accumulated since the fork, and everything after, flows. */
  startCommandStream(r: ReplicaLink): void {
    r.startStreamOnAck = false;
    r.streaming = true;
    r.catchingUp = true;
    this.p.flushReplica(r);
  }

  /** A replica went away: a diskless transfer goes on without it. */
  dropFromTransfer(r: ReplicaLink): void {
    this.transfer?.drop(r);
  }
}

/** strcasecmp of two C strings being equal. */
function sameId(a: string, b: string): boolean {
  return a.length === b.length && asciiLower(a) === asciiLower(b);
}
