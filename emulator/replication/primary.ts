import { ErrorReply, errorReply, FramesReply, type Reply } from '../resp/reply.js';
import { PROPAGATE, type Client } from '../server/client.js';
import type { RedisServer } from '../server/server.js';
import { BLOCKED } from '../server/blocking.js';
import { clientInfoLine } from '../server/client-info.js';
import type { ReplicationBuffer } from './backlog.js';
import { ReplicaLink } from './primary-replica-link.js';
import { GETACK_COMMAND, selectCommand, streamCommandLength } from './stream.js';
import { stateText } from './info.js';
import type { Synchronization } from './primary-sync.js';
import { noSaveRules } from './cron.js';
import type { Failover, FailoverState } from './primary-failover.js';
import { WaitingForReplicas } from './primary-wait.js';
import type { ReplicationState } from './state.js';

/**
 * The primary's part of replication (src/replication.c): the replicas'
 * connections and the command stream they are sent. Their synchronization
 * (SYNC, PSYNC and the BGSAVE behind them) is in primary-sync.ts; the IDs,
 * offset and backlog it feeds are the shared state (state.ts). A replica
 * with replicas of its own serves them through this part too.
 */

/**
 * SYNC and PSYNC's code is kept apart from what a first session loads
 * (emulator/commands/on-demand.ts); on-demand-handlers.ts registers it.
 */
let makeSynchronization: ((p: ReplicationPrimary) => Synchronization) | null = null;

/** Called by on-demand-handlers.ts when it loads. */
export function registerSynchronization(make: (p: ReplicationPrimary) => Synchronization): void {
  makeSynchronization = make;
}

/** FAILOVER's code, kept apart the same way. */
let makeFailover: ((s: ReplicationState) => Failover) | null = null;

/** Called by on-demand-handlers.ts when it loads. */
export function registerFailover(make: (s: ReplicationState) => Failover): void {
  makeFailover = make;
}

/** A command that answers nothing at all (SYNC, REPLCONF ACK). */
export const NO_REPLY = new FramesReply([]);

export class ReplicationPrimary {
  /** Replica connections in the order they came (server.slaves). */
  readonly replicas: Client[] = [];
  /** The database the stream last selected, -1 to force a SELECT (server.slaveseldb). */
  slaveSelDb = -1;
  /** Since when no replica is connected, unix seconds (repl_no_slaves_since). */
  noReplicasSinceS: number;
  /** Online replicas within min-replicas-max-lag (repl_good_slaves_count). */
  goodReplicas = 0;
  /** SYNC and PSYNC, and the BGSAVEs for them: made when the first replica asks. */
  private syncPart: Synchronization | null = null;
  /** FAILOVER: made when it is first asked for. */
  private failoverPart: Failover | null = null;
  /** WAIT. */
  readonly waiting: WaitingForReplicas = new WaitingForReplicas(this);
  readonly server: RedisServer;
  private readonly links = new WeakMap<Client, ReplicaLink>();
  private stopFeeding: (() => void) | null = null;
  private shutdownWait: { deadlineMs: number; finish: () => boolean; clients: Client[]; joinedFrom: number } | null = null;
  /** A block was added to the buffer: replicas' output buffer limits are to be checked. */
  private limitsCheckDue = false;

  constructor(readonly state: ReplicationState) {
    this.server = state.server;
    this.noReplicasSinceS = Math.floor(this.server.nowMs / 1000);
  }

  /** SYNC and PSYNC, and the BGSAVEs for them. */
  get synchronization(): Synchronization {
    if (this.syncPart === null) {
      if (makeSynchronization === null) throw new Error("the primary's serving side is not loaded (import emulator/commands/on-demand-handlers.js)");
      this.syncPart = makeSynchronization(this);
    }
    return this.syncPart;
  }

  /** FAILOVER. */
  get failover(): Failover {
    if (this.failoverPart === null) {
      if (makeFailover === null) throw new Error("FAILOVER's code is not loaded (import emulator/commands/on-demand-handlers.js)");
      this.failoverPart = makeFailover(this.state);
    }
    return this.failoverPart;
  }

  /** Where a failover stands (master_failover_state): none on a server never asked for one. */
  get failoverState(): FailoverState {
    return this.failoverPart?.state ?? 'no-failover';
  }

  /** updateFailoverStatus, from beforeSleep and replicationCron. */
  updateFailover(): void {
    this.failoverPart?.update();
  }

  /** Whether a replica (or redis-cli --rdb) ever asked this server for its data. */
  get hasSynchronization(): boolean {
    return this.syncPart !== null;
  }

  /** disconnectSlaves: every replica is dropped (they resync, often partially). */
  disconnectReplicas(): void {
    for (const c of [...this.replicas]) this.server.kill(c);
  }

