import type { RedisServer } from '../server/server.js';
import { createServer } from './create-server.js';
import { ServerConnection } from '../server/connection.js';
import type { ClientAddress } from '../server/client.js';
import type { ByteDecoder } from '../resp/request-parser.js';
import type { SimEvent } from '../sim/kernel.js';
import { listenFor, SimProcess, type Host } from '../sim/host.js';
import type { Socket } from '../sim/network.js';
import { commandCost, REDIS_CPU, type ServerCpuCosts } from '../sim/cpu.js';
import { jsonQuote } from '../sim/json-quote.js';
import { Snapshots } from '../persistence/snapshots.js';
import { AofEngine } from '../persistence/aof-engine.js';
import type { ShutdownFlags } from '../commands/shutdown.js';
import type { Client } from '../server/client.js';
import type { CommandFacts, Handler } from '../server/command-table.js';
import { errorReply, type Reply } from '../resp/reply.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import { serverLogLineAs, type ServerLogLevel } from '../server/log-line.js';
import { DaemonReplicationRuntime } from '../replication/daemon-runtime.js';
import { SoftwareWatchdog } from './watchdog.js';
import type { LoadOutcome, ModuleFactory, ProcessModule, ProcessServices, ShutdownRequest } from './services.js';
import type { Dialer, OutboundConnection, OutboundEvents, Transport } from './outbound.js';
import { simulatedDialer, socketTransport } from './simulated-dialer.js';
import { externalTransport } from './external-transport.js';

/** How loglevel orders the levels: a line is written when its level is at least the configured one. */
const LOG_SEVERITY: Record<ServerLogLevel, number> = { debug: 0, verbose: 1, notice: 2, warning: 3 };

const NO_FLAGS: ShutdownFlags = { nosave: false, save: false, now: false, force: false };

/**
 * redis-server as a process on a host. Its single thread runs an event loop
 * like Redis's ae loop: each pass reads every client with input, runs their
 * commands one after another (each costing CPU time, during which the
 * server's clock moves on), then writes all pending replies, as Redis does
 * in beforeSleep. Input that arrives while a pass runs waits for the next
 * one, so queueing and latency under load come out of the model.
 */

export interface RedisProcessOptions {
  port?: number;
  /** A Unix socket path to listen on as well (`unixsocket`). */
  unixSocket?: string;
  config?: Record<string, string>;
  seed?: number;
  costs?: ServerCpuCosts;
  /**
   * The command line a shell started this server with, and the directory
   * it was typed in, so that it can be started again the same way (the
   * cluster panel's start button). Absent when it was started directly.
   */
  commandLine?: { args: string[]; cwd: string };
  /** The configuration file it was started with, absolute (CONFIG REWRITE writes it back). */
  configFile?: string;
  /**
   * Values the process keeps itself instead of the server's parameters,
   * which CONFIG REWRITE writes as they are (the Node server's bind,
   * logfile, loglevel, pidfile, daemonize).
   */
  configFileValues?: Record<string, string>;
  /**
   * Runs the process as Redis runs in sentinel mode: this command table
   * instead of the data server's, no dataset (no snapshots, AOF or
   * replication modules), and 'X' as the role in its log lines.
   */
  sentinel?: { handlers: Readonly<Record<string, Handler>>; extraFacts: readonly CommandFacts[] };
}

/** How often a writer waiting for a real client's socket to drain looks again. */
const WRITABLE_POLL_US = 1000;

/** A client connection of the event loop, accepted or dialled. */
class Conn {
  input: Uint8Array[] = [];
  queued = false;
  writing = false;
  peerClosed = false;
  closing = false;
  /** Writers waiting for the socket to take more (RawOutput.whenWritable). */
  writableWaiters: Array<() => void> = [];
  sc!: ServerConnection;
  constructor(
    readonly transport: Transport,
    readonly socket: Socket | null,
  ) {}
}

/** A connection from outside the world (a real TCP client), attached to this redis-server. */
export interface ExternalConnection {
  readonly connection: ServerConnection;
  /** Bytes arrived from the client. */
  receive(chunk: Uint8Array): void;
  /** Up to `max` bytes of the client's output for its socket, as pieces; they count as written. */
  takeOutput(max: number): string[];
  /** The client went away. */
  closed(): void;
}

/**
 * redis-server as a process on a host (see above), and the services its
 * modules get (services.ts): the snapshot engine, the AOF and replication
 * are modules, added in the order serverCron runs them.
 */
