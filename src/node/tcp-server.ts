import { unlinkSync } from 'node:fs';
import { getSystemErrorName } from 'node:util';
import { createServer, Socket, type Server, type SocketConstructorOpts } from 'node:net';
import type { RedisServer } from '../../emulator/index.js';
import type { ExternalConnection, RedisProcess } from '../../emulator/process/index.js';
import type { NodeWorldDriver } from './world-driver.js';
import { readDecoder } from './byte-decoder.js';
import type { ServerLog } from './server-log.js';

/**
 * One read buffer shared by every client: each read is handed over (copied)
 * before the next one can land in it.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * Moves an accepted connection onto a socket that reads into READ_BUFFER
 * and calls `onBytes` directly (Node's documented `onread` option, which
 * only sockets we construct can have). That skips a 64 KB allocation and
 * the readable-stream machinery for every read, a good part of a small
 * request's cost. Returns null where the accepted socket cannot be taken
 * over, and the caller keeps reading it as a stream.
 */
function adoptWithReadBuffer(accepted: Socket, onBytes: (chunk: Uint8Array) => void): Socket | null {
  const holder = accepted as unknown as { _handle?: { readStart?: unknown } | null };
  const handle = holder._handle;
  if (!handle || typeof handle.readStart !== 'function') return null;
  holder._handle = null;
  // The accepted socket gives up its handle; destroying it settles the listener's connection count.
  accepted.destroy();
  const opts = {
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: READ_BUFFER,
      callback: (n: number, buf: Uint8Array) => {
        onBytes(new Uint8Array(buf.subarray(0, n)));
      },
    },
  };
  return new Socket(opts as unknown as SocketConstructorOpts);
}

/** "ip:port" as Redis prints it, with brackets around an IPv6 address. */
export function formatAddress(ip: string | undefined, port: number | undefined): string {
  const host = ip ?? '?';
  return host.includes(':') ? `[${host}]:${port ?? 0}` : `${host}:${port ?? 0}`;
}

/** Redis's listen addresses in Node's spelling: '*' is every IPv4 address, '::*' every IPv6 one. */
function listenHost(addr: string): string {
  if (addr === '*') return '0.0.0.0';
  if (addr === '::*') return '::';
  return addr;
}

/**
 * The most of a client's output handed to its socket at a time
 * (NET_MAX_WRITES_PER_EVENT): more goes only once the kernel has taken it,
 * so what a client does not read stays in the server's output buffer,
 * counted in omem and held to client-output-buffer-limit, as in Redis.
 */
const WRITE_CHUNK_BYTES = 64 * 1024;

/** A client socket, fed from the client's output buffer as the kernel takes the bytes. */
class ClientLink {
  /** Waiting in the flush queue. */
  queued = false;
  /** The activity window in which this client last sent something. */
  activeWindow = -1;
  /** Close once the client's output is written (QUIT, protocol error, CLIENT KILL). */
  closing = false;
  /** The socket holds bytes the kernel has not taken yet: the rest waits in the server's buffer. */
  blocked = false;
  conn: ExternalConnection | null = null;

  constructor(private readonly socket: Socket) {}

  /** Once the bytes given to a socket that could not take them all have gone, more follow. */
  private readonly written = (): void => {
    if (!this.blocked) return;
    this.blocked = false;
    this.flush();
  };

  flush(): void {
    this.queued = false;
    const socket = this.socket;
    const conn = this.conn;
    if (socket.destroyed || conn === null) return;
    while (!this.blocked) {
      const pieces = conn.takeOutput(WRITE_CHUNK_BYTES);
      if (pieces.length === 0) break;
      for (let i = 0; i < pieces.length; i++) socket.write(pieces[i]!, 'latin1', i === pieces.length - 1 ? this.written : undefined);
      if (socket.writableLength !== 0) this.blocked = true;
    }
    if (this.closing && !this.blocked) {
      // Like Redis's close() after the last reply: once it is written the
      // socket is closed outright, so a client still sending gets a reset
      // rather than a half-open connection that swallows its bytes.
      socket.pause();
      socket.end(() => socket.destroy());
    }
  }
}

