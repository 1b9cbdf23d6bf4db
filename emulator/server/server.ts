import type { ProcessServices } from '../process/services.js';
import { Database, type KeyspaceHost } from '../keyspace/database.js';
import { touchWatchedKey } from '../keyspace/watch.js';
import { CMD, CommandTable, type CommandDef, type CommandFacts, type Handler } from './command-table.js';
import { ErrorReply, FramesReply, PushReply, QUEUED, type Reply } from '../resp/reply.js';
import type { Clock } from '../sim/clock.js';
import { Random } from '../sim/random.js';
import { Client, PROPAGATE, type ClientAddress } from './client.js';
import { Config } from './config.js';
import { ServerStats } from './stats.js';
import { discardTransaction } from './transaction.js';
import { activeExpireCycle } from '../keyspace/expire.js';
import { ReplicaKeysWithExpire } from '../keyspace/replica-keys-with-expire.js';
import { ScanCursors } from '../keyspace/scan.js';
import { BLOCKED, BlockingRegistry } from './blocking.js';
import type { Value } from '../keyspace/values.js';
import { lfuAccess } from './lfu.js';
import type { ForkView } from '../keyspace/fork-view.js';
import { OOM_MESSAGE, performEvictions } from './evict.js';
import type { ShutdownFlags } from '../commands/shutdown.js';
import { monitorLine } from './monitor-line.js';
import type { AofCommands, SnapshotCommands } from '../commands/persistence.js';
import { asciiLower, asciiUpper } from '../resp/bytes.js';
import type { ReplicationState } from '../replication/state.js';
import { ClientPause } from './client-pause.js';
import { FunctionLibraries } from './function-libraries.js';
import { ClientsCron } from './clients-cron.js';
import { SlowLog } from './slowlog.js';
import { LatencyMonitor } from './latency-monitor.js';
import { usedMemory } from './info.js';
import { NO_PUSHES, PubSubRegistry } from './pubsub.js';
import { NOTIFY, notifyKeyspaceEvent } from './notify.js';
import { keyspaceEventFlags } from './config-params.js';
import { cString } from '../numbers/c-string.js';

export interface ServerOptions {
  /** Virtual time. */
  clock: Clock;
  /** Seed for the server's random choices (RANDOMKEY, SPOP, run id...). */
  seed?: number;
  /** Startup configuration, as `redis-server --name value` would give it. */
  config?: Readonly<Record<string, string>>;
  /** The address the server listens on, for CLIENT LIST laddr and INFO. */
  host?: string;
  port?: number;
  /** Facts of commands the data server does not have (redis-sentinel's SENTINEL). */
  extraFacts?: readonly CommandFacts[];
}

/**
 * What a server is assembled from, given by the layer above that knows the
 * subsystems (emulator/process/create-server.ts), as Redis's main() in
 * server.c wires them: the server itself knows only their shapes.
 */
export interface ServerParts {
  /** The command handlers, by full lowercase name ("get", "config|get"). */
  handlers: Readonly<Record<string, Handler>>;
  /** Builds the server's replication state once the server's config and run id exist. */
  replication: (server: RedisServer) => ReplicationState;
}

/**
 * The thread that runs a server's commands, when a process runs it in a
 * simulated world: it charges a command's CPU time (and whatever the
 * command stalled, DEBUG SLEEP) so that the server's clock moves on by it.
 */
export interface CommandThread {
  charge(argv: readonly string[], reply: Reply): void;
}

/** Something that listens to the writes a server makes (AOF, replicas). */
export type PropagationListener = (dbIndex: number, argv: string[]) => void;

/**
 * One redis-server process: its databases, configuration, clients, command
 * table, counters, and the dispatcher that runs a command the way Redis's
 * processCommand() and call() do.
 */