  /**
   * beforeSleep's part, at the end of each event loop pass: the GETACK
   * WAIT asked for and the clients ACKs released, then a failover whose
   * replica caught up.
   */
  beforeSleep(): void {
    this.waiting.beforeSleep();
    this.updateFailover();
  }

  /** The shared buffer, null without a backlog. */
  get buffer(): ReplicationBuffer | null {
    return this.state.buffer;
  }

  get replId(): string {
    return this.state.replId;
  }

  /** master_repl_offset. */
  get masterReplOffset(): number {
    return this.state.masterReplOffset;
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

  /**
   * A replica's output as CLIENT LIST and the memory figures count it
   * (getClientOutputBufferMemoryUsage, catClientInfoString): the blocks of
   * the shared buffer it refers to, whole, in place of its reply list.
   * Null for a connection that is not a replica of this server.
   */
  replicaOutput(c: Client): { blocks: number; bytes: number } | null {
    const r = this.links.get(c);
    const b = this.buffer;
    if (r === undefined || b === null || c.role !== 'replica') return null;
    return { blocks: b.usedBlocks(r.cursor), bytes: b.outputUsage(r.cursor) };
  }

  /** server.unixtime. */
  get nowS(): number {
    return this.state.nowS;
  }

  /** A line in the server's log. */
  log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    this.state.log(text, level);
  }

  /** A step of a synchronization, for the timeline. */
  step(text: string): void {
    this.state.process.step(text);
  }

  /** A backlog was made: from now on every write is fed to the stream. */
  bufferCreated(buffer: ReplicationBuffer): void {
    buffer.onBlockAdded = () => (this.limitsCheckDue = true);
    this.stopFeeding = this.server.onPropagate((db, argv) => this.feedCommand(db, argv), PROPAGATE.REPL);
  }

  /** The backlog is gone: writes are no longer fed. */
  bufferFreed(): void {
    this.stopFeeding?.();
    this.stopFeeding = null;
  }

  // ---- the stream ----

  /**
   * replicationFeedSlaves: a write (or serverCron's PING) enters the
   * stream, after a SELECT when its database is not the stream's. Each
   * part is fed as Redis feeds it, so the buffer's blocks come out the same.
   */
  feedCommand(db: number, argv: readonly string[]): void {
    if (this.state.masterHost !== null) return;
    const b = this.buffer;
    if (b === null) return;
    const select = this.slaveSelDb !== db ? selectCommand(db) : '';
    this.slaveSelDb = db;
    // The command goes in as its arguments, framed when a replica reads it.
    if (!b.tryAppendCommand(select, argv, streamCommandLength(argv))) {
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
    if (this.limitsCheckDue) {
      this.limitsCheckDue = false;
      this.checkOutputLimits(true);
    }
    this.flushStreaming();
  }

  /**
   * Sends each streaming replica whose socket has room what it has not
   * been sent yet (replicas at the same place are sent the same string,
   * made once).
   */
  flushStreaming(): void {
    const replicas = this.replicas;
    for (let i = 0; i < replicas.length; i++) {
      const r = this.links.get(replicas[i]!)!;
      if (!r.streaming || r.gone || r.awaitingRoom) continue;
      this.flushReplica(r);
    }
  }

  /**
   * Sends a streaming replica what it has not been sent yet, if its socket
   * can take it; else the bytes stay in the buffer, held for it (and
   * counted against its output buffer limit) until the socket has room.
   */
  flushReplica(r: ReplicaLink): void {
    const b = this.buffer;
    if (b === null || r.gone || r.awaitingRoom) return;
    const bytes = b.take(r.cursor);
    if (bytes.length !== 0) this.sendToReplica(r, bytes);
    if (r.catchingUp) {
      r.catchingUp = false;
      this.step(`step 5: backlog sent to ${r.name}; writes stream to it live`);
    }
  }

  private sendToReplica(r: ReplicaLink, bytes: string): void {
    const out = r.client.rawOutput;
    if (out === null) return;
    out.write(bytes);
    this.server.stats.netReplOutputBytes += bytes.length;
    r.awaitingRoom = true;
    let waiting = true;
    out.whenWritable(() => {
      r.awaitingRoom = false;
      if (!waiting && !r.gone && r.streaming) this.flushReplica(r);
    });
    waiting = false;
  }

  // ---- SYNC and PSYNC (synchronization.ts) ----

  /** syncCommand: SYNC, or PSYNC <replid> <offset>. */
  sync(c: Client, argv: string[], psync: boolean): Reply {
    return this.synchronization.sync(c, argv, psync);
  }

  /** An RDB child ended (updateSlavesWaitingBgsave). */
  bgsaveDone(ok: boolean, type: 'disk' | 'socket'): void {
    this.syncPart?.bgsaveDone(ok, type);
  }

  // ---- REPLCONF ----

  /** REPLCONF ACK <offset> from a replica (no reply either way). */
  ack(c: Client, offset: number): void {
    const r = this.links.get(c);
    if (r === undefined || r.state === null) return;
    if (offset > r.ackOffset) r.ackOffset = offset;
    r.ackTimeS = this.nowS;
    const child = this.state.process.childKind();
    if ((child === 'disk' || child === 'socket') && r.state === 'wait_bgsave_end') this.state.process.checkChildDone();
    if (r.startStreamOnAck && r.state === 'online') this.synchronization.startCommandStream(r);
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
    if (reply instanceof ErrorReply) {
      // afterErrorReply logs what the error was made from: the text
      // addReplyError was given, without the "ERR " it puts before it.
      const made = reply.message.startsWith('ERR ') ? reply.message.slice(4) : reply.message;
      const text = made.length > 4096 ? made.slice(0, 4096) : made;
      this.log(`== CRITICAL == This master is sending an error to its replica: '${text}' after processing the command '${name}'`, 'warning');
      this.server.stats.unexpectedErrorReplies++;
    }
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
      this.state.process.childKind() === 'disk' &&
      !this.replicas.some((o) => this.links.get(o)!.state === 'wait_bgsave_end')
    ) {
      this.state.process.killRdbChild();
    }
  }

