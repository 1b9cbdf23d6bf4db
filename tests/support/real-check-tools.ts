/**
 * Runs redis-check-aof / redis-check-rdb 7.0.15 and the emulator's programs
 * on the same files, each in a directory of its own, and gives back what
 * each printed, its exit code and the files it left behind. The lines the
 * tools print through the server's log start with the process id and the
 * wall-clock time; that prefix is the only thing normalised.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Kernel } from '../../emulator/sim/kernel.js';
import { RealDisk } from '../../src/node/real-disk.js';
import { runRedisCheckAof } from '../../emulator/programs/redis-check-aof.js';
import { runRedisCheckRdb } from '../../emulator/programs/redis-check-rdb.js';

export const CHECK_AOF_BIN = process.env.REDIS_CHECK_AOF_BIN ?? 'redis-check-aof';
export const CHECK_RDB_BIN = process.env.REDIS_CHECK_RDB_BIN ?? 'redis-check-rdb';

function toolVersion(bin: string): string | null {
  const r = spawnSync(bin, ['-v'], { encoding: 'latin1' });
  if (r.error) return null;
  const m = /(\d+\.\d+\.\d+)/.exec(r.stdout);
  return m ? m[1]! : null;
}

/** Whether the real tools can be run here (redis-check-rdb -v prints the version; both are the same binary). */
export const HAVE_REAL_CHECK_TOOLS = toolVersion(CHECK_RDB_BIN) !== null && spawnSync(CHECK_AOF_BIN, []).error === undefined;

/** A file's content, or null for a directory. */
export type CaseFiles = Record<string, Uint8Array | string | null>;

export interface ToolRun {
  stdout: string;
  stderr: string;
  code: number;
  /** Every file under the directory afterwards, by relative path, as a latin1 string. */
  files: Record<string, string>;
}

/** "4242:C 21 Nov 2026 09:04:53.869 # ..." -> "PID:C DATE # ...". */
export function normaliseLog(text: string): string {
  return text.replace(/^\d+:C \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} /gm, 'PID:C DATE ');
}

function populate(dir: string, files: CaseFiles): void {
  for (const [name, content] of Object.entries(files)) {
    const p = join(dir, name);
    if (content === null) {
      mkdirSync(p, { recursive: true });
      continue;
    }
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, typeof content === 'string' ? Buffer.from(content, 'latin1') : content);
  }
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p).toString('latin1');
    }
  };
  walk(dir);
  return out;
}

export type Tool = 'aof' | 'rdb';

export interface RunOptions {
  /** What the user types at the --fix prompt; null for end of input. */
  answer?: string | null;
  /** The emulator's clock for "already expired" (the real tool reads the wall clock). */
  nowMs?: number;
}

/** Runs the real tool with `args` in a fresh directory holding `files`. */
export function runReal(tool: Tool, files: CaseFiles, args: string[], opts: RunOptions = {}): ToolRun {
  const dir = mkdtempSync(join(tmpdir(), 'rw-check-real-'));
  try {
    populate(dir, files);
    const r = spawnSync(tool === 'aof' ? CHECK_AOF_BIN : CHECK_RDB_BIN, args, {
      cwd: dir,
      input: opts.answer === undefined || opts.answer === null ? '' : opts.answer,
      encoding: 'latin1',
      timeout: 20_000,
    });
    // A process killed by a signal exits, as a shell reports it, with 128 + the signal's number.
    const code = r.status ?? (r.signal ? 128 + constants.signals[r.signal] : -1);
    return { stdout: normaliseLog(r.stdout), stderr: r.stderr, code, files: snapshot(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the emulator's program on a real directory through the Node disk, with the working directory at its root. */
export function runEmulated(tool: Tool, files: CaseFiles, args: string[], opts: RunOptions = {}): ToolRun {
  const dir = mkdtempSync(join(tmpdir(), 'rw-check-emu-'));
  try {
    populate(dir, files);
    const disk = new RealDisk(new Kernel({ seed: 1 }), 'h', dir);
    let stdout = '';
    let stderr = '';
    const out = (t: string): void => {
      stdout += t;
    };
    const common = { pid: 4242, nowMs: opts.nowMs ?? Date.now(), err: (t: string) => (stderr += t) };
    const name = tool === 'aof' ? 'redis-check-aof' : 'redis-check-rdb';
    const code =
      tool === 'aof'
        ? runRedisCheckAof(disk, '/', [name, ...args], out, { ...common, answer: opts.answer === undefined ? null : opts.answer })
        : runRedisCheckRdb(disk, '/', [name, ...args], out, common);
    return { stdout: normaliseLog(stdout), stderr, code, files: snapshot(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A deterministic generator for sampling offsets and masks (xorshift32). */
export function seeded(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}