/** What listenToPort logs for a bind that failed: the call and strerror's text. */
function bindFailure(err: NodeJS.ErrnoException): string {
  if (err.code === 'EADDRINUSE') return 'bind: Address already in use';
  if (err.code === 'EADDRNOTAVAIL') return 'bind: Cannot assign requested address';
  if (err.code === 'EACCES') return 'bind: Permission denied';
  return `${err.syscall ?? 'listen'}: ${err.message}`;
}

/** Node's TCP handle, which binds and listens when called (no name lookup in between). */
interface TcpHandle {
  bind(addr: string, port: number): number;
  bind6(addr: string, port: number, flags: number): number;
  listen(backlog: number): number;
  close(): void;
}
interface TcpWrap {
  TCP: new (type: number) => TcpHandle;
  constants: { SERVER: number; UV_TCP_IPV6ONLY: number };
}

/**
 * Binds and listens on addr:port before returning, as Redis's bind() and
 * listen() do: net.Server.listen with a host resolves it first and binds
 * on a later tick, too late for a command that answers now. Returns the
 * listening handle, for net.Server.listen(handle), or the error's code.
 */
function bindNow(addr: string, port: number): TcpHandle | string {
  const wrap = (process as unknown as { binding(name: string): TcpWrap }).binding('tcp_wrap');
  const handle = new wrap.TCP(wrap.constants.SERVER);
  const v6 = addr.includes(':');
  let rc = v6 ? handle.bind6(addr, port, wrap.constants.UV_TCP_IPV6ONLY) : handle.bind(addr, port);
  if (rc === 0) rc = handle.listen(511);
  if (rc === 0) return handle;
  handle.close();
  return getSystemErrorName(rc);
}

/** Listening handles bound before the server loads its files, by bind address. */
export type EarlyListeners = Map<string, TcpHandle>;

/**
 * Binds and listens on every bind address now, as Redis's initServer does
 * before the dataset loads: clients that connect while it loads wait in the
 * kernel's backlog instead of being refused. Null when an address cannot be
 * bound (start() then fails on it and logs why).
 */
export function listenEarly(bind: readonly string[], port: number): EarlyListeners | null {
  const bound: EarlyListeners = new Map();
  for (const raw of bind) {
    const optional = raw.startsWith('-');
    const addr = optional ? raw.slice(1) : raw;
    const handle = bindNow(listenHost(addr), port);
    if (typeof handle !== 'string') bound.set(addr, handle);
    else if (!(optional && handle === 'EADDRNOTAVAIL') && handle !== 'EAFNOSUPPORT') {
      closeEarly(bound);
      return null;
    }
  }
  return bound;
}

export function closeEarly(bound: EarlyListeners | null): void {
  for (const h of bound?.values() ?? []) h.close();
  bound?.clear();
}

/** How long a client counts as busy after it sent something. */
const ACTIVITY_WINDOW_MS = 100;

export interface TcpServerOptions {
  port: number;
  /** Addresses to listen on; a leading '-' makes an unavailable address a warning only. */
  bind: readonly string[];
  log?: ServerLog;
  /** Listeners already bound on the port (listenEarly), taken over by start(). */
  early?: EarlyListeners | null;
  /** The unixsocket directive: a path to accept connections on too, or '' for none. */
  unixsocket?: string;
}

/**
 * A redis-server process of a simulated world behind real TCP sockets,
 * speaking RESP like redis-server: each real client is attached to the
 * process, its bytes enter the process's event loop at the current virtual
 * time (the world runs in real time), and replies come back in its socket.
 * serverCron and timeouts run from the world's own events.
 */
export class RedisTcpServer {
  private readonly listeners: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private flushQueue: ClientLink[] = [];
  /** Clients that sent something in this activity window, and in the one before. */
  private activeClients = 0;
  private activeBefore = 0;
  private activityWindow = 0;
  private activityTimer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  constructor(
    readonly process: RedisProcess,
    private readonly driver: NodeWorldDriver,
    private readonly opts: TcpServerOptions,
  ) {}

  get redis(): RedisServer {
    return this.process.server;
  }

  /** The port actually listened on (useful when 0 asked the system for one). */
  get port(): number {
    const a = this.listeners[0]?.address();
    return typeof a === 'object' && a !== null ? a.port : this.listenPort;
  }

