import { ShardedRedis, type ScaleReads, type ShardSpec } from '../client-library/sharded-redis.js';

export { ShardRouter, type ShardAddress, type ShardSend } from '../client-library/sharded-redis.js';
import type { ClientCpuCosts, ClientCpuName } from '../sim/cpu.js';
import type { World } from './world.js';

/**
 * A client that spreads keys over several primaries, each with its
 * replicas, and reads from the replicas; see ShardedRedis. Kept apart
 * from World so that a page that never shards does not load it.
 *
 *   const r = connectSharded(world, { from: 'app', shards: [{ primary: { host: 'A', port: 6379 }, replicas: [{ host: 'A2', port: 6379 }] }, ...] });
 */
export function connectSharded(world: World, opts: { from: string; shards: ShardSpec[]; scaleReads?: ScaleReads; client?: ClientCpuName | ClientCpuCosts }): ShardedRedis {
  return new ShardedRedis(world.dialer(opts.from, opts.client), { shards: opts.shards, scaleReads: opts.scaleReads });
}
