import { SentinelRedis, type SentinelAddress } from '../client-library/sentinel-redis.js';
import type { ClientCpuCosts, ClientCpuName } from '../sim/cpu.js';
import type { World } from './world.js';

/**
 * A client that finds its primary through Sentinel and follows it after a
 * failover, as ioredis's `new Redis({ sentinels, name })` does; see
 * SentinelRedis. The sentinels and the addresses they give may be host
 * names or addresses. Kept apart from World so that a page that never
 * uses Sentinel does not load it. Its commands are not recorded: code
 * cells use World.openSentinelClient (registerSentinelClients) instead.
 *
 *   const r = connectSentinel(world, { from: 'app', sentinels: [{ host: 'S1', port: 26379 }], name: 'mymaster' });
 */
export function connectSentinel(
  world: World,
  opts: { from: string; sentinels: SentinelAddress[]; name: string; client?: ClientCpuName | ClientCpuCosts; maxRounds?: number },
): SentinelRedis {
  return new SentinelRedis(world.kernel, world.dialer(opts.from, opts.client), {
    sentinels: opts.sentinels,
    name: opts.name,
    maxRounds: opts.maxRounds,
  });
}

/**
 * Lets the world open recorded Sentinel-following clients
 * (World.openSentinelClient, the openSentinelClient action): call it on a
 * world before a code cell opens one, and in World.restore's setup when
 * the checkpoint holds one.
 */
export function registerSentinelClients(world: World): void {
  world.registerSentinelClients((kernel, dial, opts) => new SentinelRedis(kernel, dial, opts));
}
