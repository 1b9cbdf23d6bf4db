/**
 * For each row that falls short of its goal, one more run of the emulator's
 * side under V8's profiler, after the measured runs, and the functions with
 * the most self time printed under the row (issue 16: where a goal is not
 * reached, the bench says where the time goes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verdict, type Row } from './measure.js';
import { describeFrames, profiled, readProfileDir, type CpuProfile } from './profile.js';

/** A way to run a row's emulator side again under the profiler, or undefined when there is none. */
export type ProfileRun = (row: Row) => Promise<CpuProfile> | undefined;

export function isShort(row: Row): boolean {
  return verdict(row).includes('SHORT');
}

/** Adds `where` to every short row that `run` knows how to profile. */
export async function explainShortRows(rows: Row[], run: ProfileRun): Promise<Row[]> {
  for (const row of rows) {
    if (!isShort(row)) continue;
    const taking = run(row);
    if (!taking) continue;
    try {
      row.where = describeFrames(await taking);
    } catch (e) {
      row.where = `no profile: ${(e as Error).message}`;
    }
  }
  return rows;
}

/** In-process rows: the case's loop for a little over half a second. */
export const inProcessProfile: ProfileRun = (row) => {
  return (async () => {
    const { CASES, emulatorCaller } = await import('./inprocess.js');
    const { timeIt } = await import('./measure.js');
    const k = CASES.find((c) => c.name === row.name);
    if (!k) throw new Error(`no in-process case named ${row.name}`);
    const emu = emulatorCaller();
    await k.setup?.(emu);
    return (await profiled(() => timeIt(600, (i) => k.run(emu, i)))).profile;
  })();
};

/** Simulated-world rows ("SET -c 50 -P 16"): the same simulation with fewer requests. */
export const simProfile: ProfileRun = (row) => {
  const m = /^(\w+) -c 50(?: -P (\d+))?$/.exec(row.name);
  if (!m) return undefined;
  return (async () => {
    const { simulate } = await import('./sim.js');
    return (await profiled(() => simulate(m[1]!.toLowerCase(), Number(m[2] ?? 1), 200_000))).profile;
  })();
};

/** The RDB load at start: an RDB of as many keys written by the emulator, then a start that loads it, profiled to its first PONG. */
export const rdbLoadProfile: ProfileRun = (row) => {
  if (!row.name.startsWith('load that RDB')) return undefined;
  return (async () => {
    const { KEYS, startEmulator, timeCommand } = await import('./persistence.js');
    const dir = mkdtempSync(join(tmpdir(), 'bench-prof-rdb-'));
    try {
      const writer = await startEmulator(dir);
      try {
        await timeCommand(writer.port, ['DEBUG', 'POPULATE', String(KEYS)]);
        await timeCommand(writer.port, ['SAVE']);
      } finally {
        await writer.stop();
      }
      const { value: loaded, profile } = await profiled(() => startEmulator(dir));
      await loaded.stop();
      return profile;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
};

/** TCP rows ("SET -c 50 -P 16"): a server started with --cpu-prof, the same redis-benchmark run once. */
export const tcpProfile: ProfileRun = (row) => {
  const m = /^(\w+) (-c .*)$/.exec(row.name);
  if (!m) return undefined;
  return (async () => {
    const { RUNS, redisBenchmark } = await import('./tcp.js');
    const { spawnEmulatorServer } = await import('./start.js');
    const run = RUNS.find((r) => r.label === m[2]);
    if (!run) throw new Error(`no TCP run labelled ${m[2]}`);
    const dir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
    try {
      const emu = await spawnEmulatorServer(['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200']);
      try {
        // The row's own test only (-t set, say), not every test of its run.
        redisBenchmark(emu.port, run.args.map((a, i) => (run.args[i - 1] === '-t' ? m[1]!.toLowerCase() : a)));
      } finally {
        await emu.stop();
      }
      return readProfileDir(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
};
