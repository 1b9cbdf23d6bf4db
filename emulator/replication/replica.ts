import { ErrorReply, errorReply, FramesReply, type Reply } from '../resp/reply.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import type { Client } from '../server/client.js';
import { clientInfoLine } from '../server/client-info.js';
import type { PrimaryLink } from './replica-link.js';
import { SyncTransfer } from './replica-transfer.js';
import { emptyAllData, loadSyncedRdb, loadSyncedRdbBeside, type SyncedRdb } from './replica-load.js';
import { streamCommand } from './stream.js';
import { PrimaryClient } from './replica-primary-client.js';
import type { ReplicationState } from './state.js';
import { cString } from '../numbers/c-string.js';

/**
 * The replica's part of replication (src/replication.c): REPLICAOF, the
 * connection to the primary and its handshake (syncWithMaster), the full
 * synchronization's transfer and load (readSyncBulkPayload), the
 * primary's client whose commands the server applies, and the cached
 * primary that lets a replica continue with PSYNC after the link drops or
 * the server restarts. The offsets and IDs it moves are the shared state's.
 */

/**
 * REPL_STATE_*: no primary; one to connect to; connecting; the handshake
 * (waiting for the reply to PING, AUTH, REPLCONF listening-port,
 * ip-address, capa, PSYNC); receiving the RDB; connected.
 */
export type ReplState =
  | 'none'
  | 'connect'
  | 'connecting'
  | 'receive_ping_reply'
  | 'send_handshake'
  | 'receive_auth_reply'
  | 'receive_port_reply'
  | 'receive_ip_reply'
  | 'receive_capa_reply'
  | 'send_psync'
  | 'receive_psync_reply'
  | 'transfer'
  | 'connected';

const HANDSHAKE_STATES: ReadonlySet<ReplState> = new Set([
  'receive_ping_reply',
  'send_handshake',
  'receive_auth_reply',
  'receive_port_reply',
  'receive_ip_reply',
  'receive_capa_reply',
  'send_psync',
  'receive_psync_reply',
]);

/** No reply at all (what the primary's client is answered). */
const NO_REPLY = new FramesReply([]);

/** PSYNC's outcome (slaveTryPartialResynchronization's return values). */
type PsyncResult = 'continue' | 'fullresync' | 'not-supported' | 'try-later';

export class ReplicationReplica {
  /** server.repl_state. */
  state: ReplState = 'none';
  /** server.master: the connected primary's client. */
  master: PrimaryClient | null = null;
  /** server.cached_master. */
  cachedMaster: PrimaryClient | null = null;
  /** The connection during the handshake and transfer (repl_transfer_s). */
  private link: PrimaryLink | null = null;
  /** Bytes read from it and not used yet. */
  private inbuf = '';
  /** The RDB being received. */
  transfer: SyncTransfer | null = null;
  /** The full sync's file is loading: the stream waits. */
  private loading = false;
  /**
   * A diskless load is under way: Redis parses the RDB as it comes off the
   * socket, so the replica is loading (or async_loading) from the header on.
   * Whether its old data waits beside the new (swapdb).
   */
  private disklessLoad: { swapdb: boolean } | null = null;
  /** repl_transfer_lastio, unix seconds. */
  transferLastIoS = 0;
  /** server.master_replid and master_initial_offset: what +FULLRESYNC announced. */
  private masterReplId = '';
  private masterInitialOffset = -1;
  /** repl_down_since, unix seconds; 0 while the link is up (or never was). */
  downSinceS = 0;
  /** Each link gets a number; events of a link given up are ignored. */
  private linkSerial = 0;
  /** A full sync ended: the writes that arrived meanwhile are being applied. */
  private backlogPending = false;

  constructor(private readonly s: ReplicationState) {}

  private get server() {
    return this.s.server;
  }

