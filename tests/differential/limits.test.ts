/**
 * The limits a server holds and the clock it keeps, through `npm run
 * server` and redis-server 7.0.15 side by side: the same input to both,
 * the same answers, the same closed connections and the same log lines.
 * Skipped, with a notice, when no real server is installed.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! limits: ${skipNotice()}\n`);

export interface Side {
  name: 'real' | 'emulator';
  port: number;
  /** The server's log so far. */
  log(): string;
  /** The OS pid of the server process. */
  pid: number;
  stop(): Promise<void>;
}

export async function startRealSide(args: string[] = []): Promise<Side> {
  const r: RealRedis = await startRealRedis(args);
  return { name: 'real', port: r.port, pid: r.process.pid!, log: () => readFileSync(join(r.dir, 'redis.log'), 'latin1'), stop: () => r.stop() };
}

export async function startEmulatorSide(args: string[] = []): Promise<Side & { running: RunningServer }> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-limits-'));
  const port = await freePort();
  let log = '';
  const cwd = process.cwd();
  const r = await runServer(['--port', String(port), '--dir', dir, '--save', '', ...args], { stdout: (t) => (log += t) }).finally(() =>
    process.chdir(cwd),
  );
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  return {
    name: 'emulator',
    port,
    pid: process.pid,
    running: r,
    log: () => log,
    stop: async () => {
      await r.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Both servers with the same arguments. */
async function both(args: string[] = []): Promise<Side[]> {
  return Promise.all([startRealSide(args), startEmulatorSide(args)]);
}

/** INFO's fields, by name. */
async function info(c: RawConnection, section: string): Promise<Map<string, string>> {
  const text = String(await c.command(['INFO', section]));
  const out = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'limits and clock beside redis-server 7.0.15' : `limits (${skipNotice()})`, () => {
  const sides: Side[] = [];
  afterAll(async () => {
    for (const s of sides) await s.stop();
  });

  it("keeps the machine's clock: TIME, server_time_usec, PXAT deadlines, and the OS pid", async () => {
    const started = await both();
    sides.push(...started);
    for (const side of started) {
      const c = await RawConnection.open(side.port);
      try {
        let finerThanMs = 0;
        for (let i = 0; i < 20; i++) {
          const beforeUs = Date.now() * 1000;
          const [sec, usec] = (await c.command(['TIME'])) as string[];
          const afterUs = (Date.now() + 1) * 1000;
          const us = Number(sec) * 1e6 + Number(usec);
          expect([side.name, us >= beforeUs && us <= afterUs]).toEqual([side.name, true]);
          const serverUs = Number((await info(c, 'server')).get('server_time_usec'));
          if (serverUs % 1000 !== 0) finerThanMs++;
          // A deadline a client computes from its own clock is as far away for the server.
          await c.command(['SET', 'k', 'v']);
          await c.command(['GETEX', 'k', 'PXAT', String(Date.now() + 10_000)]);
          const pttl = Number(await c.command(['PTTL', 'k']));
          expect([side.name, pttl <= 10_000 && pttl >= 9_900]).toEqual([side.name, true]);
        }
        expect([side.name, finerThanMs > 0]).toEqual([side.name, true]);
        expect([side.name, (await info(c, 'server')).get('process_id')]).toEqual([side.name, String(side.pid)]);
        expect(side.log()).toContain(`pid=${side.pid}, just started`);
      } finally {
        c.close();
      }
    }
  });
});

/** A raw socket that keeps what it receives and knows when it closed. */
export class Peer {
  bytes = '';
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => (this.bytes += d.toString('latin1')));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => {});
  }

  static open(port: number): Promise<Peer> {
    return new Promise((resolve, reject) => {
      const s = new Socket();
      s.once('error', reject);
      s.connect(port, '127.0.0.1', () => resolve(new Peer(s)));
    });
  }

  send(bytes: string): void {
    this.socket.write(bytes, 'latin1');
  }

  /** Waits until `ready()` holds, the connection closes, or `ms` pass. */
  async until(ready: () => boolean, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready() && !this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  close(): void {
    this.socket.destroy();
  }
}
