import { RedisServer } from '../server/server.js';
import { ServerConnection } from '../server/connection.js';
import type { ClientAddress } from '../server/client.js';
import type { ByteDecoder } from '../resp/request-parser.js';
import type { SimEvent } from './kernel.js';
import { listenFor, SimProcess, type Host } from './host.js';
import type { Socket } from './network.js';
import { commandCost, REDIS_CPU, type ServerCpuCosts } from './cpu.js';

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
}

/** Where a client's replies go: a simulated socket, or a real one (the Node server). */
interface Transport {
  /** Sends bytes when the thread's work ends, at virtual time `atUs`. */
  write(bytes: string, atUs: number): void;
  end(): void;
  /** False while the peer is not reading: the client's next commands wait. */
  canWrite(): boolean;
}

class Conn {
  input: Uint8Array[] = [];
  out = '';
  queued = false;
  writing = false;
  peerClosed = false;
  closing = false;
  sc!: ServerConnection;
  constructor(
    readonly transport: Transport,
    readonly socket: Socket | null,
  ) {}
}

/** A connection from outside the world (a real TCP client), attached to the process. */
export interface ExternalConnection {
  readonly connection: ServerConnection;
  /** Bytes arrived from the client. */
  receive(chunk: Uint8Array): void;
  /** The client's socket has room again. */
  resume(): void;
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
  /** SHUTDOWN was accepted: the process exits once this pass of the loop ends. */
  private exiting = false;

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
    this.server.shutdownHook = () => {
      this.prepareForShutdown('User requested shutdown...');
      return true;
    };
  }

  /**
   * What Redis does before exiting (prepareForShutdown): log, and (with
   * persistence) save. The process exits after the current pass.
   */
  private prepareForShutdown(reason: string): void {
    const trace = this.kernel.trace;
    trace.add(this.host.name, 'log', reason);
    trace.add(this.host.name, 'log', 'Redis is now ready to exit, bye bye...');
    this.exiting = true;
    if (!this.inLoop) this.wake();
  }

  /** SIGTERM and SIGINT shut the server down as SHUTDOWN does. */
  protected override onTerminate(sig: 'TERM' | 'INT'): void {
    this.prepareForShutdown(sig === 'TERM' ? 'Received SIGTERM scheduling shutdown...' : 'Received SIGINT scheduling shutdown...');
  }

  /** Binds the ports and starts serverCron; false when the port is taken. */
  start(unixSocket?: string): boolean {
    if (!listenFor(this, this.port, (s) => this.accept(s))) {
      this.host.kernel.trace.add(this.host.name, 'log', `Could not create server TCP listening socket *:${this.port}: bind: Address already in use`);
      return false;
    }
    if (unixSocket !== undefined) listenFor(this, unixSocket, (s) => this.accept(s));
    this.host.kernel.trace.add(this.host.name, 'log', `Ready to accept connections on port ${this.port}`);
    this.scheduleCron();
    return true;
  }

  private get kernel() {
    return this.host.kernel;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    const transport: Transport = {
      write: (bytes, at) => socket.write(bytes, at),
      end: () => socket.end(),
      canWrite: () => true,
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
   * clients). Its bytes enter the same event loop; replies leave through
   * `write` at the virtual time the thread finishes them.
   */
  attachExternal(opts: {
    address: { addr: string; laddr: string; fd?: number };
    decode?: ByteDecoder;
    write: (bytes: string) => void;
    close: () => void;
    canWrite: () => boolean;
  }): ExternalConnection {
    const kernel = this.kernel;
    let lastAt = 0;
    const transport: Transport = {
      write: (bytes, at) => {
        // Keep the order of writes that wait for the thread's time.
        const when = Math.max(at, lastAt);
        lastAt = when;
        if (when <= kernel.now) opts.write(bytes);
        else kernel.at(when, () => opts.write(bytes));
      },
      end: () => {
        if (lastAt <= kernel.now) opts.close();
        else kernel.at(lastAt, () => opts.close());
      },
      canWrite: opts.canWrite,
    };
    const c = this.attachConn(transport, null, { address: opts.address, decode: opts.decode });
    return {
      connection: c.sc,
      receive: (chunk) => {
        c.input.push(chunk);
        this.markReady(c, true);
      },
      resume: () => c.sc.resume(),
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
      (bytes) => {
        this.queueWrite(c, bytes);
        return transport.canWrite();
      },
      () => {
        c.closing = true;
        if (!c.writing) this.queueWrite(c, '');
      },
      opts,
    );
    c.sc = sc;
    this.conns.add(c);
    const trace = this.kernel.trace;
    sc.onExecuted = (argv, reply) => {
      this.commands++;
      const server = this.server;
      if (trace.commands) trace.add(this.host.name, 'cmd', `${sc.client.id} ${traceArgs(argv)}`);
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

  private queueWrite(c: Conn, bytes: string): void {
    c.out += bytes;
    if (!c.writing) {
      c.writing = true;
      this.writes.push(c);
    }
    if (!this.inLoop) this.wake();
  }

  /** Makes sure a pass of the loop is scheduled for when the thread is free. */
  private wake(): void {
    if (this.loopEvent !== null || !this.alive) return;
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
      if (this.cronDue) {
        this.cronDue = false;
        server.cron();
        this.cpuNow += costs.cronUs / speed;
      }
      if (this.ready.length !== 0) {
        const ready = this.ready;
        this.ready = this.spareReady;
        this.spareReady = ready;
        for (let i = 0; i < ready.length; i++) {
          const c = ready[i]!;
          c.queued = false;
          if (c.input.length !== 0) {
            this.cpuNow += costs.readUs / speed;
            const chunks = c.input;
            c.input = [];
            for (const chunk of chunks) c.sc.receive(chunk);
          }
          if (c.peerClosed) this.drop(c);
        }
        ready.length = 0;
      }
      if (this.timerAt <= this.cpuNow) {
        this.timerAt = Infinity;
        server.runTimers();
      }
      if (server.stallUs !== 0) {
        this.cpuNow += server.stallUs;
        server.stallUs = 0;
      }
      if (this.writes.length !== 0) {
        const writes = this.writes;
        this.writes = this.spareWrites;
        this.spareWrites = writes;
        for (let i = 0; i < writes.length; i++) {
          const c = writes[i]!;
          c.writing = false;
          if (c.out.length !== 0) {
            this.cpuNow += costs.writeUs / speed;
            c.transport.write(c.out, Math.round(this.cpuNow));
            c.out = '';
          }
          if (c.closing) {
            c.transport.end();
            this.conns.delete(c);
            if (c.socket !== null) this.sockets.delete(c.socket);
          }
        }
        writes.length = 0;
      }
    } finally {
      this.inLoop = false;
      this.busyUntil = this.cpuNow;
    }
    if (this.exiting) {
      this.exit(0);
      return;
    }
    if (this.ready.length !== 0 || this.writes.length !== 0) this.wake();
    if (this.server.blocking.count !== 0 || this.timerAt !== Infinity) this.scheduleTimer();
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
