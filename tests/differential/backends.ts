/**
 * The two sides of a differential test: a throwaway real redis-server over
 * TCP, and the emulator driven through the same byte-level connection code
 * its TCP server uses. Both take commands and return raw reply bytes.
 */
import { Socket } from 'node:net';
import { ManualClock } from '../../emulator/sim/clock.js';
import type { RedisServer } from '../../emulator/server/server.js';
import { createServer } from '../../emulator/process/create-server.js';
import { ServerConnection } from '../../emulator/server/connection.js';
import { encodeCommand } from '../../emulator/resp/encode.js';
import { ReplyParser } from '../../emulator/resp/reply-parser.js';
import { startRealRedis, type RealRedis } from '../support/real-redis.js';

export interface Backend {
  /** Sends a command on a client (created on first use); resolves the raw reply. */
  command(client: number, argv: string[]): Promise<string>;
  /** Sends a command without waiting for its reply. */
  send(client: number, argv: string[]): Promise<void>;
  /** The next reply on a client, after send(); '<no reply>' if none comes. */
  nextReply(client: number): Promise<string>;
  /** Everything the client has received and not read, once nothing more comes. */
  drain(client: number): Promise<string>;
  /** Sends raw bytes; resolves everything answered and whether the connection closed. */
  raw(client: number, bytes: string): Promise<{ bytes: string; closed: boolean }>;
  sleep(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** The configuration both sides start with. */
export const BASE_CONFIG: Record<string, string> = {
  save: '',
  appendonly: 'no',
  'enable-debug-command': 'yes',
};

class SocketClient {
  private parser = new ReplyParser();
  private buffer = '';
  private waiters: Array<() => void> = [];
  closed = false;

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d) => {
      this.buffer += d.toString('latin1');
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private changed(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  async reply(waitMs = 10_000): Promise<string> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      this.parser = new ReplyParser();
      this.parser.feed(this.buffer);
      const r = this.parser.nextRaw();
      if (r !== undefined) {
        this.buffer = this.buffer.slice(r.length);
        return r;
      }
      if (this.closed) return '<connection closed>';
      if (Date.now() > deadline) return '<no reply>';
      await this.changed(Math.min(1000, Math.max(1, deadline - Date.now())));
    }
  }

  /** Everything until the connection closes or is quiet for quietMs. */
  async drain(quietMs: number): Promise<{ bytes: string; closed: boolean }> {
    for (;;) {
      const before = this.buffer.length;
      if (this.closed) break;
      await this.changed(quietMs);
      if (this.buffer.length === before && !this.closed) break;
    }
    const bytes = this.buffer;
    this.buffer = '';
    return { bytes, closed: this.closed };
  }
}

export class RealBackend implements Backend {
  private clients = new Map<number, SocketClient>();

  private constructor(readonly server: Pick<RealRedis, 'port' | 'stop'>) {}

  /** Clients of a server already listening on a port (any Redis: real, or the emulator's npm run server). */
  static over(server: Pick<RealRedis, 'port' | 'stop'>): RealBackend {
    return new RealBackend(server);
  }

  static async start(extra: string[] = []): Promise<RealBackend> {
    const args: string[] = [];
    for (const [k, v] of Object.entries(BASE_CONFIG)) args.push(`--${k}`, v);
    return new RealBackend(await startRealRedis([...args, ...extra]));
  }

  private async client(n: number): Promise<SocketClient> {
    let c = this.clients.get(n);
    if (!c) {
      const socket = new Socket();
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.connect(this.server.port, '127.0.0.1', () => resolve());
      });
      c = new SocketClient(socket);
      this.clients.set(n, c);
    }
    return c;
  }

  async command(n: number, argv: string[]): Promise<string> {
    const c = await this.client(n);
    if (c.closed) return '<connection closed>';
    c.socket.write(encodeCommand(argv), 'latin1');
    return c.reply();
  }

  async send(n: number, argv: string[]): Promise<void> {
    const c = await this.client(n);
    c.socket.write(encodeCommand(argv), 'latin1');
    // Give the server the time to take the command in before the next step.
    await new Promise((r) => setTimeout(r, 20));
  }

  async nextReply(n: number): Promise<string> {
    const c = await this.client(n);
    return c.reply(2000);
  }

  async drain(n: number): Promise<string> {
    const c = await this.client(n);
    return (await c.drain(100)).bytes;
  }

  async raw(n: number, bytes: string): Promise<{ bytes: string; closed: boolean }> {
    const c = await this.client(n);
    c.socket.write(bytes, 'latin1');
    return c.drain(300);
  }

  async sleep(ms: number): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
  }

  async close(): Promise<void> {
    for (const c of this.clients.values()) c.socket.destroy();
    await this.server.stop();
  }
}