export class RedisServer implements KeyspaceHost {
  readonly clock: Clock;
  readonly random: Random;
  readonly config: Config;
  readonly dbs: Database[];
  readonly commands: CommandTable;
  readonly clients = new Map<number, Client>();
  readonly stats = new ServerStats();
  /** Scans in progress (SCAN, HSCAN, SSCAN, ZSCAN over hash tables). */
  readonly scanCursors = new ScanCursors();
  /** FUNCTION LOAD's libraries, kept across saves and loads (never run: the emulator has no Lua). */
  readonly functions = new FunctionLibraries();
  /** Clients parked in blocking commands. */
  readonly blocking: BlockingRegistry = new BlockingRegistry(this);
  readonly host: string;
  readonly port: number;
  /** 40 hex characters, chosen at start. */
  readonly runId: string;
  readonly startMs: number;
  /** Time of the current command, in ms (server.mstime). */
  nowMs = 0;
  /** Time of the current command, in microseconds (server.ustime). */
  nowUs = 0;
  /** The process's id (INFO process_id), when the server runs as a process. */
  pid: (() => number) | null = null;
  /** LRU clock of the current command: seconds, 24 bits (LRU_CLOCK). */
  lruClock = 0;
  /** Changes since the last save (server.dirty). */
  dirty = 0;
  /** Set under an LFU maxmemory-policy: keys' access data is then LFU counters. */
  lfuAccess: ((previous: number | undefined) => number) | null = null;
  /** Point-in-time views of the dataset held by forked children (BGSAVE): writes save keys into them first. */
  readonly forkViews: ForkView[] = [];
  /**
   * Time the server's thread must spend beyond the command's own cost (DEBUG
   * SLEEP); the process running the server in a simulated world charges it
   * and clears it.
   */
  stallUs = 0;
  /**
   * The thread waits for blocking I/O (SAVE's write and fsync): no command
   * runs until the process running the server clears it.
   */
  threadBlocked = false;
  /**
   * Stops whatever runs this server (SHUTDOWN): true when it will stop, false
   * when it cannot (the client then gets Redis's error). Null when nothing
   * can stop it.
   */
  shutdownHook: ((flags: ShutdownFlags, c: Client) => boolean) | null = null;
  /** The configuration file the server was started with (CONFIG REWRITE), or null. */
  configFile: ConfigFileAccess | null = null;
  /** The snapshot engine of a server with a disk (SAVE, BGSAVE), or null. */
  snapshots: SnapshotCommands | null = null;
  /** The AOF engine of a server with a disk (BGREWRITEAOF), or null. */
  aof: AofCommands | null = null;
  /**
   * Where the server's log lines go (the process running it); a bare
   * server logs nowhere.
   */
  logHook: ((text: string, level: 'notice' | 'warning' | 'verbose') => void) | null = null;
  /** Clients marked to close at once, freed when the server is done with its current work (clients_to_close). */
  private readonly clientsToClose = new Set<Client>();
  /** When the last cross-protocol attack was logged (unix s): at most once a minute. */
  private securityWarningLoggedS = 0;
  /** serverCron's visits to the clients: timeouts, buffers, output limits. */
  readonly clientsCron = new ClientsCron(this);
  /** Clients in MONITOR mode. */
  readonly monitors = new Set<Client>();
  /**
   * The thread commands run on, set by the process that runs this server;
   * null for a bare server, whose commands take no time beyond what they
   * stall.
   */
  thread: CommandThread | null = null;
  /** Set when call() charged the thread for the top-level command just run. */
  private charged = false;
  readonly slowlog = new SlowLog();
  readonly latency = new LatencyMonitor();
  /** slowlog-log-slower-than, slowlog-max-len, latency-monitor-threshold and latency-tracking, kept in step with CONFIG SET. */
  private slowlogSlowerThanUs = 0;
  private slowlogMaxLen = 0;
  latencyThresholdMs = 0;
  private latencyTracking = true;
  /** Fork speed of the last fork in GB of memory per second (stat_fork_rate, for LATENCY DOCTOR). */
  forkRateGbPerS = 0;
  /** Channels, patterns and shard channels, and who listens to them. */
  readonly pubsub = new PubSubRegistry();
  /** notify-keyspace-events as flags (kept in step with CONFIG SET). */
  notifyFlags = 0;
  /** CONFIG SET maxmemory asked for an eviction cycle once its command is done (startEvictionTimeProc). */
  private evictionDue = false;
  /** The maxmemory limit in bytes, 0 for none (kept in step with CONFIG SET). */
  maxmemory = 0;
  /**
   * Whether lookups may delete expired keys: not on a replica (its
   * primary's DEL does), nor while clients are paused (the dataset must
   * hold still).
   */
  get mayDeleteExpired(): boolean {
    return this.replication.masterHost === null && !this.pause.paused();
  }
  /** Set while the AOF is replayed at start: keys do not expire meanwhile, as in Redis. */
  loadingData = false;
  /**
   * checkAlreadyExpired (src/expire.c): whether an expiry time already past
   * deletes the key at once (EXPIRE, SET PXAT, RESTORE). Not while the AOF
   * is read back, where the key takes the past time and later records may
   * still write to it (it expires once loading is done), nor on a replica,
   * which waits for its primary's DEL.
   */
  alreadyExpired(whenMs: number | bigint): boolean {
    const past = typeof whenMs === 'bigint' ? whenMs <= BigInt(this.nowMs) : whenMs <= this.nowMs;
    return past && !this.loadingData && this.mayDeleteExpired;
  }
  /** Whether the active expire cycle runs (DEBUG SET-ACTIVE-EXPIRE). */
  activeExpireEnabled = true;
  /** Keys given a TTL by clients of this server while it is a writable replica: its cron expires them. */
  readonly replicaKeysWithExpire = new ReplicaKeysWithExpire();
  /** The database the next active expire cycle starts with. */
  expireCycleNextDb = 0;
  /** Replication: the IDs, offsets and backlog, the replicas served, the primary followed (emulator/replication). */
  readonly replication: ReplicationState;
  /** CLIENT PAUSE and the pause of a FAILOVER. */
  readonly pause: ClientPause = new ClientPause(this);
  /** Client IDs 1 and 2 belong to the scripting engines' internal clients, so connections start at 3. */
  private nextClientId = 3;
  private readonly propagationListeners: Array<{ listener: PropagationListener; target: number }> = [];
  /** The targets some listener takes (shouldPropagate): a write for no one is not queued. */
  private propagationTargets = 0;
  private pending: Array<{ db: number; argv: string[]; target: number }> = [];
  /** An empty list for `pending` to take after a flush. */
  private sparePending: Array<{ db: number; argv: string[]; target: number }> | null = null;
  /** Nesting depth of call(): EXEC calls commands from inside a call. */
  private callDepth = 0;