export class RedisProcess extends SimProcess implements ProcessServices {
  readonly server: RedisServer;
  /** The TCP port it listens on (0: none); CONFIG SET port moves it. */
  port: number;
  readonly costs: ServerCpuCosts;
  /** Runs as redis-sentinel (see RedisProcessOptions.sentinel). */
  readonly sentinelMode: boolean;
  /** When the thread is next free (virtual us). */
  busyUntil = 0;
  /** The thread's own time while a pass runs: ahead of the kernel by the work done so far. */
  private cpuNow = 0;
  private inLoop = false;
  private ready: Conn[] = [];
  private writes: Conn[] = [];
  /** Spare arrays swapped in each pass, so a pass allocates nothing. */
  private spareReady: Conn[] = [];
  private spareWrites: Conn[] = [];
  private loopEvent: SimEvent | null = null;
  private cronEvent: SimEvent | null = null;
  private timerEvent: SimEvent | null = null;
  private timerAt = Infinity;
  private cronDue = false;
  private conns = new Set<Conn>();
  /** Commands run, for the speed figures. */
  commands = 0;
  /** The parts of the server beside its command engine, in the order they were added. */
  readonly modules: ProcessModule[] = [];
  /** Work for the next pass: time events that are due, and what outbound connections reported. */
  private tasks: Array<() => void> = [];
  /** Outbound connections still read by their module. */
  private readonly outbound = new Set<OutboundLink>();
  /**
   * How this process reaches the network: the simulated one, unless the
   * process runs where connections are real (the Node server sets a TCP
   * dialer before it starts).
   */
  dialer: Dialer = simulatedDialer(this);
  /** SHUTDOWN was accepted: the process exits once this pass of the loop ends. */
  private exiting = false;
  /** The client whose input the pass is running. */
  private currentConn: Conn | null = null;
  /** Running the modules' beforeSleep; a hold made there flushes replies first on resume. */
  private inBeforeSleep = false;
  private holdInBeforeSleep = false;
  /** The client whose command holds the thread for I/O. */
  private heldConn: Conn | null = null;
  /** Set when held I/O completes: runs at the start of the next pass. */
  private ioResume: (() => void) | null = null;

  constructor(host: Host, argv: readonly string[], opts: RedisProcessOptions = {}) {
    super(host, 'redis-server', argv);
    const kernel = host.kernel;
    this.port = opts.port ?? 6379;
    this.costs = opts.costs ?? REDIS_CPU;
    const clock = { nowUs: (): number => this.threadTimeUs() };
    this.server = createServer({
      clock,
      seed: opts.seed ?? kernel.random.nextU32(),
      host: host.name,
      port: this.port,
      config: { port: String(this.port), ...(opts.config ?? {}) },
      ...(opts.sentinel === undefined ? {} : { handlers: opts.sentinel.handlers, extraFacts: opts.sentinel.extraFacts }),
    });
    this.sentinelMode = opts.sentinel !== undefined;
    this.server.thread = { charge: (argv, reply) => this.chargeCommand(argv, reply) };
    this.server.pid = () => this.pid;
    this.server.logHook = (text, level) => this.log(text, level);
    this.server.shutdownHook = (flags, c) => this.prepareForShutdown('User requested shutdown...', flags, c);
    if (opts.configFile !== undefined) this.server.configFile = { path: opts.configFile, values: opts.configFileValues, process: this, rewrites: 0 };
    // Debian's packaged configuration keeps the data in /var/lib/redis.
    if (opts.config?.dir === undefined) this.server.config.set('dir', '/var/lib/redis', true);
    if (this.sentinelMode) return;
    this.addModule((services) => new Snapshots(services));
    this.addModule((services) => new AofEngine(services));
    this.addModule((services) => new DaemonReplicationRuntime(services));
    this.addModule((services) => new SoftwareWatchdog(services));
  }

  /** Adds a part to the server; its hooks run after those of the modules added before it. */
  addModule<M extends ProcessModule>(make: ModuleFactory<M>): M {
    const m = make(this);
    this.modules.push(m);
    return m;
  }

  module<M extends ProcessModule>(kind: abstract new (...args: never[]) => M): M | null {
    for (const m of this.modules) if (m instanceof kind) return m;
    return null;
  }

  /** The snapshot engine (rdb.c's saves and loading). */
  get snapshots(): Snapshots {
    return this.module(Snapshots)!;
  }

  hasActiveChild(): boolean {
    for (const m of this.modules) if (m.childActive === true) return true;
    return false;
  }