  /** Takes a replica out of the list and the buffer. */
  forget(c: Client, r: ReplicaLink): void {
    this.buffer?.detach(r.cursor);
    this.syncPart?.dropFromTransfer(r);
    r.streaming = false;
    r.state = null;
    const i = this.replicas.indexOf(c);
    if (i >= 0) this.replicas.splice(i, 1);
    if (this.replicas.length === 0) this.noReplicasSinceS = this.nowS;
    this.refreshGoodReplicas();
  }

  // ---- output buffer limits (client-output-buffer-limit slave ...) ----

  /** The `slave` class of client-output-buffer-limit: hard and soft bytes, soft seconds. */
  private replicaBufferLimits(): { hard: number; soft: number; seconds: number } | null {
    const t = this.server.config.get('client-output-buffer-limit').split(' ');
    const i = t.indexOf('slave');
    if (i < 0) return null;
    let hard = Number(t[i + 1]);
    const soft = Number(t[i + 2]);
    // A hard limit below the backlog's size would drop replicas right after a partial resync.
    if (hard !== 0 && hard < this.state.backlogSize()) hard = this.state.backlogSize();
    return { hard, soft, seconds: Number(t[i + 3]) };
  }

  /**
   * closeClientOnOutputBufferLimitReached for each replica: one whose
   * unsent part of the buffer reaches the hard limit, or stays over the
   * soft one for longer than its seconds, is dropped. `whileFeeding`: found
   * as the stream grew (the log says it is scheduled to close), else by
   * serverCron (it says it was closed).
   */
  checkOutputLimits(whileFeeding: boolean): void {
    const b = this.buffer;
    const limits = this.replicaBufferLimits();
    if (b === null || limits === null || (limits.hard === 0 && limits.soft === 0)) return;
    const nowS = this.nowS;
    for (const c of [...this.replicas]) {
      const r = this.link(c);
      const used = b.outputUsage(r.cursor);
      let over = limits.hard !== 0 && used >= limits.hard;
      if (limits.soft !== 0 && used >= limits.soft) {
        if (r.softLimitSinceS === 0) r.softLimitSinceS = nowS;
        else if (nowS - r.softLimitSinceS > limits.seconds) over = true;
      } else {
        r.softLimitSinceS = 0;
      }
      if (!over) continue;
      const info = clientInfoLine(c, null, []);
      if (whileFeeding) {
        this.log(`Client ${info} scheduled to be closed ASAP for overcoming of output buffer limits.`, 'warning');
        this.server.kill(c);
      } else {
        this.server.kill(c);
        this.log(`Client ${info} closed for overcoming of output buffer limits.`, 'warning');
      }
    }
  }

  // ---- shutting down (prepareForShutdown, finishShutdown) ----

  /** Whether a shutdown waits for lagging replicas (isShutdownInitiated). */
  get shutdownInitiated(): boolean {
    return this.shutdownWait !== null;
  }

  /** How long until a shutdown waiting for replicas gives up on them (INFO's shutdown_in_milliseconds), or null. */
  shutdownInMs(): number | null {
    return this.shutdownWait === null ? null : this.shutdownWait.deadlineMs - this.server.nowMs;
  }