  constructor(opts: ServerOptions, parts: ServerParts) {
    this.clock = opts.clock;
    this.random = new Random(opts.seed ?? 1);
    this.host = opts.host ?? '127.0.0.1';
    this.port = opts.port ?? 6379;
    this.updateTime();
    this.startMs = this.nowMs;
    this.config = new Config(this, opts.config ?? {});
    const applyPolicy = (policy: string): null => {
      this.lfuAccess = policy.endsWith('-lfu') ? (previous) => lfuAccess(this, previous) : null;
      return null;
    };
    applyPolicy(this.config.get('maxmemory-policy'));
    this.config.onApply('maxmemory-policy', applyPolicy);
    this.maxmemory = this.config.getNumber('maxmemory');
    this.config.onApply('maxmemory', () => {
      this.maxmemory = this.config.getNumber('maxmemory');
      // updateMaxmemory: a lower limit starts evicting from the event loop
      // right after the command, without waiting for the next command.
      if (this.maxmemory !== 0) {
        const used = usedMemory(this);
        if (this.maxmemory < used) {
          this.replication.process.log(
            `WARNING: the new maxmemory value set via CONFIG SET (${this.maxmemory}) is smaller than the current memory usage (${used}). This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.`,
            'warning',
          );
        }
        this.evictionDue = true;
      }
      return null;
    });
    const readTimingSettings = (): null => {
      this.slowlogSlowerThanUs = this.config.getNumber('slowlog-log-slower-than');
      this.slowlogMaxLen = this.config.getNumber('slowlog-max-len');
      this.latencyThresholdMs = this.config.getNumber('latency-monitor-threshold');
      this.latencyTracking = this.config.getBool('latency-tracking');
      return null;
    };
    readTimingSettings();
    for (const name of ['slowlog-log-slower-than', 'slowlog-max-len', 'latency-monitor-threshold', 'latency-tracking']) this.config.onApply(name, readTimingSettings);
    const applyNotify = (classes: string): null => {
      this.notifyFlags = keyspaceEventFlags(classes);
      return null;
    };
    applyNotify(this.config.get('notify-keyspace-events'));
    this.config.onApply('notify-keyspace-events', applyNotify);
    const n = this.config.getNumber('databases');
    this.dbs = [];
    for (let i = 0; i < n; i++) this.dbs.push(new Database(i, this));
    this.commands = new CommandTable(parts.handlers, opts.extraFacts);
    this.runId = this.randomHex(40);
    this.replication = parts.replication(this);
  }