export class EmulatorBackend implements Backend {
  readonly clock: ManualClock;
  readonly server: RedisServer;
  private clients = new Map<number, { conn: ServerConnection | null; out: string[]; closed: boolean }>();

  constructor(config: Record<string, string> = {}) {
    // Start at the wall clock so absolute timestamps in scripts mean the
    // same thing on both sides.
    this.clock = new ManualClock(Date.now() * 1000);
    this.server = createServer({ clock: this.clock, config: { ...BASE_CONFIG, ...config } });
    // The real side is probed with one PING connection before a script
    // starts; do the same so that client ids and counters line up.
    const probe = this.server.connect();
    this.server.execute(probe, ['PING']);
    this.server.disconnect(probe);
  }

  private client(n: number) {
    let c = this.clients.get(n);
    if (!c) {
      const out: string[] = [];
      const refused = this.server.refuseConnection();
      // maxclients: the error, and the connection is closed (acceptCommonHandler).
      if (refused !== null) c = { conn: null, out: [refused], closed: true };
      else {
        const entry = { conn: null as ServerConnection | null, out, closed: false };
        entry.conn = new ServerConnection(this.server, (b) => out.push(b), () => (entry.closed = true));
        c = entry;
      }
      this.clients.set(n, c);
    }
    return c;
  }

  async command(n: number, argv: string[]): Promise<string> {
    const c = this.client(n);
    if (c.conn === null) return this.takeReply(n);
    if (c.closed) return '<connection closed>';
    c.conn.receive(Buffer.from(encodeCommand(argv), 'latin1'));
    this.endPass();
    return this.takeReply(n);
  }

  async send(n: number, argv: string[]): Promise<void> {
    this.client(n).conn?.receive(Buffer.from(encodeCommand(argv), 'latin1'));
    this.endPass();
  }

  /**
   * The end of an event loop pass after input (beforeSleep): clients that
   * WAIT for a count already met (a negative one) are answered there.
   */
  private endPass(): void {
    this.server.replication.beforeSleep();
    if (this.server.blocking.hasResumes) this.server.blocking.resumeUnblocked();
  }

  async nextReply(n: number): Promise<string> {
    return this.takeReply(n);
  }

  async drain(n: number): Promise<string> {
    const c = this.client(n);
    const bytes = c.out.join('');
    c.out.length = 0;
    return bytes;
  }

  /** Takes one complete reply from what the client has received so far. */
  private takeReply(n: number): string {
    const c = this.client(n);
    const bytes = c.out.join('');
    c.out.length = 0;
    if (bytes === '' && c.closed) return '<connection closed>';
    const p = new ReplyParser();
    p.feed(bytes);
    const r = p.nextRaw();
    if (r === undefined) {
      if (bytes !== '') c.out.push(bytes);
      return '<no reply>';
    }
    if (r.length < bytes.length) c.out.push(bytes.slice(r.length));
    return r;
  }

  async raw(n: number, bytes: string): Promise<{ bytes: string; closed: boolean }> {
    const c = this.client(n);
    c.conn?.receive(Buffer.from(bytes, 'latin1'));
    this.endPass();
    const out = c.out.join('');
    c.out.length = 0;
    return { bytes: out, closed: c.closed };
  }

  async sleep(ms: number): Promise<void> {
    // Advance to each cron tick and each timer in turn, so the active expiry
    // cycle and blocked clients' timeouts run when they would in real time.
    const hz = this.server.config.getNumber('hz');
    const period = Math.max(1, Math.floor(1000 / hz));
    const endMs = this.clock.nowUs() / 1000 + ms;
    let nextCron = this.clock.nowUs() / 1000 + period;
    for (;;) {
      const now = this.clock.nowUs() / 1000;
      const timer = this.server.nextTimerMs() ?? Infinity;
      const next = Math.min(nextCron, timer, endMs);
      if (next > now) this.clock.advanceUs(Math.round((next - now) * 1000));
      if (next === nextCron) {
        this.server.cron();
        nextCron += period;
      } else if (next === timer) {
        this.server.runTimers();
      }
      if (next >= endMs) break;
    }
  }

  async close(): Promise<void> {
    for (const c of this.clients.values()) c.conn?.shutdown();
  }
}
