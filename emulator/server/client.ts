import type { Database } from '../keyspace/database.js';
import type { WatchedKey, Watcher } from '../keyspace/watch.js';
import type { CommandDef } from './command-table.js';
import type { Protocol } from '../resp/encode.js';
import type { RedisServer } from './server.js';
import type { BlockState } from './blocking.js';
import type { Reply } from '../resp/reply.js';
import { ReplyBuffer } from './reply-buffer.js';
import type { QueryBuffer } from './query-buffer.js';

/** A command queued inside MULTI. */
export interface QueuedCommand {
  cmd: CommandDef;
  argv: string[];
}

/** How a client reached the server, for CLIENT LIST and INFO. */
export interface ClientAddress {
  /** "ip:port" of the client. */
  addr: string;
  /** "ip:port" of the server side. */
  laddr: string;
  /** The socket's file descriptor as the server would number it. */
  fd: number;
}

/**
 * The connection's byte stream below replies, for the replication stream
 * and the RDB transfer to a replica. Set by the transport.
 */
export interface RawOutput {
  /** Queues bytes for the peer, in order with the replies written so far. */
  write(bytes: string): void;
  /**
   * Calls `ready` once the socket can take more: the bytes written so far
   * have mostly left. A transport with nothing to wait for calls it at once.
   */
  whenWritable(ready: () => void): void;
}

/**
 * Where a write goes (Redis's PROPAGATE_AOF and PROPAGATE_REPL): PUBLISH,
 * for one, goes to replicas only.
 */
export const PROPAGATE = { AOF: 1, REPL: 2, ALL: 3 } as const;

/** What a connection is to the server: CLIENT LIST's flags and CLIENT KILL TYPE. */
export type ClientRole = 'normal' | 'replica' | 'master' | 'monitor';

/**
 * Cleanups RESET runs for state owned by other command groups (pub/sub
 * subscriptions, client-side caching), registered by those groups.
 */
export const clientResetHooks: Array<(c: Client) => void> = [];

/**
 * One connection's state on a server: its database, protocol, name,
 * transaction and watches. The transport that carries its bytes (TCP, the
 * simulated network, an in-process call) lives outside.
 */
