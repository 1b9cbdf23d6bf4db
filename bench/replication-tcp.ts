/**
 * A primary with a real replica attached, over TCP: redis-benchmark
 * `-c 50 -P 16 -t set` against the emulator's server (`npm run server`)
 * with a real redis-server replicating from it, beside the same against a
 * real redis-server with a real replica. The replicas are in sync before
 * each run (link up, the initial sync done) and have every write after it,
 * so the figure includes feeding the stream to a replica that applies it
 * and acknowledges it. Runs alternate between the two pairs; the best of
 * each counts. Goal: at least half the real pair's requests per second.
 */
import { RawConnection, startRealRedis, type RealRedis } from '../tests/support/real-redis.js';
import type { Row } from './measure.js';
import { spawnEmulatorServer, type SpawnedServer } from './start.js';
import { redisBenchmark } from './tcp.js';

const REQUESTS = 1_000_000;
const ROUNDS = 2;

async function command(port: number, argv: string[]): Promise<string> {
  const c = await RawConnection.open(port);
  try {
    return String(await c.command(argv));
  } finally {
    c.close();
  }
}

function infoField(info: string, name: string): string | null {
  const m = new RegExp(`^${name}:(.*)\\r?$`, 'm').exec(info);
  return m === null ? null : m[1]!;
}

/** Polls until `ready` holds, a few times a second, for at most `limitS` seconds of waiting. */
async function until(what: string, ready: () => Promise<boolean>, limitS = 120): Promise<void> {
  for (let i = 0; i < limitS * 5; i++) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not happen`);
}

/**
 * Waits until the replica's link is up, no sync is under way, and it has
 * applied the primary's whole stream so far.
 */
async function inSync(primaryPort: number, replicaPort: number): Promise<void> {
  await until(`the replica on ${replicaPort} in sync with ${primaryPort}`, async () => {
    const replica = await command(replicaPort, ['INFO', 'replication']);
    if (infoField(replica, 'master_link_status') !== 'up' || infoField(replica, 'master_sync_in_progress') !== '0') return false;
    const primary = await command(primaryPort, ['INFO', 'replication']);
    return infoField(replica, 'slave_repl_offset') === infoField(primary, 'master_repl_offset');
  });
}

/** A real replica of the primary on `primaryPort`, once its initial sync is done. */
async function attachReplica(primaryPort: number): Promise<RealRedis> {
  // Both primaries start their sync at once rather than after 5 s of waiting for more replicas.
  await command(primaryPort, ['CONFIG', 'SET', 'repl-diskless-sync-delay', '0']);
  const replica = await startRealRedis(['--replicaof', '127.0.0.1', String(primaryPort)]);
  await inSync(primaryPort, replica.port);
  return replica;
}

export async function benchReplicationTcp(): Promise<Row[]> {
  const started: Array<RealRedis | SpawnedServer> = [];
  try {
    const real = await startRealRedis();
    started.push(real);
    const emu = await spawnEmulatorServer();
    started.push(emu);
    const pairs = [
      { primary: emu.port, replica: await attachReplica(emu.port), best: 0 },
      { primary: real.port, replica: await attachReplica(real.port), best: 0 },
    ];
    started.push(...pairs.map((p) => p.replica));
    for (let round = 0; round < ROUNDS; round++) {
      for (const pair of pairs) {
        const rps = redisBenchmark(pair.primary, ['-c', '50', '-P', '16', '-t', 'set', '-n', String(REQUESTS)]).get('SET') ?? 0;
        // Every write reached the replica over the same link, with no new full sync.
        await inSync(pair.primary, pair.replica.port);
        const fullSyncs = infoField(await command(pair.primary, ['INFO', 'stats']), 'sync_full');
        if (fullSyncs !== '1') throw new Error(`the primary on ${pair.primary} made ${fullSyncs} full syncs`);
        pair.best = Math.max(pair.best, rps);
      }
    }
    const [withEmulator, withReal] = pairs;
    return [
      { name: 'SET -c 50 -P 16, a real replica attached', emulator: withEmulator!.best, reference: withReal!.best, unit: 'req/s', referenceName: 'redis-server', goal: 0.5 },
    ];
  } finally {
    // Replicas first, so that none logs its primary going away.
    for (const p of started.reverse()) await p.stop();
  }
}