  /**
   * prepareForShutdown (src/server.c): let lagging replicas catch up (up
   * to shutdown-timeout, unless NOW), stop a saving child, save the final
   * snapshot when save rules are set (or SAVE is asked) unless NOSAVE, then
   * exit after the current pass; each step is a module's hook (services.ts).
   * False when a step fails without FORCE: the server stays up and
   * SHUTDOWN answers an error. A SHUTDOWN while replicas are awaited waits
   * with the first.
   */
  private prepareForShutdown(reason: string, flags: ShutdownFlags = NO_FLAGS, c: Client | null = null): boolean {
    const request: ShutdownRequest = {
      flags,
      client: c,
      fail: () => {
        if (c === null) return;
        c.onAsyncReply?.(errorReply('Errors trying to SHUTDOWN. Check logs.'));
        c.onResume?.();
      },
    };
    const stack = [...this.modules].reverse();
    for (const m of stack) if (m.joinShutdown?.(request) === true) return true;
    this.log(reason, 'warning');
    const hold = (from: number, deferred: boolean): boolean => {
      for (let i = from; i < stack.length; i++) {
        if (stack[i]!.holdShutdown?.(request, () => hold(i + 1, true)) === true) return true;
      }
      for (const m of stack) m.stop?.();
      return this.shutdownModules(stack, 0, request, deferred);
    };
    return hold(0, false);
  }

  /**
   * The modules' steps of finishShutdown that can fail or wait, one after
   * the other: a module whose part waits on the disk continues the chain
   * when it is done. False when a module refuses at once. `deferred` when
   * SHUTDOWN has already been told the shutdown goes on, so a later
   * failure must answer it itself.
   */
  private shutdownModules(stack: readonly ProcessModule[], from: number, request: ShutdownRequest, deferred: boolean): boolean {
    for (let i = from; i < stack.length; i++) {
      const m = stack[i]!;
      if (m.shutdown === undefined) continue;
      let waiting = true;
      let continued = false;
      const ok = m.shutdown(request, () => {
        if (waiting) continued = true;
        else this.shutdownModules(stack, i + 1, request, true);
      });
      waiting = false;
      if (!ok) {
        // finishShutdown's error label (server.c), after the module's own reason.
        this.log('Errors trying to shut down the server. Check the logs for more information.', 'warning');
        if (deferred) request.fail();
        return false;
      }
      if (!continued) return true;
    }
    this.finishShutdown();
    return true;
  }

  private finishShutdown(): void {
    this.log('Redis is now ready to exit, bye bye...', 'warning');
    this.exiting = true;
    if (!this.inLoop) this.wake();
  }

  /** SIGTERM and SIGINT shut the server down as SHUTDOWN does. */
  protected override onTerminate(sig: 'TERM' | 'INT'): void {
    this.log(`Received SIG${sig} scheduling shutdown...`, 'warning');
    const ok = this.prepareForShutdown('User requested shutdown...');
    if (!ok) this.log(`SIG${sig} received but errors trying to shut down the server, check the logs for more information`, 'warning');
  }

  /**
   * Binds the ports, loads the dataset and starts serverCron. False when
   * the port is taken; a file that cannot be loaded ends the process.
   */
  start(unixSocket?: string): boolean {
    if (!listenFor(this, this.port, (s) => this.accept(s))) {
      this.log(`Warning: Could not create server TCP listening socket *:${this.port}: bind: Address already in use`, 'warning');
      return false;
    }
    if (unixSocket !== undefined) listenFor(this, unixSocket, (s) => this.accept(s));
    this.server.config.onApply('port', (value) => this.moveListener(Number(value)));
    try {
      this.host.disk.mkdir(this.server.config.get('dir'), { recursive: true });
    } catch {
      // The directory's trouble shows when saving.
    }
    this.log('Server initialized', 'warning');
    for (const m of this.modules) {
      const error = m.prepare?.() ?? null;
      if (error !== null) {
        this.log(error, 'warning');
        this.exit(1);
        return true;
      }
    }
    let loaded: LoadOutcome = { us: 0 };
    for (const m of this.modules) {
      const outcome = m.load?.() ?? null;
      if (outcome === null) continue;
      if (outcome.error !== undefined || outcome.exitCode !== undefined) {
        if (outcome.error !== undefined) this.log(outcome.error, 'warning');
        this.exit(outcome.exitCode ?? 1);
        return true;
      }
      loaded = outcome;
    }
    if (loaded.us > 0) {
      // The dataset is in; clients get -LOADING for as long as reading it
      // takes, and the server says it is ready only after that.
      const p = this.server.stats.persistence;
      p.loading = true;
      const started = this.kernel.now;
      const what = loaded.loadedLine === undefined ? 'DB loaded from disk' : loaded.loadedLine;
      // Loading lasts its modelled time from the moment the file has been
      // read: where reading a real file took the machine's time (npm run
      // server), the window starts after it, not when virtual time last moved.
      this.kernel.after(this.kernel.lagUs() + loaded.us, () => {
        if (!this.alive) return;
        p.loading = false;
        if (what !== null) this.log(`${what}: ${((this.kernel.now - started) / 1e6).toFixed(3)} seconds`);
        this.log(`Ready to accept connections`);
      });
    } else {
      this.log(`Ready to accept connections`);
    }
    this.scheduleCron();
    return true;
  }