  private log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    this.s.log(text, level);
  }

  private step(text: string): void {
    this.s.process.step(text);
  }

  private get nowS(): number {
    return this.s.nowS;
  }

  /** slaveIsInHandshakeState. */
  get inHandshake(): boolean {
    return HANDSHAKE_STATES.has(this.state);
  }

  // ---- REPLICAOF ----

  /**
   * replicationSetMaster: the server follows `host:port`. A server that
   * was a primary keeps its own history as a cached primary, so the new
   * one may continue it with PSYNC; one that followed another primary
   * keeps that one's.
   */
  setMaster(host: string, port: number): void {
    const s = this.s;
    const wasMaster = s.masterHost === null;
    s.masterHost = null;
    if (this.master !== null) this.freeMasterClient();
    this.disconnectBlockedClients();
    s.masterHost = host;
    s.masterPort = port;
    this.syncConfig();
    this.cancelHandshake(false);
    if (wasMaster) {
      this.discardCachedMaster();
      this.cacheMasterUsingMyself();
    }
    this.state = 'connect';
    this.log(`Connecting to MASTER ${host}:${port}`);
    this.connectWithMaster();
  }

  /**
   * replicationUnsetMaster: the server becomes a primary. Its history so
   * far becomes the secondary ID, so its replicas (and the siblings it
   * had) continue with PSYNC; they are disconnected to learn the new ID.
   */
  unsetMaster(): void {
    const s = this.s;
    if (s.masterHost === null) return;
    s.masterHost = null;
    this.syncConfig();
    if (this.master !== null) this.freeMasterClient();
    this.discardCachedMaster();
    this.cancelHandshake(false);
    s.shiftReplicationId();
    this.step(`promoted to primary: the old history stays valid as replid2 up to offset ${s.secondReplOffset}`);
    s.primary.disconnectReplicas();
    this.state = 'none';
    s.primary.slaveSelDb = -1;
    s.primary.noReplicasSinceS = this.nowS;
    this.downSinceS = 0;
    // An AOF stopped by a sync that never finished starts again.
    s.process.restartAof();
  }

  /** CONFIG GET replicaof shows the primary followed now. */
  private syncConfig(): void {
    const s = this.s;
    this.server.config.set('replicaof', s.masterHost === null ? 'no one' : `${s.masterHost} ${s.masterPort}`, true);
  }

  /** disconnectAllBlockedClients: clients blocked on keys are told the role changed and let go. */
  private disconnectBlockedClients(): void {
    for (const c of [...this.server.clients.values()]) {
      if (c.blockedOn === null) continue;
      this.server.blocking.unblock(c, errorReply('-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)'));
      c.closeAfterReply = true;
    }
  }

  // ---- the connection and the handshake (syncWithMaster) ----

  /** connectWithMaster. */
  connectWithMaster(): boolean {
    const s = this.s;
    const serial = ++this.linkSerial;
    const link = s.process.dial(s.masterHost!, s.masterPort, {
      connected: () => {
        if (serial === this.linkSerial) this.syncWithMaster();
      },
      data: (bytes) => {
        if (serial === this.linkSerial) this.readFromLink(bytesFromArray(bytes));
      },
      closed: (reason) => {
        if (serial === this.linkSerial) this.linkClosed(reason);
      },
    });
    if (typeof link === 'string') {
      this.log(`Unable to connect to MASTER: ${link}`, 'warning');
      return false;
    }
    this.link = link;
    this.inbuf = '';
    this.transferLastIoS = this.nowS;
    this.state = 'connecting';
    this.log('MASTER <-> REPLICA sync started');
    return true;
  }

  /** The non-blocking connect fired: PING first, to see the primary answers. */
  private syncWithMaster(): void {
    if (this.state === 'none') {
      this.dropLink();
      return;
    }
    if (this.state !== 'connecting') return;
    this.log('Non blocking connect for SYNC fired the event.');
    this.state = 'receive_ping_reply';
    this.send(['PING']);
  }

  private send(argv: readonly string[]): void {
    this.link?.write(streamCommand(argv));
  }

  /** receiveSynchronousResponse: one line of the reply, or null until it is whole. */
  private readLine(): string | null {
    const nl = this.inbuf.indexOf('\n');
    if (nl < 0) return null;
    let line = this.inbuf.slice(0, nl);
    this.inbuf = this.inbuf.slice(nl + 1);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    this.transferLastIoS = this.nowS;
    return cString(line);
  }

  /** Bytes from the primary before it is a client: handshake replies, then the RDB. */
  private readFromLink(bytes: string): void {
    this.inbuf += bytes;
    while (this.link !== null) {
      // While the file loads the thread reads nothing: what follows the
      // file waits for the primary's client, which takes it first.
      if (this.loading) return;
      const before = this.state;
      if (this.state === 'transfer') {
        this.readSyncBulkPayload();
        return;
      }
      const line = this.readLine();
      if (line === null) return;
      this.handshakeStep(line);
      if (this.state === before && this.state !== 'receive_psync_reply') return;
    }
  }

  /** One reply of the handshake, in the state that waits for it. */
  private handshakeStep(reply: string): void {
    switch (this.state) {
      case 'receive_ping_reply':
        // +PONG, or an authentication error: AUTH comes next anyway.
        if (!reply.startsWith('+') && !reply.startsWith('-NOAUTH') && !reply.startsWith('-NOPERM') && !reply.startsWith('-ERR operation not permitted')) {
          this.log(`Error reply to PING from master: '${reply}'`, 'warning');
          this.handshakeFailed();
          return;
        }
        this.log('Master replied to PING, replication can continue...');
        this.state = 'send_handshake';
        this.sendHandshake();
        return;
      case 'receive_auth_reply':
        if (reply.startsWith('-')) {
          this.log(`Unable to AUTH to MASTER: ${reply}`, 'warning');
          this.handshakeFailed();
          return;
        }
        this.state = 'receive_port_reply';
        return;
      case 'receive_port_reply':
        if (reply.startsWith('-')) this.log(`(Non critical) Master does not understand REPLCONF listening-port: ${reply}`);
        this.state = this.server.config.get('replica-announce-ip') === '' ? 'receive_capa_reply' : 'receive_ip_reply';
        return;
      case 'receive_ip_reply':
        if (reply.startsWith('-')) this.log(`(Non critical) Master does not understand REPLCONF ip-address: ${reply}`);
        this.state = 'receive_capa_reply';
        return;
      case 'receive_capa_reply':
        if (reply.startsWith('-')) this.log(`(Non critical) Master does not understand REPLCONF capa: ${reply}`);
        this.state = 'send_psync';
        this.sendPsync();
        return;
      case 'receive_psync_reply':
        this.psyncReply(reply);
        return;
      default:
        return;
    }
  }

  /** AUTH (with masterauth), REPLCONF listening-port, ip-address (when announced), capa: all at once. */
  private sendHandshake(): void {
    const cfg = this.server.config;
    const auth = cfg.get('masterauth');
    if (auth !== '') {
      const user = cfg.get('masteruser');
      this.send(user !== '' ? ['AUTH', user, auth] : ['AUTH', auth]);
    }
    const announced = cfg.getNumber('replica-announce-port');
    this.send(['REPLCONF', 'listening-port', String(announced !== 0 ? announced : this.server.port)]);
    const ip = cfg.get('replica-announce-ip');
    if (ip !== '') this.send(['REPLCONF', 'ip-address', ip]);
    // EOF: a diskless transfer's framing; PSYNC2: +CONTINUE with the primary's new ID.
    this.send(['REPLCONF', 'capa', 'eof', 'capa', 'psync2']);
    this.state = auth !== '' ? 'receive_auth_reply' : 'receive_port_reply';
  }

  /** The writing half of slaveTryPartialResynchronization. */
  private sendPsync(): void {
    this.masterInitialOffset = -1;
    let replId = '?';
    let offset = '-1';
    const cached = this.cachedMaster;
    if (cached !== null) {
      replId = cached.replId;
      offset = String(cached.reploff + 1);
      this.log(`Trying a partial resynchronization (request ${replId}:${offset}).`);
    } else {
      this.log('Partial resynchronization not possible (no cached master)');
    }
    if (this.s.primary.failoverState === 'failover-in-progress') this.send(['PSYNC', replId, offset, 'FAILOVER']);
    else this.send(['PSYNC', replId, offset]);
    this.step(`step 1: connected to ${this.s.masterHost}:${this.s.masterPort}; asks for the stream with PSYNC ${replId} ${offset}`);
    this.state = 'receive_psync_reply';
  }

  /** The reading half of slaveTryPartialResynchronization, then what syncWithMaster does with it. */
  private psyncReply(reply: string): void {
    // The primary sends newlines while it prepares its answer.
    if (reply.length === 0) return;
    const result = this.psyncOutcome(reply);
    if (this.s.primary.failoverState === 'failover-in-progress') {
      const failover = this.s.primary.failover;
      if (result === 'continue' || result === 'fullresync') failover.clear();
      else {
        failover.abort('Failover target rejected psync request');
        return;
      }
    }
    if (result === 'try-later') {
      this.handshakeFailed();
      return;
    }
    if (result === 'continue') {
      this.log('MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.');
      this.step(`partial resync: continues from offset ${this.cachedMaster!.reploff + 1}, no snapshot needed`);
      const rest = this.inbuf;
      this.inbuf = '';
      this.resurrectCachedMaster(bytesToArray(rest));
      return;
    }
    if (result === 'not-supported') {
      this.log('Retrying with SYNC...');
      this.link!.write('SYNC\r\n');
    }
    this.startTransfer();
  }

  private psyncOutcome(reply: string): PsyncResult {
    if (reply.startsWith('+FULLRESYNC')) {
      const m = /^\+FULLRESYNC ([^ ]*) (.*)$/.exec(reply);
      if (m === null || m[1]!.length !== 40) {
        this.log('Master replied with wrong +FULLRESYNC syntax.', 'warning');
        // Blanked, so the next PSYNC cannot name a history by mistake.
        this.masterReplId = '';
      } else {
        this.masterReplId = m[1]!;
        const off = /^\s*([+-]?\d+)/.exec(m[2]!);
        this.masterInitialOffset = off === null ? 0 : Number(off[1]);
        this.log(`Full resync from master: ${this.masterReplId}:${this.masterInitialOffset}`);
        const meanwhile = this.server.config.getBool('replica-serve-stale-data') ? 'serves its old data' : 'answers -MASTERDOWN';
        this.step(`step 2: the primary makes a snapshot at offset ${this.masterInitialOffset}; meanwhile this replica ${meanwhile}`);
      }
      return 'fullresync';
    }
    if (reply.startsWith('+CONTINUE')) {
      this.log('Successful partial resynchronization with master.');
      const id = reply.slice(10);
      const cached = this.cachedMaster!;
      if (reply.length > 9 && id.length === 40 && id !== cached.replId) {
        // The primary's history has a new ID (it was promoted): the old one
        // becomes our secondary ID, and our replicas must learn the new one.
        this.log(`Master replication ID changed to ${id}`, 'warning');
        const s = this.s;
        s.replId2 = cached.replId;
        s.secondReplOffset = s.masterReplOffset + 1;
        s.replId = id;
        cached.replId = id;
        s.primary.disconnectReplicas();
      }
      return 'continue';
    }
    if (reply.startsWith('-NOMASTERLINK') || reply.startsWith('-LOADING')) {
      this.log(`Master is currently unable to PSYNC but should be in the future: ${reply}`);
      return 'try-later';
    }
    if (!reply.startsWith('-ERR')) this.log(`Unexpected reply to PSYNC from master: ${reply}`, 'warning');
    else this.log(`Master does not support PSYNC or is in error state (reply: ${reply})`);
    return 'not-supported';
  }

  /** A step of the handshake failed: the link goes, and replicationCron tries again. */
  private handshakeFailed(): void {
    this.dropLink();
    this.state = 'connect';
  }

  private dropLink(): void {
    this.linkSerial++;
    this.link?.close();
    this.link = null;
    this.inbuf = '';
    this.closeTransferFile(true);
    this.transfer = null;
    this.loading = false;
    const load = this.stopDisklessLoad();
    if (load !== null) this.discardHalfLoaded(load);
  }

  /** The connection failed or closed while the replica read it itself. */
  private linkClosed(reason: string): void {
    if (this.state === 'connecting') {
      this.log(`Error condition on socket for SYNC: ${reason}`, 'warning');
      this.handshakeFailed();
      return;
    }
    if (this.inHandshake) {
      this.log(`Failed to read response from the server: ${reason}`, 'warning');
      this.log('Master did not respond to command during SYNC handshake', 'warning');
      this.handshakeFailed();
      return;
    }
    if (this.state === 'transfer') {
      // A diskless load reads the socket itself: its read fails.
      const load = this.stopDisklessLoad();
      if (load !== null) this.log(`Failed trying to load the MASTER synchronization DB from socket: ${reason}`, 'warning');
      else this.log(`I/O error trying to sync with MASTER: ${reason}`, 'warning');
      this.cancelHandshake(true);
      if (load !== null) this.discardHalfLoaded(load);
    }
  }

  /**
   * cancelReplicationHandshake: a connection attempt, handshake or
   * transfer in progress is given up (and with `reconnect` tried again at
   * once). False when there was none.
   */
  cancelHandshake(reconnect: boolean): boolean {
    if (this.state === 'transfer' || this.state === 'connecting' || this.inHandshake) {
      this.dropLink();
      this.state = 'connect';
    } else {
      return false;
    }
    if (!reconnect) return true;
    this.log(`Reconnecting to MASTER ${this.s.masterHost}:${this.s.masterPort} after failure`);
    this.connectWithMaster();
    return true;
  }

  // ---- the full synchronization (readSyncBulkPayload) ----

  /** useDisklessLoad: swapdb always, on-empty-db when there is no key. */
  private useDisklessLoad(): boolean {
    const mode = this.server.config.get('repl-diskless-load');
    return mode === 'swapdb' || (mode === 'on-empty-db' && this.server.dbs.every((db) => db.dict.size === 0));
  }

  /** After +FULLRESYNC (or SYNC): a temporary file for the RDB, unless it is loaded from the socket. */
  private startTransfer(): void {
    let file: { disk: import('../sim/disk-api.js').FileSystem; fd: number; path: string } | null = null;
    const disk = this.s.process.disk();
    if (!this.useDisklessLoad() && disk !== null) {
      const dir = this.server.config.get('dir');
      const path = `${dir.endsWith('/') ? dir : dir + '/'}temp-${this.nowS}.${this.s.process.pid()}.rdb`;
      try {
        file = { disk, fd: disk.open(path, 'wx', this.s.process.pid()), path };
      } catch (e) {
        this.log(`Opening the temp file needed for MASTER <-> REPLICA synchronization: ${e instanceof Error ? e.message : String(e)}`, 'warning');
        this.handshakeFailed();
        return;
      }
    }
    this.transfer = new SyncTransfer(file);
    this.state = 'transfer';
    this.transferLastIoS = this.nowS;
    if (this.inbuf.length !== 0) this.readSyncBulkPayload();
  }

  private closeTransferFile(remove: boolean): void {
    const f = this.transfer?.file;
    if (f === undefined || f === null) return;
    try {
      f.disk.close(f.fd);
      if (remove) f.disk.unlink(f.path);
    } catch {
      // Already gone.
    }
  }

  /** Bytes of the transfer: the header, then the payload; once it is whole, the load. */
  private readSyncBulkPayload(): void {
    const t = this.transfer!;
    const stats = this.server.stats;
    for (;;) {
      const chunk = this.inbuf;
      this.inbuf = '';
      const readBefore = t.read;
      const step = t.feed(chunk);
      if (t.size !== -1 || step.kind !== 'more') this.transferLastIoS = this.nowS;
      stats.netReplInputBytes += t.read - readBefore;
      switch (step.kind) {
        case 'more':
          return;
        case 'keepalive':
          continue;
        case 'error':
          this.log(step.log, 'warning');
          this.cancelHandshake(true);
          return;
        case 'header': {
          const target = this.useDisklessLoad() ? 'to parser' : 'to disk';
          if (step.streamed) this.log(`MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF ${target}`);
          else this.log(`MASTER <-> REPLICA sync: receiving ${t.size} bytes from master ${target}`);
          if (t.file === null) this.beginDisklessLoad();
          continue;
        }
        case 'done':
          this.transferDone(step.rest);
          return;
      }
    }
  }

  /**
   * readSyncBulkPayload once a diskless transfer's header is read: the
   * AOF stops, a child saving is killed, the old data is flushed (for
   * swapdb it waits beside the new until the load succeeds), and the
   * replica is loading from now on: with swapdb from the same history
   * (the primary's ID is the replica's own) asynchronously, still serving
   * its old data.
   */
  private beginDisklessLoad(): void {
    const swapdb = this.server.config.get('repl-diskless-load') === 'swapdb';
    this.stopForNewData(true);
    if (!swapdb) {
      this.attachToNewMaster();
      this.log('MASTER <-> REPLICA sync: Flushing old data');
      emptyAllData(this.server);
    }
    this.log('MASTER <-> REPLICA sync: Loading DB in memory');
    const p = this.server.stats.persistence;
    p.loading = true;
    p.asyncLoading = swapdb && this.s.replId === this.masterReplId;
    this.disklessLoad = { swapdb };
  }

  /** A diskless load that did not finish (the link failed or timed out mid-transfer): loading stops. */
  private stopDisklessLoad(): { swapdb: boolean } | null {
    const load = this.disklessLoad;
    if (load === null) return null;
    this.disklessLoad = null;
    const p = this.server.stats.persistence;
    p.loading = false;
    p.asyncLoading = false;
    return load;
  }

  /** What it loaded goes: for swapdb the temporary copy (the old data stays), otherwise the half-loaded data. */
  private discardHalfLoaded(load: { swapdb: boolean }): void {
    if (load.swapdb) this.log('MASTER <-> REPLICA sync: Discarding temporary DB in background');
    else emptyAllData(this.server);
  }

  /** The AOF logged the old data: it stops, and starts again from the new (restartAOFAfterSYNC); a saving child is killed. */
  private stopForNewData(diskless: boolean): void {
    const s = this.s;
    s.process.stopAof();
    if (s.process.childKind() === 'disk' || s.process.childKind() === 'socket') {
      if (!diskless) {
        this.log(
          `Replica is about to load the RDB file received from the master, but there is a pending RDB child running. Killing process ${s.process.pid()} and removing its temp file to avoid any race`,
        );
      }
      s.process.killRdbChild();
    }
  }

  /**
   * The whole RDB is in: the old data goes (for swapdb, once the new is
   * loaded), the file is loaded, and the primary's client takes the
   * connection, first with what followed the file.
   */
  private transferDone(rest: string): void {
    const t = this.transfer!;
    const diskless = t.file === null;
    const swapdb = diskless && this.server.config.get('repl-diskless-load') === 'swapdb';
    // A diskless load began at the header; it is the parse that ends now.
    const began = this.disklessLoad !== null;
    this.disklessLoad = null;
    if (!began) this.beginLoadAfterTransfer(diskless, swapdb);
    this.step(`step 3: snapshot received (${t.fileBytes} bytes); ${swapdb ? 'loads it beside the old data' : 'old data discarded, loads it'}`);
    this.loadTransferred(t, diskless, swapdb, rest);
  }

  /** A transfer to disk is loaded only once it is whole. */
  private beginLoadAfterTransfer(diskless: boolean, swapdb: boolean): void {
    this.stopForNewData(diskless);
    if (!swapdb) {
      this.attachToNewMaster();
      this.log('MASTER <-> REPLICA sync: Flushing old data');
      emptyAllData(this.server);
    }
    this.log('MASTER <-> REPLICA sync: Loading DB in memory');
  }

  private loadTransferred(t: SyncTransfer, diskless: boolean, swapdb: boolean, rest: string): void {
    const s = this.s;
    const log = (line: string): void => this.log(line);
    let bytes: Uint8Array;
    let loaded: SyncedRdb | string;
    if (diskless) {
      bytes = t.payload();
      loaded = swapdb
        ? loadSyncedRdbBeside(this.server, bytes, log, () => {
            this.attachToNewMaster();
            this.log('MASTER <-> REPLICA sync: Swapping active DB with loaded DB');
          })
        : loadSyncedRdb(this.server, bytes, log);
    } else {
      const file = t.file!;
      const target = this.rdbPath();
      try {
        if (t.usemark) file.disk.ftruncate(file.fd, t.fileBytes);
        file.disk.close(file.fd);
        file.disk.rename(file.path, target);
        bytes = file.disk.readFile(target);
      } catch (e) {
        this.log(`Failed trying to rename the temp DB into ${this.server.config.get('dbfilename')} in MASTER <-> REPLICA synchronization: ${e instanceof Error ? e.message : String(e)}`, 'warning');
        this.cancelHandshake(true);
        return;
      }
      loaded = loadSyncedRdb(this.server, bytes, log);
    }
    const p = this.server.stats.persistence;
    if (typeof loaded === 'string') {
      this.log(`Failed trying to load the MASTER synchronization DB from ${diskless ? 'socket' : 'disk'}: ${loaded}`, 'warning');
      p.loading = false;
      p.asyncLoading = false;
      this.transfer = null;
      this.cancelHandshake(true);
      if (diskless && !swapdb) emptyAllData(this.server);
      return;
    }
    if (swapdb) this.log('MASTER <-> REPLICA sync: Discarding old DB in background');
    if (diskless) this.server.dirty++;
    this.transfer = null;
    // The thread is busy loading; clients get -LOADING, the stream waits.
    p.loading = true;
    this.loading = true;
    const serial = this.linkSerial;
    s.process.after(s.process.loadUs(bytes.length), () => {
      p.loading = false;
      p.asyncLoading = false;
      if (serial !== this.linkSerial) return;
      this.loading = false;
      this.fullSyncLoaded(loaded as SyncedRdb, diskless ? false : true, t.usemark, rest + this.inbuf);
    });
  }

  /** The rest of readSyncBulkPayload once the file is loaded: the link is up. */
  private fullSyncLoaded(loaded: SyncedRdb, fromDisk: boolean, usemark: boolean, rest: string): void {
    const s = this.s;
    if (fromDisk && this.server.config.getBool('rdb-del-sync-files') && this.persistenceOff()) {
      this.log('Removing the RDB file obtained from the master. This replica has persistence disabled');
      try {
        s.process.disk()?.unlink(this.rdbPath());
      } catch {
        // Already gone.
      }
    }
    this.inbuf = '';
    this.createMasterClient(this.masterReplId, this.masterInitialOffset, loaded.streamDb, bytesToArray(rest));
    this.state = 'connected';
    this.downSinceS = 0;
    // After a full sync the replica's history is its primary's.
    s.adoptPrimaryHistory(this.master!.replId, this.master!.reploff);
    this.log('MASTER <-> REPLICA sync: Finished with success');
    this.step('step 4: snapshot loaded; answers commands normally again, applying the backlog of writes');
    this.backlogPending = true;
    // A diskless primary puts the replica online at its first ACK.
    if (usemark) this.sendAck();
    s.process.restartAof();
  }

  private persistenceOff(): boolean {
    const cfg = this.server.config;
    return cfg.get('save').trim() === '' && !cfg.getBool('appendonly');
  }

  private rdbPath(): string {
    const dir = this.server.config.get('dir');
    return `${dir.endsWith('/') ? dir : dir + '/'}${this.server.config.get('dbfilename')}`;
  }

  /**
   * replicationAttachToNewMaster: a different dataset arrives, so the
   * cached primary is useless, and sub-replicas (which cannot continue
   * from it either) must resync with us.
   */
  private attachToNewMaster(): void {
    this.discardCachedMaster();
    this.s.primary.disconnectReplicas();
    this.s.freeBacklog();
  }

  // ---- the primary's client ----

  /** replicationCreateMasterClient: the link becomes the client the stream is applied through. */
  private createMasterClient(replId: string, offset: number, db: number, pending: Uint8Array): void {
    const m = new PrimaryClient(replId, offset, offset, this.nowS, db === -1 ? 0 : db);
    this.master = m;
    this.attachConnection(m, pending);
  }

  private attachConnection(m: PrimaryClient, pending: Uint8Array): void {
    const link = this.link!;
    this.link = null;
    this.linkSerial++;
    // The bytes that came with the last reply are read by the event loop, as the client's first input.
    const conn = link.becomeClient(pending);
    m.conn = conn;
    const c = conn.client;
    c.role = 'master';
    c.authenticated = true;
    c.db = this.server.dbs[m.db] ?? this.server.dbs[0]!;
    conn.primaryStream = {
      received: (bytes) => {
        if (this.master !== m) return;
        m.received(bytes);
        m.lastInteractionS = this.nowS;
        this.server.stats.netReplInputBytes += bytes.length;
      },
      applied: (unparsed) => this.applied(m, unparsed),
    };
  }

  /**
   * commandProcessed for the primary's client: outside a transaction, the
   * bytes of what was applied count into its offset and go on verbatim to
   * the backlog and sub-replicas.
   */
  private applied(m: PrimaryClient, unparsed: number): void {
    if (this.master !== m) return;
    const c = m.client;
    if (c === null || c.inMulti) return;
    const n = m.readReploff - unparsed - m.reploff;
    if (n <= 0) return;
    this.s.feedFromPrimaryStream(m.applied(n));
    if (this.backlogPending && unparsed === 0) {
      this.backlogPending = false;
      this.step(`step 5: applied everything received up to offset ${m.reploff}; follows the primary's writes live`);
    }
  }

  /** replicationResurrectCachedMaster: after +CONTINUE, the cached primary takes the new connection. */
  private resurrectCachedMaster(pending: Uint8Array): void {
    const m = this.cachedMaster!;
    this.cachedMaster = null;
    this.master = m;
    m.lastInteractionS = this.nowS;
    this.state = 'connected';
    this.downSinceS = 0;
    // A restarted replica may have had no backlog yet.
    if (this.s.buffer === null) this.s.createBacklog();
    this.attachConnection(m, pending);
    const c = m.client;
    if (c !== null && m.clientId !== null) this.server.keepClientId(c, m.clientId);
  }

  /** Closes the primary's client: freeClient, which caches it. */
  private freeMasterClient(): void {
    const c = this.master?.client ?? null;
    if (c !== null) this.server.kill(c);
    else this.masterClientGone(null);
  }

  /**
   * freeClient of the primary's client: its state is cached for a PSYNC
   * (replicationCacheMaster), and the replica reconnects at once
   * (replicationHandleMasterDisconnection).
   */
  masterClientGone(c: Client | null): void {
    const m = this.master;
    if (m === null || (c !== null && m.client !== c)) return;
    this.log('Connection with master lost.', 'warning');
    this.log('Caching the disconnected master state.');
    const db = m.client?.db.id ?? m.db;
    m.db = db;
    m.clientId = m.client?.id ?? m.clientId;
    m.dropUnapplied();
    m.conn = null;
    this.cachedMaster = m;
    this.master = null;
    this.state = 'connect';
    this.downSinceS = this.nowS;
    if (this.s.masterHost !== null) {
      this.log(`Reconnecting to MASTER ${this.s.masterHost}:${this.s.masterPort}`);
      this.connectWithMaster();
    }
  }

  /**
   * replicationCacheMasterUsingMyself: a primary turning into a replica
   * offers its own history to the new primary, which may be its former
   * replica and able to continue it.
   */
  cacheMasterUsingMyself(db = 0): void {
    this.log(
      'Before turning into a replica, using my own master parameters to synthesize a cached master: I may be able to synchronize with the new master with just a partial transfer.',
    );
    const off = this.s.masterReplOffset;
    this.cachedMaster = new PrimaryClient(this.s.replId, off, off, this.nowS, db);
    // replicationCreateMasterClient(NULL): a client without a connection, which takes an id.
    this.cachedMaster.clientId = this.server.reserveClientId();
  }

  /** replicationDiscardCachedMaster. */
  discardCachedMaster(): void {
    if (this.cachedMaster === null) return;
    this.log('Discarding previously cached master state.');
    this.cachedMaster = null;
  }

  /**
   * A replica restarted on an RDB that carries its history
   * (loadDataFromDisk): that history is its own, and a cached primary
   * made from it lets it continue with PSYNC.
   */
  restoreFromRdb(replId: string, offset: number, streamDb: number): void {
    this.s.replId = replId;
    this.s.setOffsetWithoutBacklog(offset);
    this.cacheMasterUsingMyself(streamDb);
  }

  /**
   * A reply made for the primary's client goes nowhere (the stream has no
   * replies); an error is logged, as it means the datasets diverged
   * (afterErrorReply).
   */
  replyToPrimary(c: Client, reply: Reply): Reply {
    if (reply instanceof ErrorReply) {
      const text = reply.message.length > 4096 ? reply.message.slice(0, 4096) : reply.message;
      this.log(`== CRITICAL == This replica is sending an error to its master: '${text}' after processing the command '${c.lastCommand}'`, 'warning');
      this.server.stats.unexpectedErrorReplies++;
    }
    return NO_REPLY;
  }

  /** replicationSendAck: REPLCONF ACK with the offset applied, on the primary's connection. */
  sendAck(): void {
    const m = this.master;
    const out = m?.client?.rawOutput ?? null;
    if (m === null || out === null) return;
    out.write(streamCommand(['REPLCONF', 'ACK', String(m.reploff)]));
  }

  // ---- replicationCron's replica part ----

  cron(): void {
    const s = this.s;
    const timeoutS = this.server.config.getNumber('repl-timeout');
    const nowS = this.nowS;
    if (s.masterHost !== null && (this.state === 'connecting' || this.inHandshake) && nowS - this.transferLastIoS > timeoutS) {
      this.log('Timeout connecting to the MASTER...', 'warning');
      this.cancelHandshake(true);
    }
    if (s.masterHost !== null && this.state === 'transfer' && nowS - this.transferLastIoS > timeoutS) {
      this.log(
        "Timeout receiving bulk data from MASTER... If the problem persists try to set the 'repl-timeout' parameter in redis.conf to a larger value.",
        'warning',
      );
      this.cancelHandshake(true);
    }
    if (s.masterHost !== null && this.state === 'connected' && this.master !== null && nowS - this.master.lastInteractionS > timeoutS) {
      this.log('MASTER timeout: no data nor PING received...', 'warning');
      this.freeMasterClient();
    }
    if (this.state === 'connect' && s.masterHost !== null) {
      this.log(`Connecting to MASTER ${s.masterHost}:${s.masterPort}`);
      this.connectWithMaster();
    }
    if (s.masterHost !== null && this.master !== null && !this.master.prePsync) this.sendAck();
  }

  // ---- what the replica shows ----

  /** The offsets of the primary's client (connected or cached): applied and read; 1 without any. */
  offsets(): { applied: number; read: number } {
    const m = this.master ?? this.cachedMaster;
    return m === null ? { applied: 1, read: 1 } : { applied: m.reploff, read: m.readReploff };
  }

  linkUp(): boolean {
    return this.state === 'connected';
  }

  /** PSYNC <replid> <offset> FAILOVER: the primary hands over to us, if we follow its history. */
  failoverRequest(c: Client, argv: readonly string[]): Reply | null {
    if (caseEqual(argv[1]!, this.s.replId)) {
      this.unsetMaster();
      this.log(`MASTER MODE enabled (failover request from '${clientInfoLine(c, c, argv)}')`);
      return null;
    }
    return errorReply('PSYNC FAILOVER replid must match my replid.');
  }

  /** The database of the primary's stream (connected or cached), for an RDB's repl-stream-db. */
  streamDb(): number | null {
    if (this.master !== null) return this.master.client?.db.id ?? this.master.db;
    if (this.cachedMaster !== null) return this.cachedMaster.db;
    return null;
  }
}

/** strcasecmp(a, b) == 0. */
function caseEqual(a: string, b: string): boolean {
  return a.length === b.length && a.toLowerCase() === b.toLowerCase();
}