export class Client implements Watcher {
  db: Database;
  resp: Protocol = 2;
  /** CLIENT SETNAME (a byte string; empty when unset). */
  name = '';
  // MULTI state (Redis's CLIENT_MULTI, CLIENT_DIRTY_EXEC, CLIENT_DIRTY_CAS).
  inMulti = false;
  multiError = false;
  dirtyCas = false;
  queue: QueuedCommand[] = [];
  watched: WatchedKey[] = [];
  /** Set while EXEC runs the queue. */
  inExec = false;
  /** The last command run (CLIENT LIST "cmd="), full name. */
  lastCommand = 'NULL';
  /** The command being run right now (Redis's c->cmd), for handlers that need its name. */
  cmd: CommandDef | null = null;
  readonly createdMs: number;
  lastInteractionMs: number;
  /** The connection should close once pending replies are written (QUIT, protocol error, CLIENT KILL). */
  closeAfterReply = false;
  /**
   * The connection closes at once, dropping what it was not sent yet
   * (CLIENT_CLOSE_ASAP: output-buffer limits, a cross-protocol attack).
   */
  closeAsap = false;
  /** The output waiting for the socket: Redis's reply buffer and list, with their accounting. */
  readonly output: ReplyBuffer;
  /** When the output first stayed over the soft limit (unix s), 0 when under it (obuf_soft_limit_reached_time). */
  obufSoftLimitSinceS = 0;
  /** CLIENT KILL or shutdown: the connection is gone. */
  closed = false;
  /** Called by the server when it closes the connection (CLIENT KILL). */
  onClose: (() => void) | null = null;
  /** A rewritten argv for propagation of the current command (SETEX -> SET PXAT, ...). */
  propagateArgv: string[] | null = null;
  /**
   * Propagate the current command to these targets (PROPAGATE bits) even if
   * it changed nothing: FLUSHDB on an empty database, PUBLISH to replicas.
   * Redis's forceCommandPropagation. The dispatcher clears it.
   */
  forcePropagation = 0;
  /** Bytes in the query buffer not yet parsed into commands (set by the transport). */
  queryBufferBytes = 0;
  /** The query buffer's accounting (CLIENT LIST qbuf, qbuf-free), or null for a client with no connection. */
  queryBuffer: QueryBuffer | null = null;
  /**
   * Replies to earlier commands are waiting to be written (set by the
   * transport before each command): SYNC refuses to start then.
   */
  repliesPending = false;
  /** The raw byte stream of the connection (set by the transport), or null. */
  rawOutput: RawOutput | null = null;
  /** Bytes of the last command's arguments, for CLIENT LIST argv-mem. */
  argvBytes = 0;
  /** Unused: CLIENT LIST derives its flags from the state below. */
  flagsText = 'N';
  /** The Unix socket path the client came in through, or null for TCP. */
  unixSocket: string | null = null;
  /** Replica, master link or MONITOR connection (CLIENT LIST flags S, M, O). */
  role: ClientRole = 'normal';
  /** CLIENT NO-EVICT ON (flag e). */
  noEvict = false;
  /** What the client waits for in a blocking command (flag b), or null. */
  blockedOn: BlockState | null = null;
  /**
   * Delivers a reply that comes later than its command (a blocking command
   * served or timed out). Set by the transport.
   */
  onAsyncReply: ((reply: Reply) => void) | null = null;
  /** Runs the commands pipelined behind a blocking one once it is answered. Set by the transport. */
  onResume: (() => void) | null = null;
  /** READONLY on a cluster replica (flag r). */
  readonlyMode = false;
  /** Its command waits for a client pause to end (BLOCKED_POSTPONE). */
  postponed = false;
  /** The primary's replication offset after its last command (c->woff), for WAIT. */
  woff = 0;
  /** Subscriptions, kept by the pub/sub commands (CLIENT LIST sub, psub, ssub; flag P). */
  readonly channels = new Set<string>();
  readonly patterns = new Set<string>();
  readonly shardChannels = new Set<string>();
  /** Buckets of the client's channel tables, which grow and never shrink (pubsub.ts). */
  channelSlots = 0;
  shardChannelSlots = 0;
  /**
   * Pushes for this client held while it runs a command, to go out before
   * that command's reply (see pubsub.ts pushTo); null outside a command.
   */
  heldPushes: Reply[] | null = null;
  /**
   * CLIENT REPLY OFF, and SKIP for the next command: replies are dropped,
   * pushes still go out (Redis's CLIENT_REPLY_OFF, CLIENT_REPLY_SKIP and
   * CLIENT_REPLY_SKIP_NEXT).
   */
  replyOff = false;
  replySkip = false;
  replySkipNext = false;
  /** The ACL user the connection is authenticated as. */
  user = 'default';
  /**
   * Arguments of the current command that must not be shown (a password):
   * the slow log and MONITOR print "(redacted)" in their place. Cleared
   * after the command (Redis's original_argv).
   */
  redacted: number[] | null = null;
  /** How long the last command ran, in us (c->duration), for a blocked command's slow log entry. */
  durationUs = 0;
  /** The arguments of the blocking command the client waits in, for the slow log when it is served. */
  blockedArgv: string[] | null = null;
  /** Whether the connection has authenticated (always true while the default user needs no password). */
  authenticated = true;

  constructor(
    readonly server: RedisServer,
    /** CLIENT ID; changed only when a cached primary's client takes a new connection (RedisServer.keepClientId). */
    public id: number,
    readonly address: ClientAddress,
  ) {
    this.db = server.dbs[0]!;
    this.authenticated = server.config.get('requirepass') === '';
    this.createdMs = server.nowMs;
    this.lastInteractionMs = server.nowMs;
    this.output = new ReplyBuffer(Math.floor(server.nowMs / 1000));
  }

  get dbIndex(): number {
    return this.db.id;
  }

  /** Hides argument `i` of the current command from the slow log and MONITOR (redactClientCommandArgument). */
  redact(i: number): void {
    if (this.redacted === null) this.redacted = [i];
    else if (!this.redacted.includes(i)) this.redacted.push(i);
  }

  /**
   * Whether the client is in pub/sub mode (CLIENT_PUBSUB): SUBSCRIBE sets
   * it and the last unsubscription clears it, so it is having any.
   */
  get inPubSub(): boolean {
    return this.channels.size + this.patterns.size + this.shardChannels.size !== 0;
  }

  /** Whether the client is parked in a blocking command. */
  get blocked(): boolean {
    return this.blockedOn !== null;
  }
}