  /** 'n' random lowercase hex digits from the server's PRNG. */
  randomHex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[this.random.below(16)];
    return s;
  }

  /** Reads the clock into the cached command time (updateCachedTime). */
  updateTime(): void {
    const us = this.clock.nowUs();
    this.nowUs = us;
    const ms = Math.floor(us / 1000);
    if (ms !== this.nowMs) {
      this.nowMs = ms;
      this.lruClock = Math.floor(ms / 1000) & 0xffffff;
    }
  }

  log(text: string, level: 'notice' | 'warning' | 'verbose' = 'notice'): void {
    this.logHook?.(text, level);
  }

  /**
   * acceptCommonHandler's admission: the error a new connection gets
   * instead of being a client, when maxclients clients are connected.
   */
  refuseConnection(): string | null {
    if (this.clients.size < this.config.getNumber('maxclients')) return null;
    this.stats.rejectedConnections++;
    return '-ERR max number of clients reached\r\n';
  }

  /** Accepts a new client connection. */
  connect(address?: Partial<ClientAddress>): Client {
    this.updateTime();
    const id = this.nextClientId++;
    const c = new Client(this, id, {
      addr: address?.addr ?? `127.0.0.1:${40000 + (id % 20000)}`,
      laddr: address?.laddr ?? `${this.host}:${this.port}`,
      fd: address?.fd ?? 7 + this.clients.size + 1,
    });
    this.clients.set(id, c);
    this.stats.totalConnectionsReceived++;
    return c;
  }

  /**
   * createClient's id for a client made without a connection: the client
   * of a primary a replica synthesizes from its own history
   * (replicationCacheMasterUsingMyself, through replicationCreateMasterClient).
   */
  reserveClientId(): number {
    return this.nextClientId++;
  }

  /**
   * A cached primary's client taking a new connection after +CONTINUE
   * (replicationResurrectCachedMaster): Redis reuses the cached client, so
   * the connection's client keeps that id, and the one just taken for it
   * is given back when nothing was taken since.
   */
  keepClientId(c: Client, id: number): void {
    if (this.clients.get(c.id) !== c || c.id === id) return;
    this.clients.delete(c.id);
    if (c.id === this.nextClientId - 1) this.nextClientId--;
    c.id = id;
    this.clients.set(id, c);
  }

  /** Sends a command's line to every monitoring client. */
  private feedMonitors(c: Client, argv: string[]): void {
    const line = monitorLine(this.clock.nowUs(), c.db.id, c, argv);
    for (const m of this.monitors) m.onAsyncReply?.(line);
  }

  /** Forgets a client whose connection is gone. */
  disconnect(c: Client): void {
    if (!this.clients.delete(c.id)) return;
    if (c.role === 'replica') this.replication.primary.clientGone(c);
    else if (c.role === 'master') this.replication.replica.masterClientGone(c);
    this.pause.forget(c);
    this.monitors.delete(c);
    this.pubsub.forget(c);
    this.blocking.unblock(c, null);
    discardTransaction(c);
    c.closed = true;
  }

  /** Closes a client from the server side (CLIENT KILL). */
  kill(c: Client): void {
    this.clientsToClose.delete(c);
    this.disconnect(c);
    c.onClose?.();
  }

  /**
   * freeClientAsync: the client stops being served and what it was not
   * sent is dropped; it goes when the server is done with what it is
   * doing (freeClientsInAsyncFreeQueue).
   */
  closeAsync(c: Client): void {
    if (c.closeAsap || c.closed) return;
    c.closeAsap = true;
    this.clientsToClose.add(c);
  }

  /** Frees the clients closeAsync marked (beforeSleep, and after each client's input). */
  freeClientsInAsyncFreeQueue(): void {
    if (this.clientsToClose.size === 0) return;
    for (const c of [...this.clientsToClose]) this.kill(c);
  }

  /**
   * Adds a listener of the writes meant for `target` (the AOF takes
   * PROPAGATE.AOF, replication PROPAGATE.REPL). Returns the removal.
   */
  onPropagate(listener: PropagationListener, target: number = PROPAGATE.ALL): () => void {
    const entry = { listener, target };
    this.propagationListeners.push(entry);
    this.propagationTargets |= target;
    return () => {
      const i = this.propagationListeners.indexOf(entry);
      if (i >= 0) this.propagationListeners.splice(i, 1);
      this.propagationTargets = 0;
      for (const l of this.propagationListeners) this.propagationTargets |= l.target;
    };
  }

  // ---- KeyspaceHost ----

  keyExpired(db: Database, key: string): void {
    notifyKeyspaceEvent(this, NOTIFY.EXPIRED, 'expired', key, db.id);
    this.stats.expiredKeys++;
    touchWatchedKey(db, key);
    this.propagate(db.id, ['DEL', key]);
  }

  keyMissed(db: Database, key: string): void {
    notifyKeyspaceEvent(this, NOTIFY.KEY_MISS, 'keymiss', key, db.id);
  }

  keyModified(db: Database, key: string): void {
    if (db.watched.size !== 0) touchWatchedKey(db, key);
  }

  keyAdded(db: Database, key: string, value: Value): void {
    if (this.blocking.count !== 0 && typeof value !== 'string') this.blocking.signalKeyAsReady(db, key, value);
    notifyKeyspaceEvent(this, NOTIFY.NEW, 'new', key, db.id);
  }

  // ---- the dispatcher ----

  /**
   * Runs one command for a client and returns its reply: lookup, arity,
   * flags, MULTI queueing, then call(). Redis's processCommand().
   */
  execute(c: Client, argv: string[]): Reply {
    if (c.role === 'master') return this.executeForPrimary(c, argv);
    const outerPushes = c.heldPushes;
    c.heldPushes = NO_PUSHES;
    let reply: Reply;
    try {
      reply = withHeldPushes(c, this.dispatch(c, argv));
    } finally {
      c.heldPushes = outerPushes;
    }
    if (this.callDepth === 0 && this.pause.hasReleased) this.pause.processReleased();
    if (this.evictionDue && this.callDepth === 0) {
      this.evictionDue = false;
      performEvictions(this);
    }
    if (c.replyOff || c.replySkip || c.replySkipNext) reply = this.silence(c, reply);
    // A replica's connection carries the stream: a reply would corrupt it.
    return c.role === 'replica' ? this.replication.primary.replyFromReplica(c, argv, reply) : reply;
  }

  /**
   * CLIENT REPLY OFF or SKIP: the command's reply is dropped but its pushes
   * still go out; SKIP silences the one command after it (resetClient).
   */
  private silence(c: Client, reply: Reply): Reply {
    const silent = c.replyOff || c.replySkip;
    c.replySkip = c.replySkipNext;
    c.replySkipNext = false;
    return silent && reply !== BLOCKED ? pushesOnly(reply) : reply;
  }

  /**
   * A command of the replication stream, on a replica: keys are never
   * expired for it (only the primary's DEL removes them; Redis's
   * expireIfNeeded returns early for server.master), and its reply goes
   * nowhere.
   */
  private executeForPrimary(c: Client, argv: string[]): Reply {
    const wasLoading = this.loadingData;
    this.loadingData = true;
    let reply: Reply;
    try {
      reply = this.dispatch(c, argv);
    } finally {
      this.loadingData = wasLoading;
    }
    return this.replication.replica.replyToPrimary(c, reply);
  }

  private dispatch(c: Client, argv: string[]): Reply {
    this.updateTime();
    c.lastInteractionMs = this.nowMs;
    const name = argv[0]!;
    if ((name.length === 4 || name.length === 5) && isCrossProtocolCommand(name)) return this.securityWarning(c);
    let cmd = this.commands.get(name);
    if (cmd !== undefined && cmd.subcommands !== null && argv.length > 1) {
      const sub = cmd.subcommands.get(asciiLower(argv[1]!));
      if (sub === undefined) {
        return this.reject(c, null, `unknown subcommand '${cStringUpTo(argv[1]!, 128)}'. Try ${asciiUpper(cString(argv[0]!))} HELP.`, true);
      }
      cmd = sub;
    }
    if (cmd === undefined) return this.reject(c, null, unknownCommandMessage(argv), true);
    c.lastCommand = cmd.name;
    const arity = cmd.arity;
    if (arity > 0 ? argv.length !== arity : argv.length < -arity) {
      return this.reject(c, cmd, `wrong number of arguments for '${cmd.name}' command`, false);
    }
    const flags = cmd.flags;
    if (flags & CMD.PROTECTED) {
      const denied = this.protectedActionDenied(c, cmd.parent?.name ?? cmd.name);
      if (denied) return this.reject(c, cmd, denied, false);
    }
    if (!c.authenticated && !(flags & CMD.NO_AUTH)) return this.reject(c, cmd, '-NOAUTH Authentication required.', false);
    // Before every state check (memory, replicas, a pause): SAVE inside MULTI is refused for what it is.
    if (c.inMulti && flags & CMD.NO_MULTI) return this.reject(c, cmd, 'Command not allowed inside a transaction', false);
    if (this.maxmemory !== 0 && !performEvictions(this)) {
      // Inside MULTI anything but EXEC/DISCARD/QUIT/RESET is refused, since
      // queueing itself takes memory; EXEC only when it holds a denyoom command.
      const name = cmd.name;
      const deny =
        c.inMulti && name !== 'exec' && name !== 'discard' && name !== 'quit' && name !== 'reset'
          ? true
          : name === 'exec'
            ? c.queue.some((q) => (q.cmd.flags & CMD.DENYOOM) !== 0)
            : (flags & CMD.DENYOOM) !== 0;
      if (deny) return this.reject(c, cmd, OOM_MESSAGE, false);
    }
    // The primary's commands are obeyed whatever the replica's state (mustObeyClient).
    const obey = c.role === 'master';
    const isExec = cmd.name === 'exec';
    const isWrite = (flags & CMD.WRITE) !== 0 || (isExec && queuedFlags(c, CMD.WRITE));
    if (!obey && (flags & CMD.WRITE || cmd.name === 'ping')) {
      const denied = this.stats.persistence.diskErrorReply(this);
      if (denied !== null) return this.reject(c, cmd, denied, false);
    }
    const repl = this.replication;
    if (isWrite && !repl.primary.enoughGoodReplicas()) return this.reject(c, cmd, '-NOREPLICAS Not enough good replicas to write.', false);
    if (repl.masterHost !== null) {
      if (isWrite && !obey && this.config.getBool('replica-read-only')) return this.reject(c, cmd, "-READONLY You can't write against a read only replica.", false);
    }
    // A RESP2 subscriber's connection carries messages: only commands whose
    // replies look like them are allowed (RESP3 tells pushes apart).
    if (c.resp === 2 && c.inPubSub && !PUBSUB_CONTEXT_COMMANDS.has(cmd.name)) {
      return this.reject(c, cmd, `Can't execute '${cmd.name}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context`, false);
    }
    if (repl.masterHost !== null) {
      const denyStale = !(flags & CMD.STALE) || (isExec && c.queue.some((q) => !(q.cmd.flags & CMD.STALE)));
      if (denyStale && !repl.replica.linkUp() && !this.config.getBool('replica-serve-stale-data')) {
        return this.reject(c, cmd, "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", false);
      }
    }
    const p = this.stats.persistence;
    if (p.loading && !p.asyncLoading && !(flags & CMD.LOADING)) return this.reject(c, cmd, '-LOADING Redis is loading the dataset in memory', false);
    if (p.asyncLoading && (flags & CMD.NO_ASYNC_LOADING || (isExec && queuedFlags(c, CMD.NO_ASYNC_LOADING)))) {
      return this.reject(c, cmd, '-LOADING Redis is loading the dataset in memory', false);
    }
    const mayReplicate = isWrite || (flags & CMD.MAY_REPLICATE) !== 0 || (isExec && queuedFlags(c, CMD.MAY_REPLICATE));
    if (c.role === 'replica' && (mayReplicate || flags & CMD.READONLY || (isExec && queuedFlags(c, CMD.READONLY)))) {
      return this.reject(c, cmd, "Replica can't interact with the keyspace", false);
    }
    if (this.pause.type !== 'off' && this.pause.holds(c, mayReplicate)) return this.pause.postpone(c, argv);
    if (c.inMulti) {
      if (!(flags & CMD.TX_CONTROL)) {
        if (!c.dirtyCas && !c.multiError) c.queue.push({ cmd, argv });
        return QUEUED;
      }
    }
    const reply = this.call(c, cmd, argv);
    c.woff = repl.masterReplOffset;
    if (this.blocking.hasReadyKeys) this.blocking.handleReadyKeys();
    return reply;
  }

  /**
   * Runs a command that passed the checks: the handler, then statistics and
   * propagation. Redis's call(). EXEC uses it for each queued command.
   */
  call(c: Client, cmd: CommandDef, argv: string[]): Reply {
    const dirtyBefore = this.dirty;
    const outerCmd = c.cmd;
    const startUs = this.clock.nowUs();
    const stallBefore = this.stallUs;
    const outerPushes = c.heldPushes;
    c.cmd = cmd;
    c.heldPushes = NO_PUSHES;
    this.callDepth++;
    let reply: Reply;
    try {
      // Pushes made while a command inside EXEC runs sit in EXEC's reply
      // just before that command's own, as in Redis's output buffer.
      reply = withHeldPushes(c, cmd.handler!(c, argv));
    } finally {
      this.callDepth--;
      c.cmd = outerCmd;
      c.heldPushes = outerPushes;
    }
    // The command's duration is the clock's move while it ran, as Redis
    // reads it around the handler: the thread charges the command's CPU
    // time (and any stall) to the clock. A bare server's clock stands
    // still, so there only the stall counts.
    let durationUs: number;
    if (this.thread !== null) {
      this.thread.charge(argv, reply);
      durationUs = this.clock.nowUs() - startUs;
      if (this.callDepth === 0) this.charged = true;
    } else {
      durationUs = this.clock.nowUs() - startUs + this.stallUs - stallBefore;
      if (this.callDepth === 0) this.stallUs = 0;
    }
    const blocked = c.blockedOn !== null;
    if (blocked) c.blockedArgv = argv;
    cmd.calls++;
    this.stats.totalCommandsProcessed++;
    if (this.monitors.size !== 0 && !(cmd.flags & (CMD.ADMIN | CMD.SKIP_MONITOR))) this.feedMonitors(c, c.redacted === null ? argv : redactedArgv(argv, c.redacted));
    if (this.threadBlocked && this.callDepth === 0 && this.thread !== null) {
      // The command holds the thread for its I/O (SAVE writing and syncing
      // its file): it ends, and is timed, when the I/O is done.
      this.heldCall = { c, cmd, argv, startUs };
    } else {
      this.timeCommand(c, cmd, argv, durationUs, blocked);
    }
    if (reply instanceof ErrorReply) {
      cmd.failedCalls++;
      this.stats.countError(errorCode(reply.message));
    }
    if (this.propagationListeners.length !== 0) {
      const target = (this.dirty !== dirtyBefore && cmd.flags & CMD.WRITE ? PROPAGATE.ALL : 0) | c.forcePropagation;
      if (target & this.propagationTargets) {
        // The common case, a top-level write alone, goes to the listeners
        // at once: one write is never wrapped, so the pending list (an
        // object per write) would only delay it.
        if (this.callDepth === 0 && this.pending.length === 0) this.propagateAlone(c.db.id, c.propagateArgv ?? argv, target);
        else this.pending.push({ db: c.db.id, argv: c.propagateArgv ?? argv, target });
      }
      if (this.callDepth === 0) this.flushPropagation(!TOUCHES_ARBITRARY_KEYS.has(cmd.name));
    }
    c.propagateArgv = null;
    c.forcePropagation = 0;
    return reply;
  }

  /** What call() records of a command's duration: c->duration, latency sample, slow log, statistics. */
  private timeCommand(c: Client, cmd: CommandDef, argv: string[], durationUs: number, blocked: boolean): void {
    c.durationUs = durationUs;
    if (this.latencyThresholdMs !== 0) {
      this.latency.addSampleIfNeeded(cmd.flags & CMD.FAST ? 'fast-command' : 'command', Math.floor(durationUs / 1000), this.latencyThresholdMs, this.unixSeconds());
    }
    // A blocked command is logged when it is served (logUnblocked).
    if (!blocked) this.logSlow(c, cmd, argv, durationUs);
    cmd.usec += durationUs;
    if (this.latencyTracking && !blocked) cmd.recordLatency(durationUs);
    if (!blocked) c.redacted = null;
  }

  /** A command that held the thread for I/O (see call()), waiting for it to be done. */
  private heldCall: { c: Client; cmd: CommandDef; argv: string[]; startUs: number } | null = null;

  /**
   * The I/O a command held the thread for is done (the process calls this
   * when it lets the thread go): the command's duration runs to now.
   */
  finishHeldCommand(): void {
    const h = this.heldCall;
    if (h === null) return;
    this.heldCall = null;
    this.timeCommand(h.c, h.cmd, h.argv, this.clock.nowUs() - h.startUs, false);
  }

  /**
   * Whether call() charged the thread for the top-level command just run;
   * clears the mark. A command refused before call() (or queued by MULTI)
   * is charged by the process itself.
   */
  takeCharged(): boolean {
    const was = this.charged;
    this.charged = false;
    return was;
  }

  /** The slow log's entry for a command, unless the command is never logged (EXEC: its commands are). */
  private logSlow(c: Client, cmd: CommandDef, argv: string[], durationUs: number): void {
    if (cmd.flags & CMD.SKIP_SLOWLOG || this.slowlogSlowerThanUs < 0) return;
    // Most commands are not slow: they make no entry and cost no clock read.
    if (durationUs < this.slowlogSlowerThanUs) return this.slowlog.trim(this.slowlogMaxLen);
    const logged = c.redacted === null ? argv : redactedArgv(argv, c.redacted);
    this.slowlog.push(logged, durationUs, { peer: c.address.addr, name: c.name, timeS: this.unixSeconds() }, this.slowlogSlowerThanUs, this.slowlogMaxLen);
  }

  /**
   * A blocked command was served (or released by CLIENT UNBLOCK): its
   * time in the slow log, the command's statistics and its latency
   * histogram count the first run plus the serving (updateStatsOnUnblock).
   * The serving itself takes no time of its own here.
   */
  logUnblocked(c: Client, cmd: CommandDef): void {
    const durationUs = c.durationUs;
    cmd.usec += durationUs;
    if (this.latencyTracking) cmd.recordLatency(durationUs);
    this.logSlow(c, cmd, c.blockedArgv ?? [], durationUs);
    c.redacted = null;
    c.blockedArgv = null;
  }

  /** time(NULL): the clock in whole seconds. */
  unixSeconds(): number {
    return Math.floor(this.clock.nowUs() / 1e6);
  }

  /**
   * A fork just stopped the thread for `forkUs` (redisFork): the
   * statistics of INFO and LATENCY DOCTOR, and the "fork" latency event.
   */
  recordFork(forkUs: number): void {
    this.stats.latestForkUsec = forkUs;
    this.stats.totalForks++;
    this.forkRateGbPerS = forkUs === 0 ? 0 : (usedMemory(this) * 1e6) / forkUs / 2 ** 30;
    this.latency.addSampleIfNeeded('fork', Math.floor(forkUs / 1000), this.latencyThresholdMs, this.unixSeconds());
  }

  /**
   * Queues a write for the AOF and replicas. Writes made by one top-level
   * command (EXEC and its queue, or a command plus the DEL of a key that
   * expired under it) leave together, wrapped in MULTI/EXEC when more than one.
   */
  propagate(dbIndex: number, argv: string[]): void {
    if (this.propagationListeners.length === 0) return;
    this.pending.push({ db: dbIndex, argv, target: PROPAGATE.ALL });
    if (this.callDepth === 0) this.flushPropagation();
  }

  /** A top-level command's only write, with nothing queued before it: flushPropagation's case of one. */
  private propagateAlone(db: number, argv: string[], target: number): void {
    for (const l of this.propagationListeners) if (target & l.target) l.listener(db, argv);
  }

  private flushPropagation(mayWrap = true): void {
    const ops = this.pending;
    if (ops.length === 0) return;
    // The list is emptied and kept for the next command rather than made
    // anew for every write; a listener's own propagation (flushed inside
    // this one) gets a list of its own.
    this.pending = this.sparePending ?? [];
    this.sparePending = null;
    // The wrapping counts every queued write, whatever its target: after
    // MULTI, SET, PUBLISH, EXEC the AOF gets MULTI, SET, EXEC.
    const wrap = mayWrap && ops.length > 1;
    const listeners = this.propagationListeners;
    if (wrap) for (const l of listeners) l.listener(ops[0]!.db, ['MULTI']);
    for (const op of ops) for (const l of listeners) if (op.target & l.target) l.listener(op.db, op.argv);
    // EXEC goes with the last command's database, so no SELECT comes between them.
    if (wrap) for (const l of listeners) l.listener(ops[ops.length - 1]!.db, ['EXEC']);
    ops.length = 0;
    this.sparePending = ops;
  }

  /** A refused command: counts it, flags a MULTI, and returns the error. */
  private reject(c: Client, cmd: CommandDef | null, message: string, mapNewlines: boolean): Reply {
    if (c.inMulti) c.multiError = true;
    let text = message;
    if (mapNewlines) text = text.replace(/[\r\n]/g, ' ');
    if (cmd) {
      cmd.rejectedCalls++;
      if (cmd.name === 'exec') {
        discardTransaction(c);
        const inner = text.charCodeAt(0) === 45 ? text.slice(1) : text;
        this.stats.countError('EXECABORT');
        return new ErrorReply(`EXECABORT Transaction discarded because of: ${inner}`);
      }
    }
    const err = text.charCodeAt(0) === 45 ? new ErrorReply(text.slice(1)) : new ErrorReply('ERR ' + text);
    this.stats.countError(errorCode(err.message));
    return err;
  }

  /**
   * securityWarningCommand: POST and "Host:" are HTTP, not Redis, and a
   * browser tricked into posting to the port (cross protocol scripting)
   * would have the lines after them run as commands. The connection is
   * closed without a reply, and the attempt logged at most once a minute.
   */
  private securityWarning(c: Client): Reply {
    const nowS = Math.floor(this.nowMs / 1000);
    if (Math.abs(nowS - this.securityWarningLoggedS) > 60) {
      this.log(
        'Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection aborted.',
        'warning',
      );
      this.securityWarningLoggedS = nowS;
    }
    this.closeAsync(c);
    return NO_REPLY;
  }

  /** allowProtectedAction for DEBUG (enable-debug-command) or MODULE (enable-module-command). */
  private protectedActionDenied(c: Client, name: string): string | null {
    const what = name === 'module' ? 'module' : 'debug';
    const setting = this.config.get(`enable-${what}-command`);
    if (setting === 'yes') return null;
    if (setting === 'local' && /^(127\.|::1|\[::1\])/.test(c.address.addr)) return null;
    const upper = what.toUpperCase();
    return `${upper} command not allowed. If the enable-${what}-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`;
  }

  /** The active expiry cycle, run by serverCron at hz. */
  cron(): void {
    this.updateTime();
    this.clientsCron.run();
    // A pause whose time is up ends here, and the commands it held run.
    this.pause.paused();
    if (this.pause.hasReleased) this.pause.processReleased();
    // databasesCron: a primary samples its keys; a replica leaves its
    // primary's keys to the primary's DEL and expires only those written on it.
    if (this.activeExpireEnabled) {
      if (this.replication.masterHost !== null) this.replicaKeysWithExpire.expire(this.dbs);
      else if (this.mayDeleteExpired) activeExpireCycle(this);
    }
    this.runTimers();
  }

  /**
   * Work due at the current time outside any command: blocked clients whose
   * timeout passed (Redis does this before every sleep of its event loop).
   * Drivers call it when nextTimerMs() comes.
   */
  runTimers(): void {
    this.updateTime();
    this.blocking.expireTimeouts(this.nowMs);
    this.blocking.resumeUnblocked();
  }

  /** When runTimers() next has work (unix ms), or null. A timeout fires once time is past it. */
  nextTimerMs(): number | null {
    const t = this.blocking.nextTimeoutMs();
    return t === null ? null : t + 1;
  }
}

