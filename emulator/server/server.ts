import { Database, type KeyspaceHost } from '../keyspace/database.js';
import { touchWatchedKey } from '../keyspace/watch.js';
import { CMD, CommandTable, type CommandDef, type Handler } from '../commands/table.js';
import { ErrorReply, FramesReply, QUEUED, type Reply } from '../resp/reply.js';
import type { Clock } from '../sim/clock.js';
import { Random } from '../sim/random.js';
import { Client, type ClientAddress } from './client.js';
import { Config } from './config.js';
import { ServerStats } from './stats.js';
import { discardTransaction } from '../commands/transactions.js';
import { ALL_HANDLERS } from '../commands/index.js';
import { activeExpireCycle } from '../keyspace/expire.js';
import { ScanCursors } from '../keyspace/scan.js';
import { BlockingRegistry } from './blocking.js';
import type { Value } from '../keyspace/values.js';
import { lfuAccess } from './lfu.js';
import type { ForkView } from '../keyspace/fork-view.js';
import { OOM_MESSAGE, performEvictions } from './evict.js';
import type { ShutdownFlags } from '../commands/shutdown.js';
import { monitorLine } from '../commands/monitor.js';
import type { AofCommands, SnapshotCommands } from '../commands/persistence.js';
import { asciiLower, asciiUpper } from '../resp/bytes.js';
import { ReplicationState } from '../replication/state.js';
import { FunctionLibraries } from './function-libraries.js';
import { ClientsCron } from './clients-cron.js';

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
  /** Replaces the handler set (tests). */
  handlers?: Readonly<Record<string, Handler>>;
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
  /** The maxmemory limit in bytes, 0 for none (kept in step with CONFIG SET). */
  maxmemory = 0;
  /** Whether lookups may delete expired keys (false on a read-only replica). */
  mayDeleteExpired = true;
  /** Set while the AOF is replayed at start: keys do not expire meanwhile, as in Redis. */
  loadingData = false;
  /** Whether the active expire cycle runs (DEBUG SET-ACTIVE-EXPIRE). */
  activeExpireEnabled = true;
  /** The database the next active expire cycle starts with. */
  expireCycleNextDb = 0;
  /** Replication: the IDs, offsets and backlog, the replicas served, the primary followed (emulator/replication). */
  readonly replication: ReplicationState;
  /** Client IDs 1 and 2 belong to the scripting engines' internal clients, so connections start at 3. */
  private nextClientId = 3;
  private readonly propagationListeners: PropagationListener[] = [];
  private pending: Array<{ db: number; argv: string[] }> = [];
  /** Nesting depth of call(): EXEC calls commands from inside a call. */
  private callDepth = 0;

  constructor(opts: ServerOptions) {
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
      return null;
    });
    const n = this.config.getNumber('databases');
    this.dbs = [];
    for (let i = 0; i < n; i++) this.dbs.push(new Database(i, this));
    this.commands = new CommandTable(opts.handlers ?? ALL_HANDLERS);
    this.runId = this.randomHex(40);
    this.replication = new ReplicationState(this);
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

  /** Sends a command's line to every monitoring client. */
  private feedMonitors(c: Client, argv: string[]): void {
    const line = monitorLine(this.clock.nowUs(), c.db.id, c, argv);
    for (const m of this.monitors) m.onAsyncReply?.(line);
  }

  /** Forgets a client whose connection is gone. */
  disconnect(c: Client): void {
    if (!this.clients.delete(c.id)) return;
    if (c.role === 'replica') this.replication.primary.clientGone(c);
    this.monitors.delete(c);
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

  onPropagate(listener: PropagationListener): () => void {
    this.propagationListeners.push(listener);
    return () => {
      const i = this.propagationListeners.indexOf(listener);
      if (i >= 0) this.propagationListeners.splice(i, 1);
    };
  }

  // ---- KeyspaceHost ----

  keyExpired(db: Database, key: string): void {
    this.stats.expiredKeys++;
    touchWatchedKey(db, key);
    this.propagate(db.id, ['DEL', key]);
  }

  keyModified(db: Database, key: string): void {
    if (db.watched.size !== 0) touchWatchedKey(db, key);
  }

  keyAdded(db: Database, key: string, value: Value): void {
    if (this.blocking.count !== 0) this.blocking.signalKeyAsReady(db, key, value);
  }

  // ---- the dispatcher ----

  /**
   * Runs one command for a client and returns its reply: lookup, arity,
   * flags, MULTI queueing, then call(). Redis's processCommand().
   */
  execute(c: Client, argv: string[]): Reply {
    const reply = this.dispatch(c, argv);
    // A replica's connection carries the stream: a reply would corrupt it.
    return c.role === 'replica' ? this.replication.primary.replyFromReplica(c, argv, reply) : reply;
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
        return this.reject(c, null, `unknown subcommand '${cString(argv[1]!, 128)}'. Try ${asciiUpper(cString(argv[0]!, Infinity))} HELP.`, true);
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
      const denied = this.protectedActionDenied(c);
      if (denied) return this.reject(c, cmd, denied, false);
    }
    if (!c.authenticated && !(flags & CMD.NO_AUTH)) return this.reject(c, cmd, '-NOAUTH Authentication required.', false);
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
    if (flags & CMD.WRITE || cmd.name === 'ping') {
      const denied = this.stats.persistence.diskErrorReply(this);
      if (denied !== null) return this.reject(c, cmd, denied, false);
    }
    if (this.stats.persistence.loading && !(flags & CMD.LOADING)) return this.reject(c, cmd, '-LOADING Redis is loading the dataset in memory', false);
    if (c.inMulti) {
      if (flags & CMD.NO_MULTI) return this.reject(c, cmd, 'Command not allowed inside a transaction', false);
      if (!(flags & CMD.TX_CONTROL)) {
        if (!c.dirtyCas && !c.multiError) c.queue.push({ cmd, argv });
        return QUEUED;
      }
    }
    const reply = this.call(c, cmd, argv);
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
    c.cmd = cmd;
    this.callDepth++;
    let reply: Reply;
    try {
      reply = cmd.handler!(c, argv);
    } finally {
      this.callDepth--;
      c.cmd = outerCmd;
    }
    cmd.calls++;
    this.stats.totalCommandsProcessed++;
    if (this.monitors.size !== 0 && !(cmd.flags & (CMD.ADMIN | CMD.SKIP_MONITOR))) this.feedMonitors(c, argv);
    if (reply instanceof ErrorReply) {
      cmd.failedCalls++;
      this.stats.countError(errorCode(reply.message));
    }
    if (this.propagationListeners.length !== 0) {
      if ((this.dirty !== dirtyBefore || c.forcePropagation) && cmd.flags & CMD.WRITE) {
        this.pending.push({ db: c.db.id, argv: c.propagateArgv ?? argv });
      }
      if (this.callDepth === 0) this.flushPropagation(!TOUCHES_ARBITRARY_KEYS.has(cmd.name));
    }
    c.propagateArgv = null;
    c.forcePropagation = false;
    return reply;
  }

  /**
   * Queues a write for the AOF and replicas. Writes made by one top-level
   * command (EXEC and its queue, or a command plus the DEL of a key that
   * expired under it) leave together, wrapped in MULTI/EXEC when more than one.
   */
  propagate(dbIndex: number, argv: string[]): void {
    if (this.propagationListeners.length === 0) return;
    this.pending.push({ db: dbIndex, argv });
    if (this.callDepth === 0) this.flushPropagation();
  }

  private flushPropagation(mayWrap = true): void {
    const ops = this.pending;
    if (ops.length === 0) return;
    this.pending = [];
    const wrap = mayWrap && ops.length > 1;
    if (wrap) for (const l of this.propagationListeners) l(ops[0]!.db, ['MULTI']);
    for (const op of ops) for (const l of this.propagationListeners) l(op.db, op.argv);
    // EXEC goes with the last command's database, so no SELECT comes between them.
    if (wrap) for (const l of this.propagationListeners) l(ops[ops.length - 1]!.db, ['EXEC']);
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

  private protectedActionDenied(c: Client): string | null {
    const setting = this.config.get('enable-debug-command');
    if (setting === 'yes') return null;
    if (setting === 'local' && /^(127\.|::1|\[::1\])/.test(c.address.addr)) return null;
    return 'DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.';
  }

  /** The active expiry cycle, run by serverCron at hz. */
  cron(): void {
    this.updateTime();
    this.clientsCron.run();
    if (this.activeExpireEnabled && this.mayDeleteExpired) activeExpireCycle(this);
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

/** A command that answers nothing (the connection is closing). */
const NO_REPLY = new FramesReply([]);

/**
 * Commands run directly whose writes are only the deletions of expired keys
 * they came across (CMD_TOUCHES_ARBITRARY_KEYS): those go out one by one,
 * not as a transaction, like the active expiry cycle's.
 */
const TOUCHES_ARBITRARY_KEYS = new Set(['scan', 'randomkey']);

/** processCommand's check for HTTP lines: "post" or "host:" in any case. */
function isCrossProtocolCommand(name: string): boolean {
  const lower = asciiLower(name);
  return lower === 'post' || lower === 'host:';
}

/** The error code for errorstats: the first word, when the message has a space within 32 bytes. */
function errorCode(message: string): string {
  const space = message.indexOf(' ');
  return space > 0 && space < 32 ? message.slice(0, space) : 'ERR';
}

/** printf's "%.Ns" of a C string: stops at NUL, at most n bytes. */
function cString(s: string, n: number): string {
  const nul = s.indexOf('\0');
  const t = nul < 0 ? s : s.slice(0, nul);
  return t.length > n ? t.slice(0, n) : t;
}

function unknownCommandMessage(argv: string[]): string {
  let args = '';
  for (let i = 1; i < argv.length && args.length < 128; i++) {
    args += `'${cString(argv[i]!, 128 - args.length)}' `;
  }
  return `unknown command '${cString(argv[0]!, 128)}', with args beginning with: ${args}`;
}
