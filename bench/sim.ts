/**
 * How fast the simulated world runs: one redis-server and redis-benchmark
 * with 50 clients, `-n 1000000`, in virtual time, measured in commands
 * simulated per second of CPU time. The reference is the goal: 500,000 plain and
 * 2,000,000 with -P 16 (what lets lesson 16's benchmarks finish in a few
 * seconds), so the ratio says how much room there is. Per-command trace lines are off, as in a benchmark lesson.
 *
 * The time is this process's CPU time (user and system), not the wall
 * clock: the simulation is one thread that never waits, so on an idle
 * machine the two agree, and on a machine shared with other work the CPU
 * time still says what the simulation costs (a wall-clock figure taken
 * under a load average of 15 was a quarter of it).
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../emulator/commands/on-demand-handlers.js';
import { World } from '../emulator/world/world.js';
import { startBenchmark } from '../emulator/programs/redis-benchmark.js';
import type { Row } from './measure.js';

export function simulate(test: string, pipeline: number, requests: number): number {
  const world = new World({ seed: 1 });
  world.trace.commands = false;
  world.addHost('redis', 'metal');
  world.addHost('client', 'metal');
  world.link('client', 'redis', 'lan');
  world.startRedis('redis', { config: { save: '' } });
  const started = process.cpuUsage();
  const proc = startBenchmark(world, 'client', ['-h', 'redis', '-c', '50', '-n', String(requests), '-P', String(pipeline), '-t', test, '-q'], () => {});
  world.runUntil(() => !proc.alive, { maxMs: 3_600_000 });
  const used = process.cpuUsage(started);
  const cpuS = (used.user + used.system) / 1e6;
  const done = proc.results.reduce((n, r) => n + r.requests, 0);
  return done / cpuS;
}

export function benchSim(requests = 1_000_000): Row[] {
  const rows: Row[] = [];
  for (const test of ['set', 'get']) {
    rows.push({ name: `${test.toUpperCase()} -c 50`, emulator: simulate(test, 1, requests), reference: 500_000, unit: 'cmd/s', referenceName: 'goal', goal: 1 });
    rows.push({ name: `${test.toUpperCase()} -c 50 -P 16`, emulator: simulate(test, 16, requests), reference: 2_000_000, unit: 'cmd/s', referenceName: 'goal', goal: 1 });
  }
  return rows;
}