/** What a RESP2 client in pub/sub mode may run (processCommand). */
const PUBSUB_CONTEXT_COMMANDS = new Set(['ping', 'subscribe', 'ssubscribe', 'unsubscribe', 'sunsubscribe', 'psubscribe', 'punsubscribe', 'quit', 'reset']);

/** A reply preceded by the pushes held for its client, if any. */
function withHeldPushes(c: Client, reply: Reply): Reply {
  const held = c.heldPushes;
  if (held === null || held === NO_PUSHES || held.length === 0) return reply;
  c.heldPushes = NO_PUSHES;
  if (reply === BLOCKED) {
    // No reply to go before: the pushes go out now.
    for (const push of held) c.onAsyncReply?.(push);
    return reply;
  }
  return new FramesReply(reply instanceof FramesReply ? [...held, ...reply.frames] : [...held, reply]);
}

/** What a silenced client still receives of a reply: its pushes. */
function pushesOnly(reply: Reply): Reply {
  if (reply instanceof PushReply) return reply;
  if (reply instanceof FramesReply) return new FramesReply(reply.frames.filter((f) => f instanceof PushReply));
  return NO_REPLY;
}

const NO_REPLY = new FramesReply([]);

/** Whether a command queued in the client's transaction has a flag (EXEC's mstate.cmd_flags). */
function queuedFlags(c: Client, flag: number): boolean {
  for (const q of c.queue) if (q.cmd.flags & flag) return true;
  return false;
}