  /** Opens the listening sockets and starts the cron; rejects with Redis's message if a bind fails. */
  async start(): Promise<void> {
    for (const raw of this.opts.bind) {
      const optional = raw.startsWith('-');
      const addr = optional ? raw.slice(1) : raw;
      const early = this.opts.early?.get(addr);
      if (early !== undefined) {
        this.opts.early!.delete(addr);
        this.listeners.push(this.serve(early));
        continue;
      }
      try {
        this.listeners.push(await this.listen(addr));
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        this.opts.log?.warning(`Warning: Could not create server TCP listening socket ${addr}:${this.opts.port}: ${bindFailure(err)}`);
        if (optional && err.code === 'EADDRNOTAVAIL') continue;
        if (err.code === 'EAFNOSUPPORT') continue;
        await this.stop();
        throw new Error(`Failed listening on port ${this.opts.port} (TCP), aborting.`, { cause: e });
      }
    }
    const path = this.opts.unixsocket ?? '';
    if (path !== '') {
      try {
        this.unixListener = await this.listenUnix(path);
      } catch (e) {
        await this.stop();
        throw new Error(`Failed opening Unix socket: ${(e as Error).message}`, { cause: e });
      }
      this.opts.log?.notice(`The server is now ready to accept connections at ${path}`);
    }
    this.listenPort = this.opts.port;
    this.redis.config.onApply('port', (value) => this.moveTo(Number(value)));
    this.activityTimer = setInterval(() => {
      this.activeBefore = this.activeClients;
      this.activeClients = 0;
      this.activityWindow++;
    }, ACTIVITY_WINDOW_MS);
    this.activityTimer.unref();
  }

  /** The port the listeners are on (0: none, after CONFIG SET port 0). */
  private listenPort = 0;

  /**
   * CONFIG SET port (changeListenPort): the listeners move to the new
   * port, every bind address of them; port 0 closes them. When the new
   * port cannot be listened on, the old listeners stay, the failure is
   * logged as listenToPort logs it, and CONFIG SET fails, rolling back.
   * CONFIG SET answers at once, so each bind happens now (bindNow).
   */
  private moveTo(port: number): string | null {
    if (port === this.listenPort || this.stopped) return null;
    const fresh: Server[] = [];
    if (port !== 0) {
      for (const raw of this.opts.bind) {
        const optional = raw.startsWith('-');
        const addr = optional ? raw.slice(1) : raw;
        const bound = bindNow(listenHost(addr), port);
        if (typeof bound !== 'string') {
          fresh.push(this.serve(bound));
          continue;
        }
        this.opts.log?.warning(`Warning: Could not create server TCP listening socket ${addr}:${port}: ${bindFailure({ code: bound, syscall: 'bind' } as NodeJS.ErrnoException)}`);
        // An optional address that is not there is skipped, as Redis skips it.
        if (optional && bound === 'EADDRNOTAVAIL') continue;
        for (const f of fresh) f.close();
        return 'Unable to listen on this port. Check server logs.';
      }
    }
    for (const l of this.listeners) l.close();
    this.listeners.length = 0;
    this.listeners.push(...fresh);
    this.listenPort = port;
    return null;
  }

  /** A server accepting on a handle that is already listening. */
  private serve(handle: TcpHandle): Server {
    const srv = createServer({ noDelay: true, pauseOnConnect: true }, (socket) => this.accept(socket));
    srv.on('error', (e) => this.opts.log?.warning(`Listening socket error: ${e.message}`));
    srv.listen(handle);
    return srv;
  }

  private listen(host: string): Promise<Server> {
    return new Promise((resolve, reject) => {
      const srv = createServer({ noDelay: true, pauseOnConnect: true }, (socket) => this.accept(socket));
      srv.once('error', reject);
      srv.listen({ port: this.opts.port, host: listenHost(host), ipv6Only: host.includes(':'), backlog: 511 }, () => {
        srv.removeListener('error', reject);
        srv.on('error', (e) => this.opts.log?.warning(`Listening socket error: ${e.message}`));
        resolve(srv);
      });
    });
  }

  /** The unix socket listener (initServer's anetUnixServer): it stays when CONFIG SET port moves the TCP ones. */
  private unixListener: Server | null = null;

