/**
 * Persistence beside redis-server 7.0.15 on the same data, both with their
 * files on this machine's disk: SAVE of 1,000,000 keys, loading that RDB at
 * start, and loading an AOF of 1,000,000 SETs at start. The emulator is
 * `npm run server` run in this process (its writer, its loader and the real
 * files), the real server a child process; each figure is the best of a few
 * alternating rounds, in wall-clock milliseconds (lower is better).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ErrorReply, type Reply } from '../emulator/resp/reply.js';
import { runServer, type RunningServer } from '../src/node/server-main.js';
import { freePort, RawConnection, REDIS_SERVER_BIN } from '../tests/support/real-redis.js';
import type { Row } from './measure.js';

export const KEYS = 1_000_000;
const ROUNDS = 2;

interface Started {
  port: number;
  /** Milliseconds from asking for the server to its first PONG. */
  readyMs: number;
  stop(): Promise<void>;
}

async function command(port: number, argv: string[]): Promise<Reply> {
  const c = await RawConnection.open(port);
  try {
    return await c.command(argv);
  } finally {
    c.close();
  }
}

/** Milliseconds a command takes over TCP, from sending it to its reply. */
export async function timeCommand(port: number, argv: string[]): Promise<number> {
  const c = await RawConnection.open(port);
  try {
    const t = performance.now();
    const r = await c.command(argv);
    const ms = performance.now() - t;
    if (r instanceof ErrorReply) throw new Error(`${argv.join(' ')}: ${r.message}`);
    return ms;
  } finally {
    c.close();
  }
}