/**
 * Commands run directly whose writes are only the deletions of expired keys
 * they came across (CMD_TOUCHES_ARBITRARY_KEYS): those go out one by one,
 * not as a transaction, like the active expiry cycle's.
 */
const TOUCHES_ARBITRARY_KEYS = new Set(['scan', 'randomkey']);

/**
 * processCommand's check for HTTP lines: "post" or "host:" in any case.
 * Every command name of four or five letters passes through here (INCR,
 * HSET, LPUSH...): it is compared letter by letter, with no lowercase copy.
 */
function isCrossProtocolCommand(name: string): boolean {
  return sameIgnoringCase(name, name.length === 4 ? 'post' : 'host:');
}

/** Whether `s` is `lower` (same length, in lowercase ASCII) with any of its letters in uppercase. */
function sameIgnoringCase(s: string, lower: string): boolean {
  if (s.length !== lower.length) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** The arguments with the redacted ones replaced, as the slow log and MONITOR show them. */
function redactedArgv(argv: readonly string[], redacted: readonly number[]): string[] {
  const out = argv.slice();
  for (const i of redacted) if (i < out.length) out[i] = '(redacted)';
  return out;
}

/** The error code for errorstats: the first word, when the message has a space within 32 bytes. */
function errorCode(message: string): string {
  const space = message.indexOf(' ');
  return space > 0 && space < 32 ? message.slice(0, space) : 'ERR';
}

/** printf's "%.Ns" of a C string: stops at NUL, at most n bytes. */
function cStringUpTo(s: string, n: number): string {
  const t = cString(s);
  return t.length > n ? t.slice(0, n) : t;
}

function unknownCommandMessage(argv: string[]): string {
  let args = '';
  for (let i = 1; i < argv.length && args.length < 128; i++) {
    args += `'${cStringUpTo(argv[i]!, 128 - args.length)}' `;
  }
  return `unknown command '${cStringUpTo(argv[0]!, 128)}', with args beginning with: ${args}`;
}

/**
 * The file a server was started with (server.configfile), and the process
 * that writes it (CONFIG REWRITE, persistence/config-file.ts).
 */
export interface ConfigFileAccess {
  /** Absolute, as Redis keeps it (getAbsolutePath at start). */
  readonly path: string;
  /** Values the process keeps itself rather than the server's parameters (the Node server's logfile). */
  readonly values?: Readonly<Record<string, string>>;
  readonly process: ProcessServices;
  /** How many rewrites the process has done (names each one's temporary file). */
  rewrites: number;
}
