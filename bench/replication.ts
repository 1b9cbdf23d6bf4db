/**
 * What replication costs the simulated world:
 * - writes to a primary with two replicas attached against the same writes
 *   with none (redis-benchmark SET in virtual time), in SETs simulated per
 *   second of this process's CPU time; the goal is at least 1/1.5 of the
 *   speed without replicas, so a write with two replicas costs at most
 *   1.5x. The replicas of the goal's row are bare sockets that asked for
 *   the stream and read it, so the figure is the primary's cost; the row
 *   below it has two full servers applying the stream and acknowledging it.
 *   CPU time rather than the wall clock, and runs taken in turn, so that
 *   other work on the machine weighs on neither side;
 * - a full sync of 1,000,000 keys over the lan profile, from REPLICAOF to the
 *   replica's link up (goal: 5 s of wall time at most).
 * Per-command trace lines are off, as in a benchmark lesson.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../emulator/commands/on-demand-handlers.js';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

/**
 * A full collection before each timed run, so that no run pays for the
 * garbage of the worlds measured before it in this process (the first run
 * would otherwise be the only one to start from a clean heap).
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** CPU seconds this process spent since `started` (process.cpuUsage), user and system. */
function cpuSecondsSince(started: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1e6;
}

/**
 * CPU seconds for `requests` SETs (-c 50 -P 16) against A, with `n`
 * replicas attached: bare sockets reading the stream (`full` false), or
 * full servers applying it and acknowledging it (`full` true).
 */
function setCpuS(n: number, requests: number, full: boolean): number {
  // To disk, so the stream follows the file without waiting for an ACK.
  const { world, primary, replicas } = cluster(n, { 'repl-diskless-sync': 'no' });
  const names = replicas.map((_, i) => `R${i + 1}`);
  let received: () => boolean;
  if (full) {
    follow(world, replicas, names);
    received = () => replicas.every((r) => r.server.replication.masterReplOffset >= primary.server.replication.masterReplOffset);
  } else {
    const readers = names.map((h) => streamReader(world, h));
    world.runUntil(() => primary.server.replication.primary.replicas.length === n && readers.every((r) => r() > 0), { maxMs: 60_000 });
    received = () => readers.every((r) => r() >= primary.server.replication.masterReplOffset);
  }
  world.advance(10_000);
  collectGarbage();
  const started = process.cpuUsage();
  const proc = startBenchmark(world, 'client', ['-h', 'A', '-c', '50', '-n', String(requests), '-P', '16', '-t', 'set', '-r', '100000', '-q'], () => {});
  world.runUntil(() => !proc.alive, { maxMs: 3_600_000 });
  // The writes have reached every replica: the stream is as long as the primary's offset says.
  world.runUntil(received, { maxMs: 60_000 });
  const cpuS = cpuSecondsSince(started);
  const done = proc.results.reduce((k, r) => k + r.requests, 0);
  if (done !== requests) throw new Error(`redis-benchmark ran ${done} of ${requests} SETs`);
  if (!received()) throw new Error('a replica did not get the whole stream');
  return cpuS;
}

/**
 * The least CPU time of each case over `rounds` runs taken in turn (none,
 * two, none, two ...), so that a busy moment of a shared machine falls on
 * both alike and the quietest run of each is compared.
 */
function alternated(rounds: number, cases: ReadonlyArray<() => number>): number[] {
  const best = cases.map(() => Infinity);
  for (let round = 0; round < rounds; round++) cases.forEach((run, i) => (best[i] = Math.min(best[i]!, run())));
  return best;
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
  const requests = 300_000;
  const [none, two, twoFull] = alternated(5, [() => setCpuS(0, requests, false), () => setCpuS(2, requests, false), () => setCpuS(2, requests, true)]);
  // SETs per CPU second, beside the speed with none divided by 1.5: a write costing 1.5x is a speed of 1/1.5.
  const perS = (cpuS: number): number => requests / cpuS;
  const goal = perS(none!) / 1.5;
  return [
    { name: 'SET -c 50 -P 16, two replicas', emulator: perS(two!), reference: goal, unit: 'cmd/s', referenceName: 'none / 1.5', goal: 1 },
    { name: 'the same, the replicas applying it', emulator: perS(twoFull!), reference: goal, unit: 'cmd/s', referenceName: 'none / 1.5' },
    { name: 'full sync of 1,000,000 keys (lan)', emulator: fullSyncMs(1_000_000), reference: 5_000, unit: 'ms', referenceName: 'goal', lowerIsBetter: true, goalValue: 5_000 },
  ];
}
