/**
 * The emulator inside the simulated world: every command travels from a
 * client socket over the simulated network to redis-server running as a
 * process on a simulated host, and back. The corpus runs through this too,
 * so the world's transport and event loop are held to the same bytes.
 */
import { World } from '../../emulator/world/world.js';
import type { Socket } from '../../emulator/sim/network.js';
import { encodeCommand } from '../../emulator/resp/encode.js';
import { ReplyParser } from '../../emulator/resp/reply-parser.js';
import { BASE_CONFIG, type Backend } from './backends.js';

interface WorldClient {
  socket: Socket;
  buffer: string;
  closed: boolean;
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return s;
}

export class WorldBackend implements Backend {
  readonly world: World;
  private clients = new Map<number, WorldClient>();

  constructor(config: Record<string, string> = {}) {
    // Start at the wall clock so absolute timestamps in scripts mean the
    // same thing on both sides.
    this.world = new World({ seed: 1, startUs: Date.now() * 1000 });
    this.world.addHost('redis', 'metal');
    this.world.startRedis('redis', { config: { ...BASE_CONFIG, ...config } });
    // The real side is probed with one PING connection first; so here.
    const probe = this.open();
    probe.socket.write(encodeCommand(['PING']));
    this.world.runUntil(() => probe.buffer.length !== 0, { maxMs: 1000 });
    probe.socket.end();
    this.world.advance(1);
  }

  private open(): WorldClient {
    const host = this.world.host('redis');
    const socket = this.world.network.connect(host, 'redis', 6379);
    const c: WorldClient = { socket, buffer: '', closed: false };
    socket.onData = (d) => {
      c.buffer += latin1(d);
    };
    socket.onClose = () => {
      c.closed = true;
    };
    this.world.runUntil(() => socket.state !== 'connecting', { maxMs: 1000 });
    return c;
  }

  private client(n: number): WorldClient {
    let c = this.clients.get(n);
    if (!c) {
      c = this.open();
      this.clients.set(n, c);
    }
    return c;
  }

  /** Runs the world until a complete reply is there; takes it. */
  private reply(c: WorldClient, maxMs: number): string {
    let raw: string | undefined;
    const ready = (): boolean => {
      const p = new ReplyParser();
      p.feed(c.buffer);
      raw = p.nextRaw();
      return raw !== undefined || c.closed;
    };
    this.world.runUntil(ready, { maxMs });
    if (raw !== undefined) {
      c.buffer = c.buffer.slice(raw.length);
      return raw;
    }
    return c.closed ? '<connection closed>' : '<no reply>';
  }

  async command(n: number, argv: string[]): Promise<string> {
    const c = this.client(n);
    // A connection refused at once (maxclients) still has the server's error to read.
    if (c.closed) return c.buffer === '' ? '<connection closed>' : this.reply(c, 0);
    c.socket.write(encodeCommand(argv));
    return this.reply(c, 10_000);
  }

  async send(n: number, argv: string[]): Promise<void> {
    this.client(n).socket.write(encodeCommand(argv));
    this.world.advance(20);
  }

  async nextReply(n: number): Promise<string> {
    return this.reply(this.client(n), 2000);
  }

  async drain(n: number): Promise<string> {
    const c = this.client(n);
    this.world.advance(100);
    const bytes = c.buffer;
    c.buffer = '';
    return bytes;
  }

  async raw(n: number, bytes: string): Promise<{ bytes: string; closed: boolean }> {
    const c = this.client(n);
    c.socket.write(bytes);
    this.world.advance(300);
    const out = c.buffer;
    c.buffer = '';
    return { bytes: out, closed: c.closed };
  }

  async sleep(ms: number): Promise<void> {
    this.world.advance(ms);
  }

  async close(): Promise<void> {
    for (const c of this.clients.values()) c.socket.destroy();
  }
}
