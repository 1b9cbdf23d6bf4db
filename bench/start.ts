/**
 * `npm run server` start to first PONG beside redis-server's, both spawned
 * as processes on a loopback port and polled with PING. The emulator runs
 * from its bundle (scripts/node-bundle.mjs), built before timing starts as
 * it is after the first start of a checkout. Goal: at most 300 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ErrorReply } from '../emulator/resp/reply.js';
import { freePort, RawConnection, REDIS_SERVER_BIN } from '../tests/support/real-redis.js';
import type { Row } from './measure.js';

const LAUNCHER = fileURLToPath(new URL('../scripts/server.mjs', import.meta.url));
const ROUNDS = 3;

export interface SpawnedServer {
  port: number;
  /** Milliseconds from spawning the process to its first PONG. */
  readyMs: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function untilPong(port: number, child: ChildProcess, started: number): Promise<number> {
  for (;;) {
    try {
      const c = await RawConnection.open(port);
      try {
        const r = await c.command(['PING']);
        if (!(r instanceof ErrorReply)) return performance.now() - started;
      } finally {
        c.close();
      }
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null) throw new Error(`the server on port ${port} exited while starting`);
    if (performance.now() - started > 60_000) throw new Error(`the server on port ${port} did not start`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function spawnServer(command: string, args: string[]): Promise<SpawnedServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  const started = performance.now();
  const child = spawn(command, [...args, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir], { stdio: 'ignore' });
  const readyMs = await untilPong(port, child, started);
  return {
    port,
    readyMs,
    child,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The emulator's server as `npm run server` starts it (the bundle, rebuilt
 * only if stale), with `nodeArgs` for Node itself (a profiler's flags).
 */
export async function spawnEmulatorServer(nodeArgs: string[] = []): Promise<SpawnedServer> {
  const { ensureBundle } = await import('../scripts/node-bundle.mjs');
  await ensureBundle('server');
  return spawnServer(process.execPath, [...nodeArgs, LAUNCHER]);
}

export async function benchStart(): Promise<Row[]> {
  const emu: number[] = [];
  const real: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const e = await spawnEmulatorServer();
    emu.push(e.readyMs);
    await e.stop();
    const r = await spawnServer(REDIS_SERVER_BIN, []);
    real.push(r.readyMs);
    await r.stop();
  }
  return [
    { name: 'npm run server, start to first PONG (best of 3)', emulator: Math.min(...emu), reference: Math.min(...real), unit: 'ms', referenceName: 'redis-server', lowerIsBetter: true, goalValue: 300 },
  ];
}
