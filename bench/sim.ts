/**
 * How fast the simulated world runs: one redis-server and redis-benchmark
 * with 50 clients, `-n 1000000`, in virtual time, measured in commands
 * simulated per wall-clock second. The reference is the goal: 500,000 plain and
 * 2,000,000 with -P 16 (what lets lesson 16's benchmarks finish in a few
 * seconds), so the ratio says how much room there is. Per-command trace lines are off, as in a benchmark lesson.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../emulator/commands/on-demand-handlers.js';
import { performance } from 'node:perf_hooks';
import { World } from '../emulator/world/world.js';
import { startBenchmark } from '../emulator/programs/redis-benchmark.js';
import type { Row } from './measure.js';

function simulate(test: string, pipeline: number, requests: number): number {
  const world = new World({ seed: 1 });
  world.trace.commands = false;
  world.addHost('redis', 'metal');
  world.addHost('client', 'metal');
  world.link('client', 'redis', 'lan');
  world.startRedis('redis', { config: { save: '' } });
  const started = performance.now();
  const proc = startBenchmark(world, 'client', ['-h', 'redis', '-c', '50', '-n', String(requests), '-P', String(pipeline), '-t', test, '-q'], () => {});
  world.runUntil(() => !proc.alive, { maxMs: 3_600_000 });
  const wallS = (performance.now() - started) / 1000;
  const done = proc.results.reduce((n, r) => n + r.requests, 0);
  return done / wallS;
}

export function benchSim(requests = 1_000_000): Row[] {
  const rows: Row[] = [];
  for (const test of ['set', 'get']) {
    rows.push({ name: `${test.toUpperCase()} -c 50`, emulator: simulate(test, 1, requests), reference: 500_000, unit: 'cmd/s', referenceName: 'goal', goal: 1 });
    rows.push({ name: `${test.toUpperCase()} -c 50 -P 16`, emulator: simulate(test, 16, requests), reference: 2_000_000, unit: 'cmd/s', referenceName: 'goal', goal: 1 });
  }
  return rows;
}