/** Polls with PING until the answer is PONG rather than -LOADING or a refused connection. */
async function untilPong(port: number, started: number, alive: () => boolean): Promise<number> {
  for (;;) {
    try {
      const r = await command(port, ['PING']);
      if (!(r instanceof ErrorReply)) return performance.now() - started;
    } catch {
      // Not listening yet.
    }
    if (!alive()) throw new Error(`the server on port ${port} exited while starting`);
    if (performance.now() - started > 120_000) throw new Error(`the server on port ${port} did not start`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** redis-server on `dir`, timed until it answers. */
async function startReal(dir: string, extra: string[] = []): Promise<Started & { log: () => string }> {
  const port = await freePort();
  const logfile = join(dir, `redis-${port}.log`);
  const started = performance.now();
  const child: ChildProcess = spawn(
    REDIS_SERVER_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--enable-debug-command', 'yes', '--daemonize', 'no', '--logfile', logfile, ...extra],
    { stdio: 'ignore' },
  );
  const readyMs = await untilPong(port, started, () => child.exitCode === null);
  return {
    port,
    readyMs,
    log: () => readFileSync(logfile, 'latin1'),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `npm run server` in this process on `dir`, timed until it answers. */
export async function startEmulator(dir: string, extra: string[] = []): Promise<Started & { running: RunningServer }> {
  const port = await freePort();
  const cwd = process.cwd();
  const started = performance.now();
  const r = await runServer(['--port', String(port), '--save', '', '--dir', dir, '--enable-debug-command', 'yes', ...extra], { stdout: () => {} }).finally(() =>
    // The server makes --dir its working directory, as redis-server does; the benchmark keeps its own.
    process.chdir(cwd),
  );
  if (typeof r === 'number') throw new Error(`npm run server exited with status ${r}`);
  const readyMs = await untilPong(port, started, () => true);
  return { port, readyMs, running: r, stop: () => r.shutdown() };
}

async function expectKeys(port: number, keys: number, who: string): Promise<void> {
  const n = await command(port, ['DBSIZE']);
  if (n !== keys) throw new Error(`${who} holds ${String(n)} keys, expected ${keys}`);
}

/** "DB loaded from disk: 0.573 seconds" and the like, as milliseconds. */
function loggedSeconds(log: string, what: RegExp): string {
  const m = what.exec(log);
  return m ? `${(Number(m[1]) * 1000).toFixed(0)} ms` : 'not logged';
}

const best = (xs: number[]): number => Math.min(...xs);

/** The figures, and notes on what was measured (file sizes, the real server's own log). */
export async function benchPersistence(): Promise<{ rows: Row[]; notes: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'rw-bench-persistence-'));
  const dir = (name: string): string => mkdtempSync(join(root, `${name}-`));
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    // SAVE: the same 1,000,000 keys (DEBUG POPULATE's key:N / value:N) in both.
    const realSaveDir = dir('real-save');
    const emuSaveDir = dir('emu-save');
    const real = await startReal(realSaveDir);
    const emu = await startEmulator(emuSaveDir);
    const saves = { real: [] as number[], emu: [] as number[] };
    try {
      await timeCommand(real.port, ['DEBUG', 'POPULATE', String(KEYS)]);
      await timeCommand(emu.port, ['DEBUG', 'POPULATE', String(KEYS)]);
      for (let i = 0; i < ROUNDS; i++) {
        saves.emu.push(await timeCommand(emu.port, ['SAVE']));
        saves.real.push(await timeCommand(real.port, ['SAVE']));
      }
    } finally {
      await emu.stop();
      await real.stop();
    }
    const realRdb = join(realSaveDir, 'dump.rdb');
    const sizes = [statSync(join(emuSaveDir, 'dump.rdb')).size, statSync(realRdb).size];
    notes.push(`dump.rdb of ${KEYS.toLocaleString('en')} keys: emulator ${sizes[0]!.toLocaleString('en')} bytes, redis-server ${sizes[1]!.toLocaleString('en')} bytes`);
    rows.push({ name: `SAVE, ${KEYS.toLocaleString('en')} keys (over TCP, file on disk)`, emulator: best(saves.emu), reference: best(saves.real), unit: 'ms', referenceName: 'redis-server', lowerIsBetter: true, goal: 3 });

    // Loading the real server's RDB at start: both read the same file.
    const loads = { real: [] as number[], emu: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      const e = await startEmulator(realSaveDir);
      await expectKeys(e.port, KEYS, 'the emulator');
      loads.emu.push(e.readyMs);
      await e.stop();
      const r = await startReal(realSaveDir);
      await expectKeys(r.port, KEYS, 'redis-server');
      loads.real.push(r.readyMs);
      if (i === 0) notes.push(`redis-server logged "DB loaded from disk": ${loggedSeconds(r.log(), /DB loaded from disk: ([\d.]+) seconds/)}`);
      await r.stop();
    }
    rows.push({ name: 'load that RDB at start (start to first PONG)', emulator: best(loads.emu), reference: best(loads.real), unit: 'ms', referenceName: 'redis-server', lowerIsBetter: true, goal: 1.5 });

    // An AOF of 1,000,000 SETs written by the real server, loaded by both.
    const aofDir = dir('aof');
    const aofArgs = ['--appendonly', 'yes', '--auto-aof-rewrite-percentage', '0'];
    const writer = await startReal(aofDir, aofArgs);
    const bench = spawnSync('redis-benchmark', ['-p', String(writer.port), '-t', 'set', '-n', String(KEYS), '-r', String(KEYS), '-P', '16', '-q'], { encoding: 'utf8' });
    if (bench.status !== 0) throw new Error(`redis-benchmark failed: ${bench.stderr}`);
    const aofKeys = Number(await command(writer.port, ['DBSIZE']));
    await writer.stop();
    const incr = statSync(join(aofDir, 'appendonlydir', 'appendonly.aof.1.incr.aof')).size;
    notes.push(`appendonlydir: ${KEYS.toLocaleString('en')} SETs, ${incr.toLocaleString('en')} bytes of incr file, ${aofKeys.toLocaleString('en')} keys`);
    const aofLoads = { real: [] as number[], emu: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      // Each start gets a fresh copy: a server may append to or rewrite what it loaded.
      const forEmu = dir('aof-emu');
      cpSync(join(aofDir, 'appendonlydir'), join(forEmu, 'appendonlydir'), { recursive: true });
      const e = await startEmulator(forEmu, aofArgs);
      await expectKeys(e.port, aofKeys, 'the emulator');
      aofLoads.emu.push(e.readyMs);
      await e.stop();
      const forReal = dir('aof-real');
      cpSync(join(aofDir, 'appendonlydir'), join(forReal, 'appendonlydir'), { recursive: true });
      const r = await startReal(forReal, aofArgs);
      await expectKeys(r.port, aofKeys, 'redis-server');
      aofLoads.real.push(r.readyMs);
      if (i === 0) notes.push(`redis-server logged "DB loaded from append only file": ${loggedSeconds(r.log(), /DB loaded from append only file: ([\d.]+) seconds/)}`);
      await r.stop();
      rmSync(forEmu, { recursive: true, force: true });
      rmSync(forReal, { recursive: true, force: true });
    }
    rows.push({ name: `load an AOF of ${KEYS.toLocaleString('en')} SETs at start (AOF engine)`, emulator: best(aofLoads.emu), reference: best(aofLoads.real), unit: 'ms', referenceName: 'redis-server', lowerIsBetter: true, goal: 3 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { rows, notes };
}