  /**
   * CONFIG SET port (changeListenPort): the listener moves to the new port,
   * or closes for port 0. A port another process holds fails the change,
   * which CONFIG SET then rolls back; the old listener stays meanwhile.
   */
  private moveListener(port: number): string | null {
    if (port === this.port) return null;
    if (port !== 0 && !listenFor(this, port, (s) => this.accept(s))) {
      this.log(`Warning: Could not create server TCP listening socket *:${port}: bind: Address already in use`, 'warning');
      return 'Unable to listen on this port. Check server logs.';
    }
    if (this.port !== 0 && this.host.listener(this.port) !== undefined) this.host.unlisten(this.port);
    this.port = port;
    return null;
  }

  get kernel() {
    return this.host.kernel;
  }

  private accept(socket: Socket): void {
    const refused = this.server.refuseConnection();
    if (refused !== null) {
      socket.write(refused);
      socket.end();
      return;
    }
    this.sockets.add(socket);
    const transport = socketTransport(socket, this.kernel);
    const c = this.attachConn(transport, socket, { address: { ...transport.address, fd: 8 + this.conns.size } });
    if (socket.unix) c.sc.client.unixSocket = String(socket.localPort);
    socket.onData = (data) => {
      c.input.push(data);
      this.markReady(c);
    };
    socket.onClose = () => {
      c.peerClosed = true;
      this.markReady(c);
    };
  }

  /**
   * Attaches a client from outside the world (the Node server's real TCP
   * clients). Its bytes enter the same event loop; when the thread has
   * output for it (at the virtual time its work ends), `outputReady` says
   * so and the transport takes it (takeOutput) as its socket has room.
   * Returns the bytes to send and close with instead, when maxclients
   * clients are connected.
   */
  attachExternal(opts: {
    address: { addr: string; laddr: string; fd?: number };
    decode?: ByteDecoder;
    outputReady: () => void;
    close: () => void;
    /** Whether the socket has room now (nothing of the client's waits in it). */
    canWrite: () => boolean;
    /** The unix socket path the client came through (CLIENT LIST's U flag), if not TCP. */
    unixSocket?: string;
  }): ExternalConnection | string {
    const refused = this.server.refuseConnection();
    if (refused !== null) return refused;
    const transport = externalTransport(this.kernel, opts);
    const c = this.attachConn(transport, null, { address: opts.address, decode: opts.decode });
    if (opts.unixSocket !== undefined) c.sc.client.unixSocket = opts.unixSocket;
    return {
      connection: c.sc,
      receive: (chunk) => {
        c.input.push(chunk);
        this.markReady(c, true);
      },
      takeOutput: (max) => c.sc.takeOutput(max),
      closed: () => {
        c.peerClosed = true;
        this.markReady(c);
      },
    };
  }

  private attachConn(transport: Transport, socket: Socket | null, opts: { address?: Partial<ClientAddress>; decode?: ByteDecoder }): Conn {
    const c = new Conn(transport, socket);
    const sc = new ServerConnection(
      this.server,
      () => {},
      () => {
        c.closing = true;
        this.queueWrite(c);
      },
      { ...opts, whenWritable: (ready) => this.whenWritable(c, ready), onOutput: () => this.queueWrite(c) },
    );
    c.sc = sc;
    this.conns.add(c);
    const trace = this.kernel.trace;
    sc.onExecuted = (argv, reply) => {
      this.commands++;
      if (trace.commands) trace.add(this.host.name, 'cmd', `${sc.client.id} ${traceArgs(argv)}`, c.socket?.peer?.id);
      // A command that ran was charged inside call(), where its duration is
      // measured; one refused or queued by MULTI is charged here.
      if (!this.server.takeCharged()) this.chargeCommand(argv, reply as Reply);
    };
    this.busyUntil = Math.max(this.busyUntil, this.kernel.now) + this.costs.acceptUs / this.host.profile.cpuSpeed;
    return c;
  }