  /** isReadyToShutdown: every replica has acknowledged the whole stream. */
  private readyToShutdown(): boolean {
    const offset = this.masterReplOffset;
    for (const c of this.replicas) if (this.link(c).ackOffset !== offset) return false;
    return true;
  }

  /**
   * Before shutting down, replicas that have not acknowledged the whole
   * stream get up to shutdown-timeout seconds to catch up; they are asked
   * for an ACK at once. True when the shutdown waits: serverCron calls
   * `finish` once they have, or the time is up. The SHUTDOWN client (if
   * any) stays blocked meanwhile.
   */
  waitBeforeShutdown(now: boolean, c: Client | null, finish: () => boolean): boolean {
    const timeoutS = this.server.config.getNumber('shutdown-timeout');
    if (now || timeoutS === 0 || this.readyToShutdown()) return false;
    this.shutdownWait = { deadlineMs: this.server.nowMs + timeoutS * 1000, finish, clients: c === null ? [] : [c], joinedFrom: c === null ? 0 : 1 };
    if (!this.server.pause.paused()) this.feedCommand(this.slaveSelDb, GETACK_COMMAND);
    // Writes wait meanwhile, so the replicas can catch up with a stream that holds still.
    this.server.pause.pause('shutdown', Number.MAX_SAFE_INTEGER, 'write');
    this.log('Waiting for replicas before shutting down.');
    return true;
  }

  /** The clients whose SHUTDOWN waits for the replicas (blocked, BLOCKED_SHUTDOWN in Redis). */
  shutdownWaiters(): number {
    return this.shutdownWait?.clients.filter((c) => !c.closed).length ?? 0;
  }

  /** Another SHUTDOWN while replicas are awaited: its client waits too. */
  awaitShutdown(c: Client): void {
    this.shutdownWait?.clients.push(c);
  }

  /**
   * SHUTDOWN ABORT: the wait ends, the server goes on, and the clients
   * that sent SHUTDOWN are told it failed. False when no shutdown waits.
   */
  abortShutdown(): boolean {
    const wait = this.shutdownWait;
    if (wait === null) return false;
    this.shutdownWait = null;
    this.server.pause.unpause('shutdown');
    this.log('Shutdown manually aborted.');
    for (const c of wait.clients) {
      c.onAsyncReply?.(errorReply('Errors trying to SHUTDOWN. Check logs.'));
      c.onResume?.();
    }
    return true;
  }

  /** finishShutdown's report: each lagging replica, then how many are in sync. */
  reportBeforeShutdown(): void {
    const offset = this.masterReplOffset;
    let lagging = 0;
    for (const c of this.replicas) {
      const r = this.link(c);
      if (r.ackOffset === offset) continue;
      lagging++;
      const lag = r.state === 'online' ? this.nowS - r.ackTimeS : 0;
      this.log(`Lagging replica ${r.name} reported offset ${offset - r.ackOffset} behind master, lag=${lag}, state=${stateText(r.state)}.`, 'warning');
    }
    const n = this.replicas.length;
    if (n > 0) this.log(`${n - lagging} of ${n} replicas are in sync when shutting down.`);
  }

  /** serverCron's check of a shutdown waiting for replicas. */
  private checkShutdownWait(): void {
    const wait = this.shutdownWait;
    if (wait === null || (this.server.nowMs < wait.deadlineMs && !this.readyToShutdown())) return;
    this.shutdownWait = null;
    this.server.pause.unpause('shutdown');
    if (wait.finish()) return;
    // The shutdown failed after the wait (an initial AOF still being
    // written): the SHUTDOWN that started it has been told; every other
    // client blocked on SHUTDOWN is told too (replyToClientsBlockedOnShutdown).
    for (const c of wait.clients.slice(wait.joinedFrom)) {
      if (c.closed) continue;
      c.onAsyncReply?.(errorReply('Errors trying to SHUTDOWN. Check logs.'));
      c.onResume?.();
    }
  }

  // ---- serverCron ----

  /** serverCron's part for the replicas, hz times a second. */
  cron(): void {
    this.checkShutdownWait();
    // clientsCron's look at each client's output buffer.
    if (this.replicas.length !== 0) this.checkOutputLimits(false);
  }

  /** checkGoodReplicasStatus: whether min-replicas-to-write lets writes in. */
  enoughGoodReplicas(): boolean {
    const cfg = this.server.config;
    if (this.state.masterHost !== null) return true;
    const toWrite = cfg.getNumber('min-replicas-to-write');
    if (toWrite === 0 || cfg.getNumber('min-replicas-max-lag') === 0) return true;
    return this.goodReplicas >= toWrite;
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
