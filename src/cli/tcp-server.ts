import { createServer, type Server, type Socket } from 'node:net';
import { ServerConnection, type ByteDecoder, type RedisServer } from '../../emulator/index.js';
import type { ServerLog } from './server-log.js';

/** Node's native latin1 decoder: bytes to a byte string in one copy. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

/**
 * V8 copies a slice shorter than this instead of pointing into its parent,
 * so a short argument cut from a decoded read keeps nothing else alive.
 */
const COPIED_SLICE_MAX = 12;

/** How many bytes of a read one decoding of short arguments covers. */
const DECODE_WINDOW = 1024;

/**
 * The parser's byte decoder. Most arguments are short (command names,
 * counters, small keys), and one native call per argument costs more than
 * the parsing around it: short arguments are sliced from a decoded window
 * of the read that is shared by the commands that follow. Longer ones are
 * decoded on their own, so that a stored value never holds on to more than
 * itself.
 */
function readDecoder(): ByteDecoder {
  let windowBuf: Uint8Array | null = null;
  let windowStart = 0;
  let windowEnd = 0;
  let window = '';
  return (buf, start, end) => {
    if (end - start > COPIED_SLICE_MAX) return latin1Slice.call(buf, start, end);
    if (buf !== windowBuf || start < windowStart || end > windowEnd) {
      windowBuf = buf;
      windowStart = start;
      windowEnd = Math.min(buf.length, start + DECODE_WINDOW);
      window = latin1Slice.call(buf, windowStart, windowEnd);
    }
    return window.slice(start - windowStart, end - windowStart);
  };
}

/** "ip:port" as Redis prints it, with brackets around an IPv6 address. */
function formatAddress(ip: string | undefined, port: number | undefined): string {
  const host = ip ?? '?';
  return host.includes(':') ? `[${host}]:${port ?? 0}` : `${host}:${port ?? 0}`;
}

/** Redis's listen addresses in Node's spelling: '*' is every IPv4 address, '::*' every IPv6 one. */
function listenHost(addr: string): string {
  if (addr === '*') return '0.0.0.0';
  if (addr === '::*') return '::';
  return addr;
}

/** A client socket and the replies not yet handed to it. */
class ClientLink {
  pending = '';
  /** Waiting in the flush queue. */
  queued = false;
  /** Close once the pending replies are written (QUIT, protocol error, CLIENT KILL). */
  closing = false;
  private paused = false;

  constructor(private readonly socket: Socket) {}

  flush(): void {
    this.queued = false;
    const socket = this.socket;
    if (socket.destroyed) return;
    if (this.pending.length !== 0) {
      const ok = socket.write(this.pending, 'latin1');
      this.pending = '';
      // A client that does not read its replies stops being read from, so
      // what it has not taken cannot grow without bound.
      if (!ok && !this.paused && !this.closing) {
        this.paused = true;
        socket.pause();
        socket.once('drain', () => {
          this.paused = false;
          socket.resume();
        });
      }
    }
    if (this.closing) socket.end();
  }
}

export interface TcpServerOptions {
  port: number;
  /** Addresses to listen on; a leading '-' makes an unavailable address a warning only. */
  bind: readonly string[];
  log?: ServerLog;
}

/**
 * The emulator behind real TCP sockets, speaking RESP like redis-server: one
 * ServerConnection per client socket, every complete command in a read run
 * at once and answered with a single write, and serverCron at `hz`.
 */
export class RedisTcpServer {
  private readonly listeners: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private cronTimer: ReturnType<typeof setInterval> | null = null;
  private flushQueue: ClientLink[] = [];
  private cronHz = 0;
  private stopped = false;

  constructor(
    readonly redis: RedisServer,
    private readonly opts: TcpServerOptions,
  ) {}

  /** The port actually listened on (useful when 0 asked the system for one). */
  get port(): number {
    const a = this.listeners[0]?.address();
    return typeof a === 'object' && a !== null ? a.port : this.opts.port;
  }

  /** Opens the listening sockets and starts the cron; rejects with Redis's message if a bind fails. */
  async start(): Promise<void> {
    for (const raw of this.opts.bind) {
      const optional = raw.startsWith('-');
      const addr = optional ? raw.slice(1) : raw;
      try {
        this.listeners.push(await this.listen(addr));
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        const reason = err.code === 'EADDRINUSE' ? 'bind: Address already in use'
          : err.code === 'EADDRNOTAVAIL' ? 'bind: Cannot assign requested address'
          : err.code === 'EACCES' ? 'bind: Permission denied'
          : `${err.syscall ?? 'listen'}: ${err.message}`;
        this.opts.log?.warning(`Warning: Could not create server TCP listening socket ${addr}:${this.opts.port}: ${reason}`);
        if (optional && err.code === 'EADDRNOTAVAIL') continue;
        if (err.code === 'EAFNOSUPPORT') continue;
        await this.stop();
        throw new Error(`Failed listening on port ${this.opts.port} (TCP), aborting.`, { cause: e });
      }
    }
    this.scheduleCron();
  }

  private listen(host: string): Promise<Server> {
    return new Promise((resolve, reject) => {
      const srv = createServer({ noDelay: true }, (socket) => this.accept(socket));
      srv.once('error', reject);
      srv.listen({ port: this.opts.port, host: listenHost(host), ipv6Only: host.includes(':'), backlog: 511 }, () => {
        srv.removeListener('error', reject);
        srv.on('error', (e) => this.opts.log?.warning(`Listening socket error: ${e.message}`));
        resolve(srv);
      });
    });
  }

  private accept(socket: Socket): void {
    if (this.stopped) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const addr = formatAddress(socket.remoteAddress, socket.remotePort);
    this.opts.log?.verbose(`Accepted ${addr}`);
    const link = new ClientLink(socket);
    const conn = new ServerConnection(
      this.redis,
      (bytes) => {
        link.pending += bytes;
        this.queueFlush(link);
      },
      () => {
        link.closing = true;
        this.queueFlush(link);
      },
      { address: { addr, laddr: formatAddress(socket.localAddress, socket.localPort) }, decode: readDecoder() },
    );
    socket.on('data', (chunk: Buffer) => conn.receive(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (!conn.isClosed) this.opts.log?.verbose('Client closed connection');
      conn.shutdown();
    });
  }

  /**
   * Replies leave once every client that had something to read has been
   * served, as Redis writes them in beforeSleep: a burst of writes wakes a
   * pipelining client once instead of once per reply batch, which on
   * loopback costs more than running the commands.
   */
  private queueFlush(link: ClientLink): void {
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

  /** Runs serverCron at the configured hz, and follows CONFIG SET hz. */
  private scheduleCron(): void {
    const hz = Math.min(500, Math.max(1, this.redis.config.getNumber('hz')));
    if (this.cronTimer !== null && hz === this.cronHz) return;
    if (this.cronTimer !== null) clearInterval(this.cronTimer);
    this.cronHz = hz;
    this.cronTimer = setInterval(() => {
      this.redis.cron();
      this.scheduleCron();
    }, Math.round(1000 / hz));
  }

  /** Closes the listening sockets and every client. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.cronTimer !== null) clearInterval(this.cronTimer);
    this.cronTimer = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await Promise.all(this.listeners.map((l) => new Promise<void>((resolve) => l.close(() => resolve()))));
    this.listeners.length = 0;
  }
}
