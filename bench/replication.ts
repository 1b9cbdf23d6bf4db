/**
 * What replication costs the simulated world, in wall-clock time:
 * - writes to a primary with two replicas attached against the same writes
 *   with none (redis-benchmark SET in virtual time; the goal is at least
 *   1/1.5 of the speed without replicas, so a write with two replicas costs
 *   at most 1.5x). The replicas are bare sockets that asked for the stream
 *   and read it, so the figure is the primary's cost, not the work of two
 *   more servers applying every write;
 * - a full sync of 1,000,000 keys over the lan profile, from REPLICAOF to the
 *   replica's link up (goal: 5 s of wall time at most).
 * Per-command trace lines are off, as in a benchmark lesson.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../emulator/commands/on-demand-handlers.js';
import { performance } from 'node:perf_hooks';
import { World } from '../emulator/world/world.js';
import { startBenchmark } from '../emulator/programs/redis-benchmark.js';
import type { RedisProcess } from '../emulator/process/redis-process.js';
import type { Row } from './measure.js';

/** A primary on A with `replicas` replicas on R1, R2 ..., all linked by lan, every link up. */
function cluster(replicas: number, config: Record<string, string> = {}): { world: World; primary: RedisProcess; replicas: RedisProcess[] } {
  const world = new World({ seed: 1 });
  world.trace.commands = false;
  const names = ['A', ...Array.from({ length: replicas }, (_, i) => `R${i + 1}`)];
  world.addHost('client', 'metal');
  for (const h of names) {
    world.addHost(h, 'metal');
    world.link('client', h, 'lan');
  }
  for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) world.link(names[i]!, names[j]!, 'lan');
  const procs = names.map((h) => world.startRedis(h, { config: { save: '', 'enable-debug-command': 'yes', ...config } }));
  return { world, primary: procs[0]!, replicas: procs.slice(1) };
}

function follow(world: World, replicas: readonly RedisProcess[], names: readonly string[]): void {
  for (const h of names) void world.connect({ from: 'client', to: `${h}:6379` }).call('REPLICAOF', 'A', '6379');
  const up = world.runUntil(() => replicas.every((r) => r.server.replication.replica.state === 'connected'), { maxMs: 3_600_000 });
  if (!up) throw new Error('the replicas did not connect');
}

/** A socket from `from` that asks A for the stream (PSYNC ? -1) and reads it, as a replica's would. */
function streamReader(world: World, from: string): () => number {
  const host = world.host(from);
  const socket = host.net.connect(host, 'A', 6379);
  let bytes = 0;
  socket.onData = (d) => (bytes += d.length);
  world.runUntil(() => socket.state === 'open', { maxMs: 1000 });
  socket.write('*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n');
  return () => bytes;
}

/** SET commands simulated per wall-clock second against A, with `n` replicas reading its stream. */
function setsPerSecond(n: number, requests: number): number {
  // To disk, so the stream follows the file without waiting for an ACK.
  const { world, primary } = cluster(n, { 'repl-diskless-sync': 'no' });
  const readers = Array.from({ length: n }, (_, i) => streamReader(world, `R${i + 1}`));
  world.runUntil(() => primary.server.replication.primary.replicas.length === n && readers.every((r) => r() > 0), { maxMs: 60_000 });
  world.advance(10_000);
  const started = performance.now();
  const proc = startBenchmark(world, 'client', ['-h', 'A', '-c', '50', '-n', String(requests), '-P', '16', '-t', 'set', '-r', '100000', '-q'], () => {});
  world.runUntil(() => !proc.alive, { maxMs: 3_600_000 });
  const wallS = (performance.now() - started) / 1000;
  const done = proc.results.reduce((k, r) => k + r.requests, 0);
  world.advance(1_000);
  // Every write reached every reader: the stream is as long as the primary's offset says.
  const offset = primary.server.replication.masterReplOffset;
  for (const r of readers) if (r() < offset) throw new Error(`a replica read ${r()} bytes of a ${offset}-byte stream`);
  return done / wallS;
}

/** Wall-clock milliseconds for a full sync of `keys` keys over lan, REPLICAOF to link up. */
function fullSyncMs(keys: number): number {
  const { world, replicas } = cluster(1);
  const a = world.connect({ from: 'client', to: 'A:6379' });
  let populated = false;
  void a.call('DEBUG', 'POPULATE', String(keys), 'key', '10').then(() => (populated = true));
  world.runUntil(() => populated, { maxMs: 3_600_000 });
  const started = performance.now();
  follow(world, replicas, ['R1']);
  return performance.now() - started;
}

export function benchReplication(): Row[] {
  const requests = 500_000;
  const none = setsPerSecond(0, requests);
  const two = setsPerSecond(2, requests);
  return [
    { name: 'SET -c 50 -P 16, two replicas', emulator: two, reference: none / 1.5, unit: 'cmd/s', referenceName: 'none / 1.5' },
    { name: 'full sync of 1,000,000 keys (lan)', emulator: fullSyncMs(1_000_000), reference: 5_000, unit: 'ms', referenceName: 'goal', lowerIsBetter: true },
  ];
}
