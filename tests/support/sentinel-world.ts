import { World } from '../../emulator/world/world.js';
import { registerSentinel } from '../../emulator/sentinel/daemon.js';
import { registerSentinelClients } from '../../emulator/world/sentinel-client.js';
import { bytesFromArray, bytesToArray } from '../../emulator/resp/bytes.js';
import type { RedisProcess } from '../../emulator/process/redis-process.js';

/**
 * The world of a Sentinel failover: primary A (10.0.0.2) replicated to B
 * and C, three sentinels S1-S3 with quorum 2 and down-after 5 s, and an
 * application host `app`. Every change is a recorded action, so the
 * checkpoint replays with `setup`.
 */
export const SENTINEL_HOSTS = ['S1', 'S2', 'S3'] as const;
export const DATA_HOSTS = ['A', 'B', 'C'] as const;
export const SENTINELS = SENTINEL_HOSTS.map((host) => ({ host, port: 26379 }));

export interface SentinelWorld {
  world: World;
  /** The sentinel's log on a host. */
  log(host: string): string;
  /** The hosts whose redis-server runs as a master now. */
  masters(): string[];
}

/** What a restored world needs before its first action (World.restore's setup). */
export function sentinelSetup(world: World): void {
  registerSentinel(world);
  registerSentinelClients(world);
  world.registerProgram(WRITE_FILE, (w, args) => {
    const { host, path, text } = args as { host: string; path: string; text: string };
    w.host(host).disk.writeFile(path, bytesToArray(text));
  });
}

/** A recorded program that writes a file, so that the sentinels' configurations are part of the checkpoint. */
const WRITE_FILE = 'test-write-file';

export function sentinelWorld(seed: number, serverConfig: Record<string, string> = {}): SentinelWorld {
  const world = new World({ seed });
  sentinelSetup(world);
  // In this order, A is 10.0.0.2 as the configurations say.
  for (const h of [...DATA_HOSTS, ...SENTINEL_HOSTS, 'app']) world.addHost(h);
  world.startRedis('A', { config: { save: '', ...serverConfig } });
  world.startRedis('B', { config: { save: '', replicaof: '10.0.0.2 6379', ...serverConfig } });
  world.startRedis('C', { config: { save: '', replicaof: '10.0.0.2 6379', ...serverConfig } });
  for (const s of SENTINEL_HOSTS) {
    const text = 'logfile "/sentinel.log"\nsentinel monitor mymaster 10.0.0.2 6379 2\nsentinel down-after-milliseconds mymaster 5000\nsentinel failover-timeout mymaster 60000\n';
    world.apply({ kind: 'program', name: WRITE_FILE, args: { host: s, path: '/sentinel.conf', text } });
    world.spawn(s, 'redis-sentinel', { config: '/sentinel.conf' });
  }
  const log = (host: string): string => bytesFromArray(world.host(host).disk.readFile('/sentinel.log'));
  const masters = (): string[] =>
    DATA_HOSTS.filter((h) => {
      const p: RedisProcess | undefined = world.host(h).powered ? world.redis(h) : undefined;
      return p !== undefined && p.alive && p.server.replication.masterHost === null;
    });
  return { world, log, masters };
}

/** Runs the world a second at a time until `done` holds or `limitMs` have passed; returns whether it holds. */
export function advanceUntil(world: World, done: () => boolean, limitMs: number): boolean {
  for (let t = 0; t < limitMs && !done(); t += 1000) world.advance(1000);
  return done();
}

/** Until every sentinel knows the two replicas and the two other sentinels. */
export function waitForDiscovery(s: SentinelWorld): boolean {
  return advanceUntil(s.world, () => SENTINEL_HOSTS.every((h) => s.log(h).match(/\+sentinel sentinel/g)?.length === 2 && s.log(h).match(/\+slave slave/g)?.length === 2), 30_000);
}
