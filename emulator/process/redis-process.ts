import { RedisServer } from '../server/server.js';
import { ServerConnection } from '../server/connection.js';
import type { ClientAddress } from '../server/client.js';
import type { ByteDecoder } from '../resp/request-parser.js';
import type { SimEvent } from '../sim/kernel.js';
import { listenFor, SimProcess, type Host } from '../sim/host.js';
import type { Socket } from '../sim/network.js';
import { commandCost, REDIS_CPU, type ServerCpuCosts } from '../sim/cpu.js';
import { Snapshots, saveRules } from '../persistence/snapshots.js';
import { AofEngine } from '../persistence/aof-engine.js';
import type { ShutdownFlags } from '../commands/shutdown.js';
import type { Client } from '../server/client.js';
import { errorReply } from '../resp/reply.js';
import { bytesToArray } from '../resp/bytes.js';
import { serverLogLineAs } from '../server/log-line.js';
import { DaemonReplicationRuntime } from '../replication/daemon-runtime.js';

/** Redis's log levels (src/server.h LL_*). */
export type LogLevel = 'debug' | 'verbose' | 'notice' | 'warning';

/** How loglevel orders the levels: a line is written when its level is at least the configured one. */
const LOG_SEVERITY: Record<LogLevel, number> = { debug: 0, verbose: 1, notice: 2, warning: 3 };

const NO_FLAGS: ShutdownFlags = { nosave: false, save: false, now: false, force: false };

/**
 * A part of redis-server that lives beside the command engine and needs the
 * process's moments: the AOF engine is one. Every hook is optional.
 */
export interface ProcessModule {
  /**
   * At start, before the RDB file is considered: loads the dataset if this
   * module is responsible (the AOF wins over dump.rdb when appendonly is
   * on). Returns null when not responsible, else the loading time and, when
   * the data cannot be loaded, the log line the server exits with.
   * `loadedLine` names what was loaded for the line logged when loading
   * ends ("DB loaded from disk"); null when the module logged it itself.
   */
  load?(): { us: number; error?: string; loadedLine?: string | null } | null;
  /** After a pass's commands, before its replies leave (beforeSleep). May hold the thread. */
  beforeSleep?(): void;
  /** serverCron. */
  cron?(): void;
  /**
   * prepareForShutdown, after the saving child is stopped and before the
   * final snapshot. Returning false refuses the shutdown (the AOF's first
   * rewrite is not written yet and FORCE was not given); otherwise the
   * module calls `next` once its part is done, at once or when its I/O
   * completes (the AOF's final fsync, which Redis waits for).
   */
  shutdown?(force: boolean, next: () => void): boolean;
  /** The process is gone. */
  exit?(): void;
}

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
}

/** Where a client's replies go: a simulated socket, or a real one (the Node server). */
interface Transport {
  /**
   * The client has output, as of virtual time `atUs` (when the thread's
   * work ends): the transport takes it from the client's output buffer as
   * its socket has room (the rest waits there, counted in omem).
   */
  flush(atUs: number): void;
  /** Closes the socket once the output the client has is written. */
  end(): void;
  /**
   * When the socket's send buffer next has room for more (virtual us), or
   * null when that cannot be told yet (the peer is not reading).
   */
  writableAt(): number | null;
}

/**
 * About what a socket's send buffer holds: a writer that waits for room
 * (the RDB transfer to a replica) writes again once no more than this is
 * still queued on the link.
 */
const SEND_BUFFER_BYTES = 128 * 1024;
/** How often a writer waiting for a real client's socket to drain looks again. */
const WRITABLE_POLL_US = 1000;

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

