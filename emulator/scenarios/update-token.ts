import type { Redis } from '../client-library/redis.js';
import type { World } from '../world/world.js';

/**
 * The book's update_token() and update_token_pipeline() (Redis in Action,
 * listings 4.7 and 4.8), written against the ioredis-shaped client, and the
 * benchmark of listing 4.9 that calls one of them in a loop for a fixed
 * duration and reports calls per second. Everything runs in virtual time.
 */

/** Seconds of virtual time, as Python's time.time() would read it. */
function timestamp(world: World): string {
  return String(world.kernel.now / 1e6);
}

/** Five round trips: one per command. */
export async function updateToken(world: World, conn: Redis, token: string, user: string, item?: string): Promise<void> {
  const ts = timestamp(world);
  await conn.hset('login:', token, user);
  await conn.zadd('recent:', ts, token);
  if (item !== undefined) {
    await conn.zadd('viewed:' + token, ts, item);
    await conn.zremrangebyrank('viewed:' + token, 0, -26);
    await conn.zincrby('viewed:', -1, item);
  }
}

/** The same commands in one non-transactional pipeline: one round trip. */
export async function updateTokenPipeline(world: World, conn: Redis, token: string, user: string, item?: string): Promise<void> {
  const ts = timestamp(world);
  const pipe = conn.pipeline();
  pipe.hset('login:', token, user);
  pipe.zadd('recent:', ts, token);
  if (item !== undefined) {
    pipe.zadd('viewed:' + token, ts, item);
    pipe.zremrangebyrank('viewed:' + token, 0, -26);
    pipe.zincrby('viewed:', -1, item);
  }
  await pipe.exec();
}

export interface UpdateTokenResult {
  plainCallsPerSec: number;
  pipelinedCallsPerSec: number;
}

/**
 * Listing 4.9: for each function, call it repeatedly until `durationS`
 * seconds of virtual time have passed and count the calls.
 */
export async function benchmarkUpdateToken(world: World, conn: Redis, durationS: number): Promise<UpdateTokenResult> {
  const rates: number[] = [];
  for (const fn of [updateToken, updateTokenPipeline]) {
    let count = 0;
    const start = world.kernel.now;
    const end = start + durationS * 1e6;
    const loop = (async () => {
      while (world.kernel.now < end) {
        count++;
        await fn(world, conn, 'token', 'user', 'item');
      }
    })();
    await world.settle(loop, { maxMs: durationS * 1000 * 2 + 60_000 });
    const delta = (world.kernel.now - start) / 1e6;
    rates.push(count / delta);
  }
  return { plainCallsPerSec: rates[0]!, pipelinedCallsPerSec: rates[1]! };
}
