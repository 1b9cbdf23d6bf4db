/**
 * Throwaway real redis-server processes for differential tests and tools:
 * started on a free loopback port with no persistence, in a temporary
 * directory, and stopped by their own pid.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplyParser } from '../../emulator/resp/reply-parser.js';
import { encodeCommand } from '../../emulator/resp/encode.js';
import { ErrorReply, type Reply } from '../../emulator/resp/reply.js';

export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** Whether a redis-server 7.0.x binary can be run here. */
export function realRedisVersion(): string | null {
  const r = spawnSync(REDIS_SERVER_BIN, ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const m = /v=(\d+\.\d+\.\d+)/.exec(r.stdout);
  return m ? m[1]! : null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RealRedis {
  port: number;
  dir: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a throwaway redis-server; extra arguments are passed through. */
export async function startRealRedis(extraArgs: string[] = []): Promise<RealRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-real-redis-'));
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
      '--enable-debug-command', 'yes', '--daemonize', 'no', '--logfile', join(dir, 'redis.log'), ...extraArgs],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const c = await RawConnection.open(port);
      const pong = await c.command(['PING']);
      c.close();
      // A server still loading its files answers -LOADING: it is not ready
      // for the test's first command yet, so keep asking.
      if (pong !== null && !(pong instanceof ErrorReply && pong.code === 'LOADING')) break;
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} is still loading`);
      await new Promise((r) => setTimeout(r, 50));
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start on port ${port}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    port,
    dir,
    process: child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A minimal connection that sends commands and returns replies, parsed or as
 * the exact bytes the server sent.
 */
export class RawConnection {
  private parser = new ReplyParser();
  private waiting: Array<{ raw: boolean; resolve: (r: unknown) => void }> = [];

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d) => {
      this.parser.feed(d.toString('latin1'));
      this.drain();
    });
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = new Socket();
      s.once('error', reject);
      s.connect(port, host, () => {
        s.removeListener('error', reject);
        s.on('error', () => {});
        resolve(new RawConnection(s));
      });
    });
  }

  private drain(): void {
    while (this.waiting.length > 0) {
      const w = this.waiting[0]!;
      const r = w.raw ? this.parser.nextRaw() : this.parser.next();
      if (r === undefined) return;
      this.waiting.shift();
      w.resolve(r);
    }
  }

  /** Sends a command (byte-string arguments) and resolves its reply. */
  command(argv: readonly string[]): Promise<Reply> {
    return new Promise((resolve) => {
      this.waiting.push({ raw: false, resolve: resolve as (r: unknown) => void });
      this.socket.write(encodeCommand(argv), 'latin1');
    });
  }

  /** Sends a command and resolves the exact bytes of its reply. */
  commandRaw(argv: readonly string[]): Promise<string> {
    return new Promise((resolve) => {
      this.waiting.push({ raw: true, resolve: resolve as (r: unknown) => void });
      this.socket.write(encodeCommand(argv), 'latin1');
    });
  }

  /** Sends raw bytes and resolves the next `replies` replies as bytes. */
  sendRaw(bytes: string, replies: number): Promise<string[]> {
    const all: Array<Promise<string>> = [];
    for (let i = 0; i < replies; i++) {
      all.push(new Promise((resolve) => this.waiting.push({ raw: true, resolve: resolve as (r: unknown) => void })));
    }
    this.socket.write(bytes, 'latin1');
    return Promise.all(all);
  }

  close(): void {
    this.socket.destroy();
  }
}