export class RedisProcess extends SimProcess {
  readonly server: RedisServer;
  readonly port: number;
  readonly costs: ServerCpuCosts;
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
  readonly snapshots: Snapshots;
  /** Other parts of the server (the AOF engine), in the order they were added. */
  readonly modules: ProcessModule[] = [];
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
    const clock = { nowUs: (): number => (this.inLoop ? Math.round(this.cpuNow) : Math.max(kernel.now, Math.round(this.busyUntil))) };
    this.server = new RedisServer({
      clock,
      seed: opts.seed ?? kernel.random.nextU32(),
      host: host.name,
      port: this.port,
      config: { port: String(this.port), ...(opts.config ?? {}) },
    });
    this.server.pid = () => this.pid;
    this.server.logHook = (text, level) => this.log(text, level);
    this.server.shutdownHook = (flags, c) => this.prepareForShutdown('User requested shutdown...', flags, c);
    // Debian's packaged configuration keeps the data in /var/lib/redis.
    if (opts.config?.dir === undefined) this.server.config.set('dir', '/var/lib/redis', true);
    this.snapshots = new Snapshots({
      server: this.server,
      host,
      kernel,
      pid: () => this.pid,
      nowUs: () => clock.nowUs(),
      stall: (us) => {
        if (this.inLoop) this.cpuNow += us;
        else this.busyUntil = Math.max(this.busyUntil, kernel.now) + us;
      },
      holdThreadForIo: () => this.holdThreadForIo(),
      log: (text, level) => this.log(text, level),
      stdout: (text) => this.stdout(text),
    });
    this.server.snapshots = this.snapshots;
    this.modules.push(new AofEngine(this));
    this.server.replication.process = new DaemonReplicationRuntime(
      this.server,
      this.snapshots,
      () => host.disk,
      (text, level) => this.log(text, level),
      () => this.alive,
    );
    this.modules.push({ cron: () => this.server.replication.cron() });
  }

  /**
   * prepareForShutdown (src/server.c): let lagging replicas catch up (up
   * to shutdown-timeout, unless NOW), stop a saving child, save the final
   * snapshot when save rules are set (or SAVE is asked) unless NOSAVE, then
   * exit after the current pass. False when the save fails without FORCE:
   * the server stays up and SHUTDOWN answers an error. A SHUTDOWN while
   * replicas are awaited waits with the first.
   */
  private prepareForShutdown(reason: string, flags: ShutdownFlags = NO_FLAGS, c: Client | null = null): boolean {
    const replication = this.server.replication.primary;
    if (replication.shutdownInitiated) {
      if (c !== null) replication.awaitShutdown(c);
      return true;
    }
    this.log(reason, 'warning');
    const finish = (deferred: boolean): boolean => {
      replication.reportBeforeShutdown();
      this.snapshots.stopChild();
      return this.shutdownModules(0, flags, c, deferred);
    };
    if (replication.waitBeforeShutdown(flags.now, c, () => finish(true))) return true;
    return finish(false);
  }

  /**
   * The modules' parts of the shutdown, one after the other: a module whose
   * part waits on the disk continues the chain when it is done. False when
   * a module refuses at once. `deferred` when SHUTDOWN has already been
   * told the shutdown goes on, so a later failure must answer it itself.
   */
  private shutdownModules(from: number, flags: ShutdownFlags, c: Client | null, deferred: boolean): boolean {
    for (let i = from; i < this.modules.length; i++) {
      const m = this.modules[i]!;
      if (m.shutdown === undefined) continue;
      let waiting = true;
      let continued = false;
      const ok = m.shutdown(flags.force, () => {
        if (waiting) continued = true;
        else this.shutdownModules(i + 1, flags, c, true);
      });
      waiting = false;
      if (!ok) return false;
      if (!continued) return true;
    }
    return this.saveAndExit(flags, c, deferred);
  }

  /** The final snapshot (when save rules are set or SAVE is asked, unless NOSAVE), then the exit. */
  private saveAndExit(flags: ShutdownFlags, c: Client | null, deferred: boolean): boolean {
    const wantSave = !flags.nosave && (flags.save || saveRules(this.server.config.get('save')).length > 0);
    if (!wantSave) {
      this.finishShutdown();
      return true;
    }
    this.log('Saving the final RDB snapshot before exiting.');
    const r = this.snapshots.save((ok) => {
      if (ok || flags.force) {
        if (!ok) this.log('Error trying to save the DB. Exit anyway.', 'warning');
        this.finishShutdown();
        return;
      }
      this.log("Error trying to save the DB, can't exit.", 'warning');
      if (c !== null) {
        c.onAsyncReply?.(errorReply('Errors trying to SHUTDOWN. Check logs.'));
        c.onResume?.();
      }
    });
    if (r === 'ok') return true;
    if (flags.force) {
      this.log('Error trying to save the DB. Exit anyway.', 'warning');
      this.finishShutdown();
      return true;
    }
    this.log("Error trying to save the DB, can't exit.", 'warning');
    if (c !== null && deferred) {
      // The refusal comes after a wait (the AOF's fsync): SHUTDOWN's reply is still owed.
      c.onAsyncReply?.(errorReply('Errors trying to SHUTDOWN. Check logs.'));
      c.onResume?.();
    }
    return false;
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
    try {
      this.host.disk.mkdir(this.server.config.get('dir'), { recursive: true });
    } catch {
      // The directory's trouble shows when saving.
    }
    this.log('Server initialized', 'warning');
    let loaded: { us: number; error?: string; exitCode?: number; loadedLine?: string | null } | null = null;
    for (const m of this.modules) {
      loaded = m.load?.() ?? null;
      if (loaded !== null) break;
    }
    loaded ??= this.snapshots.loadAtStart();
    if (loaded.error !== undefined || loaded.exitCode !== undefined) {
      if (loaded.error !== undefined) this.log(loaded.error, 'warning');
      this.exit(loaded.exitCode ?? 1);
      return true;
    }
    if (loaded.us > 0) {
      // The dataset is in; clients get -LOADING for as long as reading it
      // takes, and the server says it is ready only after that.
      const p = this.server.stats.persistence;
      p.loading = true;
      const started = this.kernel.now;
      const what = loaded.loadedLine === undefined ? 'DB loaded from disk' : loaded.loadedLine;
      this.kernel.after(loaded.us, () => {
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

  private get kernel() {
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
    const kernel = this.kernel;
    const transport: Transport = {
      // The link queues whatever it is given: a simulated socket takes it all.
      flush: (at) => {
        for (const piece of c.sc.takeOutput(Infinity)) socket.write(piece, at);
      },
      end: () => socket.end(),
      writableAt: () => {
        // A partition holds the bytes back: no room until it heals.
        if (socket.stalled.length !== 0) return null;
        const link = socket.net.link(socket.host.name, socket.remoteHost, socket.unix);
        const queuedUntil = link.direction(socket.host.name).busyUntil;
        return Math.max(kernel.now, Math.round(queuedUntil - (SEND_BUFFER_BYTES * 8e6) / link.profile.bandwidthBps));
      },
    };
    const c = this.attachConn(transport, socket, {
      address: socket.unix
        ? { addr: `${socket.localPort}:0`, laddr: `${socket.localPort}:0`, fd: 8 + this.conns.size }
        : { addr: `${socket.remoteIp}:${socket.remotePort}`, laddr: `${socket.localIp}:${socket.localPort}`, fd: 8 + this.conns.size },
    });
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
  }): ExternalConnection | string {
    const refused = this.server.refuseConnection();
    if (refused !== null) return refused;
    const kernel = this.kernel;
    let lastAt = 0;
    const transport: Transport = {
      flush: (at) => {
        // Keep the order of output that waits for the thread's time.
        const when = Math.max(at, lastAt);
        lastAt = when;
        if (when <= kernel.now) opts.outputReady();
        else kernel.at(when, () => opts.outputReady());
      },
      end: () => {
        if (lastAt <= kernel.now) opts.close();
        else kernel.at(lastAt, () => opts.close());
      },
      writableAt: () => (opts.canWrite() && c.sc.outputPending === 0 ? kernel.now : null),
    };
    const c = this.attachConn(transport, null, { address: opts.address, decode: opts.decode });
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
      const server = this.server;
      if (trace.commands) trace.add(this.host.name, 'cmd', `${sc.client.id} ${traceArgs(argv)}`, c.socket?.peer?.id);
      const speed = this.host.profile.cpuSpeed;
      let us = speed === Infinity ? 0 : commandCost(this.costs, argv, reply) / speed;
      if (server.stallUs !== 0) {
        us += server.stallUs;
        server.stallUs = 0;
      }
      this.cpuNow += us;
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
  log(text: string, level: LogLevel = 'notice'): void {
    this.kernel.trace.add(this.host.name, 'log', text);
    for (const l of this.logListeners) l(level, text);
    const logfile = this.server.config.get('logfile');
    if (logfile !== '' && LOG_SEVERITY[level] >= LOG_SEVERITY[this.server.config.get('loglevel') as LogLevel]) {
      const path = logfile.startsWith('/') ? logfile : `${this.server.config.get('dir')}/${logfile}`;
      try {
        this.host.disk.appendFile(path, bytesToArray(serverLogLineAs(this.pid, 'M', this.kernel.now / 1000, level, text)));
      } catch {
        // Redis drops a line it cannot write.
      }
    }
  }

  /** The process's standard output (the trace's 'stdout' kind, and whoever prints it). */
  stdout(text: string): void {
    if (text === '') return;
    this.kernel.trace.add(this.host.name, 'stdout', text);
    for (const l of this.stdoutListeners) l(text);
  }

  readonly stdoutListeners: Array<(text: string) => void> = [];

  /** Who else prints the log (the Node server's log file or terminal). */
  readonly logListeners: Array<(level: LogLevel, text: string) => void> = [];

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
        this.snapshots.cron();
        for (const m of this.modules) m.cron?.();
        this.cpuNow += costs.cronUs / speed;
      }
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
    if (this.ready.length !== 0 || this.writes.length !== 0) this.wake();
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
        c.transport.flush(Math.round(this.cpuNow));
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
    for (const m of this.modules) m.exit?.();
  }

  /** The thread's time as its commands see it. */
  nowUs(): number {
    return this.server.clock.nowUs();
  }

  /** Charges thread time (a fork, a blocking write). */
  stall(us: number): void {
    if (this.inLoop) this.cpuNow += us;
    else this.busyUntil = Math.max(this.busyUntil, this.kernel.now) + us;
  }

  /** Connected clients, for the panels. */
  get clientCount(): number {
    return this.conns.size;
  }
}

/** A command as the trace shows it: quoted arguments, long ones and long lists cut. */
function traceArgs(argv: readonly string[]): string {
  let out = '';
  const n = Math.min(argv.length, 8);
  for (let i = 0; i < n; i++) {
    const a = argv[i]!;
    out += (i === 0 ? '' : ' ') + JSON.stringify(a.length > 40 ? a.slice(0, 40) + '...' : a);
  }
  if (argv.length > n) out += ` ... (${argv.length} args)`;
  return out;
}