  /**
   * `inline`: the input comes from outside the world, between events; when
   * the thread is free the pass runs at once instead of as an event of its
   * own (the same virtual time, one heap operation fewer per request).
   */
  private markReady(c: Conn, inline = false): void {
    if (!c.queued) {
      c.queued = true;
      this.ready.push(c);
    }
    if (inline && this.loopEvent === null && !this.inLoop && this.alive && this.busyUntil <= this.kernel.now) {
      this.runLoop();
      return;
    }
    this.wake();
  }

  /** The client has output, or is to close: it is written at the end of the pass (clients_pending_write). */
  private queueWrite(c: Conn): void {
    if (!c.writing) {
      c.writing = true;
      this.writes.push(c);
    }
    if (!this.inLoop) this.wake();
  }

  /**
   * Calls `ready` once the client's socket can take more: after the bytes
   * queued this pass have been handed to it, when the link has sent all
   * but about a send buffer's worth.
   */
  private whenWritable(c: Conn, ready: () => void): void {
    c.writableWaiters.push(ready);
    if (!c.writing) this.releaseWritable(c);
  }

  private releaseWritable(c: Conn): void {
    const waiters = c.writableWaiters;
    if (waiters.length === 0) return;
    c.writableWaiters = [];
    const fire = (): void => {
      for (const w of waiters) w();
    };
    const at = c.closing || c.peerClosed || !this.alive ? this.kernel.now : c.transport.writableAt();
    if (at !== null) {
      this.kernel.at(at, fire);
      return;
    }
    this.kernel.after(WRITABLE_POLL_US, () => {
      c.writableWaiters.push(...waiters);
      this.releaseWritable(c);
    });
  }

  /**
   * Holds the thread for blocking I/O started by the running command (SAVE
   * writing and syncing its file): nothing else runs, and no reply leaves,
   * until the returned function is called (from the I/O's completion
   * event). Then `after` runs inside a pass, the held client's remaining
   * commands run, and the loop goes on.
   */
  holdThreadForIo(): (after: () => void) => void {
    const server = this.server;
    server.threadBlocked = true;
    if (this.inBeforeSleep) this.holdInBeforeSleep = true;
    // A hold started while finishing another (SAVE's directory sync after
    // its file sync) keeps the same client waiting.
    const conn = this.currentConn ?? this.heldConn;
    this.heldConn = conn;
    return (after) => {
      this.ioResume = () => {
        server.threadBlocked = false;
        after();
        if (server.threadBlocked) return;
        server.finishHeldCommand();
        this.heldConn = null;
        if (conn !== null && !conn.closing) conn.sc.resume();
      };
      if (this.loopEvent === null && this.alive) this.loopEvent = this.kernel.at(this.kernel.now, () => this.runLoop());
    };
  }

  /**
   * A line in the server's log (the trace's 'log' kind) at Redis's level
   * for it; with a `logfile` configured, appended to that file on the
   * host's disk as well, as redis-server writes it (loglevel applies).
   */
  log(text: string, level: ServerLogLevel = 'notice', childPid?: number): void {
    this.kernel.trace.add(this.host.name, 'log', text);
    this.traceRole();
    for (const l of this.logListeners) l(level, text, childPid);
    const path = this.logfilePath();
    if (path !== null && LOG_SEVERITY[level] >= LOG_SEVERITY[this.server.config.get('loglevel') as ServerLogLevel]) {
      this.appendToLogfile(path, serverLogLineAs(childPid ?? this.pid, childPid !== undefined ? 'C' : this.sentinelMode ? 'X' : this.server.replication.masterHost !== null ? 'S' : 'M', this.kernel.now / 1000, level, text));
    }
  }

  /**
   * serverLogFromHandler: a line written from a signal handler, as it is
   * (the pid, "signal-handler", the unix time, the text), to the log file,
   * or to standard output when there is none.
   */
  logFromSignalHandler(text: string): void {
    const line = `${this.pid}:signal-handler (${Math.floor(this.kernel.now / 1e6)}) ${text}\n`;
    const path = this.logfilePath();
    if (path === null) this.stdout(line);
    else this.appendToLogfile(path, line);
  }

  /** The configured log file's path on the host, null for standard output. */
  private logfilePath(): string | null {
    const logfile = this.server.config.get('logfile');
    if (logfile === '') return null;
    return logfile.startsWith('/') ? logfile : `${this.server.config.get('dir')}/${logfile}`;
  }