  /** Listens on a unix socket path, replacing a stale socket file as Redis does (unlink first). */
  private listenUnix(path: string): Promise<Server> {
    try {
      unlinkSync(path);
    } catch {
      // Nothing to replace.
    }
    return new Promise((resolve, reject) => {
      const srv = createServer({ noDelay: true, pauseOnConnect: true }, (socket) => this.accept(socket, path));
      srv.once('error', reject);
      srv.listen({ path, backlog: 511 }, () => {
        srv.removeListener('error', reject);
        srv.on('error', (e) => this.opts.log?.warning(`Listening socket error: ${e.message}`));
        resolve(srv);
      });
    });
  }

  /** A client accepted on a TCP port, or on the unix socket at `unixPath` (whose clients Redis names "<path>:0"). */
  private accept(accepted: Socket, unixPath?: string): void {
    if (this.stopped) {
      accepted.destroy();
      return;
    }
    let conn: ExternalConnection | null = null;
    let link: ClientLink | null = null;
    const driver = this.driver;
    const onBytes = (chunk: Uint8Array): void => {
      if (conn === null) return;
      if (link!.activeWindow !== this.activityWindow) {
        link!.activeWindow = this.activityWindow;
        this.activeClients++;
      }
      guarded(() => driver.input(() => conn!.receive(chunk)));
    };
    // A bug in the emulator costs this client its connection, never the server.
    const guarded = (run: () => void): void => {
      try {
        run();
      } catch (e) {
        this.opts.log?.warning(`Closing the connection of ${addr}: ${(e as Error).stack ?? String(e)}`);
        socket.destroy();
      }
    };
    const adopted = adoptWithReadBuffer(accepted, onBytes);
    const socket = adopted ?? accepted;
    this.sockets.add(socket);
    if (unixPath === undefined) socket.setNoDelay(true);
    const addr = unixPath !== undefined ? `${unixPath}:0` : formatAddress(socket.remoteAddress, socket.remotePort);
    this.opts.log?.verbose(`Accepted ${addr}`);
    link = new ClientLink(socket);
    const out = link;
    const attached = this.process.attachExternal({
      address: { addr, laddr: unixPath !== undefined ? addr : formatAddress(socket.localAddress, socket.localPort) },
      ...(unixPath !== undefined ? { unixSocket: unixPath } : {}),
      decode: readDecoder(),
      outputReady: () => this.queueFlush(out),
      close: () => {
        out.closing = true;
        this.queueFlush(out);
      },
      canWrite: () => !out.blocked,
    });
    if (typeof attached === 'string') {
      // maxclients: the error, then the connection closes (acceptCommonHandler).
      this.sockets.delete(socket);
      socket.end(attached, 'latin1', () => socket.destroy());
      return;
    }
    conn = attached;
    link.conn = attached;
    const c = attached;
    if (adopted === null) {
      socket.on('data', onBytes);
      socket.resume();
    }
    socket.on('error', () => {});
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (!c.connection.isClosed) this.opts.log?.verbose('Client closed connection');
      driver.input(() => c.closed());
    });
  }

  /**
   * When several clients are busy, replies leave once every client that had
   * something to read has been served, as Redis writes them in beforeSleep:
   * a burst of writes wakes a pipelining client once instead of once per
   * reply batch, which on loopback costs more than running the commands.
   * With one busy client there is nothing to gather and the detour through
   * the next loop turn would only add to each round trip.
   */
  private queueFlush(link: ClientLink): void {
    if (!link.queued && this.flushQueue.length === 0 && this.activeClients <= 1 && this.activeBefore <= 1) {
      link.flush();
      return;
    }
    if (link.queued) return;
    link.queued = true;
    this.flushQueue.push(link);
    if (this.flushQueue.length === 1) setImmediate(this.flushAll);
  }

  private readonly flushAll = (): void => {
    const queue = this.flushQueue;
    this.flushQueue = [];
    for (const link of queue) link.flush();
  };

  /** Closes the listening sockets and every client. */
  async stop(): Promise<void> {
    this.stopped = true;
    closeEarly(this.opts.early ?? null);
    if (this.activityTimer !== null) clearInterval(this.activityTimer);
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    // Closing the unix socket's listener removes its file, as Redis unlinks it on shutdown.
    const all = this.unixListener === null ? this.listeners : [...this.listeners, this.unixListener];
    await Promise.all(all.map((l) => new Promise<void>((resolve) => l.close(() => resolve()))));
    this.listeners.length = 0;
    this.unixListener = null;
  }
}
