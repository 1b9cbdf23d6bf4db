/**
 * The emulator's TCP server beside a real redis-server, both driven by the
 * real redis-benchmark with the same flags, alternately, best of two runs.
 */
import { spawnSync } from 'node:child_process';
import { startRealRedis } from '../tests/support/real-redis.js';
import type { Row } from './measure.js';
import { spawnEmulatorServer } from './start.js';

/** Runs redis-benchmark --csv and returns requests per second by test name. */
export function redisBenchmark(port: number, args: string[]): Map<string, number> {
  const r = spawnSync('redis-benchmark', ['-p', String(port), '--csv', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('redis-benchmark failed: ' + r.stderr);
  const out = new Map<string, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^"([^"]+)","([\d.]+)"/.exec(line);
    if (m && m[1] !== 'test') out.set(m[1]!, Number(m[2]));
  }
  return out;
}

/** Each run with the ratio against redis-server it must reach (issue 16's table). */
export const RUNS: Array<{ label: string; args: string[]; goal: number }> = [
  { label: '-c 50 -P 16', args: ['-c', '50', '-P', '16', '-t', 'set,get', '-n', '1000000'], goal: 0.8 },
  { label: '-c 1', args: ['-c', '1', '-t', 'set,get', '-n', '50000'], goal: 0.95 },
];

export async function benchTcp(): Promise<Row[]> {
  const real = await startRealRedis();
  const emu = await spawnEmulatorServer();
  const rows: Row[] = [];
  try {
    for (const run of RUNS) {
      const best = { emu: new Map<string, number>(), real: new Map<string, number>() };
      for (let round = 0; round < 2; round++) {
        for (const [side, port] of [['emu', emu.port], ['real', real.port]] as const) {
          for (const [test, rps] of redisBenchmark(port, run.args)) {
            best[side].set(test, Math.max(best[side].get(test) ?? 0, rps));
          }
        }
      }
      for (const [test, rps] of best.real) {
        rows.push({ name: `${test} ${run.label}`, emulator: best.emu.get(test) ?? 0, reference: rps, unit: 'req/s', referenceName: 'redis-server', goal: run.goal });
      }
    }
  } finally {
    await emu.stop();
    await real.stop();
  }
  return rows;
}