  private appendToLogfile(path: string, line: string): void {
    try {
      this.host.disk.appendFile(path, bytesToArray(line));
    } catch {
      // Redis drops a line it cannot write.
    }
  }

  /**
   * Writes the server's role into the trace ('role': "6379 master",
   * "6379 replica of 10.0.0.2:6379") when it is not the one written last.
   * Every change of role is logged (the first line at start, "Connecting
   * to MASTER", "MASTER MODE enabled"), so the log is where it is seen;
   * the acknowledged-writes ledger reads its timeline from these.
   */
  private traceRole(): void {
    if (this.sentinelMode) return;
    const r = this.server.replication;
    const role = r.masterHost === null ? 'master' : `replica of ${r.masterHost}:${r.masterPort}`;
    if (role === this.roleTraced) return;
    this.roleTraced = role;
    this.kernel.trace.add(this.host.name, 'role', `${this.port} ${role}`);
  }

  private roleTraced = '';

  /** The process's standard output (the trace's 'stdout' kind, and whoever prints it). */
  stdout(text: string): void {
    if (text === '') return;
    this.kernel.trace.add(this.host.name, 'stdout', text);
    for (const l of this.stdoutListeners) l(text);
  }

  readonly stdoutListeners: Array<(text: string) => void> = [];

  /** Who else prints the log (the Node server's log file or terminal). */
  /** `childPid` is set for the lines the fork child writes. */
  readonly logListeners: Array<(level: ServerLogLevel, text: string, childPid?: number) => void> = [];

  /** Makes sure a pass of the loop is scheduled for when the thread is free. */
  private wake(): void {
    if (this.loopEvent !== null || !this.alive || this.server.threadBlocked) return;
    const at = Math.max(this.kernel.now, Math.ceil(this.busyUntil));
    this.loopEvent = this.kernel.at(at, () => this.runLoop());
  }

  private runLoop(): void {
    this.loopEvent = null;
    if (!this.alive) return;
    if (this.exiting && this.ready.length === 0 && this.writes.length === 0) {
      this.exit(0);
      return;
    }
    const speed = this.host.profile.cpuSpeed;
    const costs = this.costs;
    const server = this.server;
    this.inLoop = true;
    this.cpuNow = this.kernel.now;
    try {
      if (this.ioResume !== null) {
        const resume = this.ioResume;
        this.ioResume = null;
        const fromBeforeSleep = this.holdInBeforeSleep;
        this.holdInBeforeSleep = false;
        resume();
        // The replies that waited for the disk (appendfsync always) leave
        // now, before any new input is read.
        if (fromBeforeSleep && !server.threadBlocked) this.flushWrites();
      }
      if (server.threadBlocked) return;
      if (this.cronDue) {
        this.cronDue = false;
        server.cron();
        for (const m of this.modules) m.cron?.();
        this.cpuNow += costs.cronUs / speed;
      }
      if (this.tasks.length !== 0 && !server.threadBlocked) this.runTasks();
      if (this.ready.length !== 0) {
        const ready = this.ready;
        this.ready = this.spareReady;
        this.spareReady = ready;
        for (let i = 0; i < ready.length; i++) {
          const c = ready[i]!;
          if (server.threadBlocked) {
            // The thread is held (SAVE): the others wait for the next pass.
            this.ready.push(c);
            continue;
          }
          c.queued = false;
          this.currentConn = c;
          if (c.input.length !== 0) {
            this.cpuNow += costs.readUs / speed;
            const chunks = c.input;
            c.input = [];
            for (const chunk of chunks) c.sc.receive(chunk);
          }
          if (c.peerClosed && !server.threadBlocked) this.drop(c);
          else if (c.peerClosed) this.ready.push(c);
        }
        this.currentConn = null;
        ready.length = 0;
        if (server.threadBlocked) return;
      }
      if (this.timerAt <= this.cpuNow) {
        this.timerAt = Infinity;
        server.runTimers();
      }
      if (server.stallUs !== 0) {
        this.cpuNow += server.stallUs;
        server.stallUs = 0;
      }
      this.inBeforeSleep = true;
      for (const m of this.modules) m.beforeSleep?.();
      this.inBeforeSleep = false;
      // appendfsync always: no reply leaves before the disk has the writes.
      if (server.threadBlocked) return;
      server.freeClientsInAsyncFreeQueue();
      this.flushWrites();
    } finally {
      this.inLoop = false;
      this.busyUntil = this.cpuNow;
    }
    if (this.server.threadBlocked) return;
    if (this.exiting) {
      this.exit(0);
      return;
    }
    if (this.ready.length !== 0 || this.writes.length !== 0 || this.tasks.length !== 0) this.wake();
    if (this.server.blocking.count !== 0 || this.timerAt !== Infinity) this.scheduleTimer();
  }

  /** Sends every pending reply (the end of a pass, Redis's beforeSleep writes). */
  private flushWrites(): void {
    if (this.writes.length === 0) return;
    const writeUs = this.costs.writeUs / this.host.profile.cpuSpeed;
    const writes = this.writes;
    this.writes = this.spareWrites;
    this.spareWrites = writes;
    for (let i = 0; i < writes.length; i++) {
      const c = writes[i]!;
      c.writing = false;
      if (c.sc.outputPending !== 0) {
        this.cpuNow += writeUs;
        const at = Math.round(this.cpuNow);
        const t = c.transport;
        // A transport that takes the output as its socket has room is
        // told there is some; any other is given all of it.
        if (t.outputReady !== undefined) t.outputReady(at);
        else for (const piece of c.sc.takeOutput(Infinity)) t.write(piece, at);
      }
      if (c.writableWaiters.length !== 0) this.releaseWritable(c);
      if (c.closing) {
        c.transport.end();
        this.conns.delete(c);
        if (c.socket !== null) this.sockets.delete(c.socket);
      }
    }
    writes.length = 0;
  }

  /** The client's connection is gone: forget the client. */
  private drop(c: Conn): void {
    this.conns.delete(c);
    if (c.socket !== null) this.sockets.delete(c.socket);
    c.sc.shutdown();
    c.closing = false;
  }

  /** A wake-up for the earliest blocking-command timeout. */
  private scheduleTimer(): void {
    const ms = this.server.nextTimerMs();
    const at = ms === null ? Infinity : ms * 1000;
    if (at === this.timerAt) return;
    this.kernel.cancel(this.timerEvent);
    this.timerEvent = null;
    this.timerAt = at;
    if (at === Infinity) return;
    this.timerEvent = this.kernel.at(at, () => {
      this.timerEvent = null;
      this.wake();
    });
  }

  /** serverCron, `hz` times a second. */
  private scheduleCron(): void {
    const hz = Math.min(500, Math.max(1, this.server.config.getNumber('hz')));
    this.cronEvent = this.kernel.after(Math.round(1e6 / hz), () => {
      this.cronEvent = null;
      if (!this.alive) return;
      this.cronDue = true;
      this.wake();
      this.scheduleCron();
    });
  }

  override onExit(): void {
    this.kernel.cancel(this.loopEvent);
    this.kernel.cancel(this.cronEvent);
    this.kernel.cancel(this.timerEvent);
    this.loopEvent = this.cronEvent = this.timerEvent = null;
    for (const c of this.conns) c.sc.shutdown();
    this.conns.clear();
    this.outbound.clear();
    this.tasks = [];
    this.dialer.processGone?.();
    for (const m of this.modules) m.exit?.();
  }

  /** The thread's time as its commands see it. */
  nowUs(): number {
    return this.server.clock.nowUs();
  }

  /** Charges a command's CPU time by the cost model, and whatever it stalled (DEBUG SLEEP). */
  private chargeCommand(argv: readonly string[], reply: Reply): void {
    const server = this.server;
    const speed = this.host.profile.cpuSpeed;
    let us = speed === Infinity ? 0 : commandCost(this.costs, argv, reply) / speed;
    if (server.stallUs !== 0) {
      us += server.stallUs;
      server.stallUs = 0;
    }
    this.stall(us);
  }

  /** Charges thread time (a fork, a blocking write). */
  stall(us: number): void {
    if (this.inLoop) this.cpuNow += us;
    else this.busyUntil = Math.max(this.busyUntil, this.kernel.now) + us;
  }

  after(us: number, task: () => void): () => void {
    let cancelled = false;
    let event: SimEvent | null = this.kernel.after(us, () => {
      event = null;
      this.queueTask(() => {
        if (!cancelled) task();
      });
    });
    return () => {
      cancelled = true;
      this.kernel.cancel(event);
      event = null;
    };
  }

  connect(host: string, port: number, events: OutboundEvents): OutboundConnection | string {
    const link = new OutboundLink(this, events);
    const transport = this.dialer.dial(host, port, {
      connected: () => this.queueTask(() => link.connected()),
      data: (bytes) => {
        if (link.client !== null) this.deliver(link.client, bytes);
        else this.queueTask(() => link.data(bytes));
      },
      closed: (error) => {
        if (link.client !== null) this.peerGone(link.client);
        else this.queueTask(() => link.closed(error));
      },
    });
    if (typeof transport === 'string') return transport;
    link.transport = transport;
    this.outbound.add(link);
    return link;
  }

  /** @internal The thread's time, at which what it writes now leaves. */
  threadTimeUs(): number {
    return this.inLoop ? Math.round(this.cpuNow) : Math.max(this.kernel.now, Math.round(this.busyUntil));
  }

  /** @internal An outbound connection is over or has become a client: its module no longer reads it. */
  forgetOutbound(link: OutboundLink): void {
    this.outbound.delete(link);
  }

  /** @internal An outbound connection becomes a client of the server, `pending` its first input. */
  adoptOutbound(transport: Transport, pending: Uint8Array): Conn {
    const c = this.attachConn(transport, null, { address: { ...transport.address, fd: 8 + this.conns.size } });
    if (pending.length !== 0) this.deliver(c, pending);
    return c;
  }

  /** @internal What an outbound connection's module does when its data is read, charged as a read. */
  chargeRead(): void {
    if (this.inLoop) this.cpuNow += this.costs.readUs / this.host.profile.cpuSpeed;
  }

  /** @internal Input for a client of the loop. */
  deliver(c: Conn, bytes: Uint8Array): void {
    c.input.push(bytes);
    this.markReady(c);
  }

  private peerGone(c: Conn): void {
    c.peerClosed = true;
    this.markReady(c);
  }

  /** Runs `task` in the next pass of the loop, if the process is still alive. */
  private queueTask(task: () => void): void {
    if (!this.alive) return;
    this.tasks.push(task);
    if (!this.inLoop) this.wake();
  }

  /** The pass's tasks, in the order they came; those left when the thread is held wait for the next pass. */
  private runTasks(): void {
    const tasks = this.tasks;
    this.tasks = [];
    let i = 0;
    while (i < tasks.length && !this.server.threadBlocked && this.alive) tasks[i++]!();
    if (i < tasks.length) this.tasks = tasks.slice(i).concat(this.tasks);
  }

  /** Connected clients, for the panels. */
  get clientCount(): number {
    return this.conns.size;
  }
}

/**
 * A connection the process opened (services.connect): its module reads
 * and writes it until it closes or becomes a client of the server.
 */
class OutboundLink implements OutboundConnection {
  state: 'connecting' | 'open' | 'closed' = 'connecting';
  transport!: Transport;
  /** The server's client it became, if it did. */
  client: Conn | null = null;

  constructor(
    private readonly proc: RedisProcess,
    private readonly events: OutboundEvents,
  ) {}

  get localAddress(): string {
    return this.transport.address.laddr;
  }

  connected(): void {
    if (this.state !== 'connecting' || this.client !== null) return;
    this.state = 'open';
    this.events.connected();
  }

  data(bytes: Uint8Array): void {
    if (this.client !== null) {
      // It became a client while these bytes waited for the pass.
      this.proc.deliver(this.client, bytes);
      return;
    }
    if (this.state === 'closed') return;
    // The connect's completion and the first bytes can arrive at the same
    // instant; the connection is established before anything is read.
    if (this.state === 'connecting') this.connected();
    if (this.client !== null) {
      this.proc.deliver(this.client, bytes);
      return;
    }
    this.proc.chargeRead();
    this.events.data(bytes);
  }

  closed(error: string | null): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.proc.forgetOutbound(this);
    this.events.closed(error);
  }

  write(bytes: string | Uint8Array): boolean {
    if (this.state !== 'open' || this.client !== null) return false;
    this.transport.write(typeof bytes === 'string' ? bytes : bytesFromArray(bytes), this.proc.threadTimeUs());
    return true;
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.proc.forgetOutbound(this);
    this.transport.end();
  }

  becomeClient(pending: Uint8Array = new Uint8Array(0)): ServerConnection {
    if (this.client !== null) return this.client.sc;
    if (this.state === 'closed') throw new Error('a closed connection cannot become a client');
    this.proc.forgetOutbound(this);
    this.client = this.proc.adoptOutbound(this.transport, pending);
    return this.client.sc;
  }
}

/** A command as the trace shows it: quoted arguments, long ones and long lists cut. */
function traceArgs(argv: readonly string[]): string {
  let out = '';
  const n = Math.min(argv.length, 8);
  for (let i = 0; i < n; i++) {
    const a = argv[i]!;
    out += (i === 0 ? '' : ' ') + jsonQuote(a.length > 40 ? a.slice(0, 40) + '...' : a);
  }
  if (argv.length > n) out += ` ... (${argv.length} args)`;
  return out;
}
