import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import type { Redis } from '../../../emulator/client-library/redis.js';

/**
 * A busy world of three hosts: two servers, an application host with several
 * clients doing mixed work (pipelines, transactions, blocking pops, expiry),
 * a partition that heals and a server killed mid-run. The trace, with every
 * command, must come out the same for the same seed.
 */
async function busyWorld(seed: number): Promise<{ hash: string; entries: number; world: World }> {
  const world = new World({ seed });
  world.addHost('A', 'core2duo');
  world.addHost('B', 'kvm');
  world.addHost('app', 'metal');
  world.link('app', 'A', 'lan');
  world.link('app', 'B', 'lan');
  world.startRedis('A');
  const b = world.startRedis('B');
  const clients: Redis[] = [];
  for (let i = 0; i < 6; i++) clients.push(world.connect({ from: 'app', to: i % 2 === 0 ? 'A:6379' : 'B:6379' }));
  const work = clients.map(async (r, i) => {
    for (let n = 0; n < 40; n++) {
      const key = `k${world.kernel.random.below(8)}`;
      try {
        switch ((n + i) % 5) {
          case 0:
            await r.set(key, String(n), 'PX', String(50 + world.kernel.random.below(200)));
            break;
          case 1:
            await r.pipeline().incr('counter').lpush('list', n).ltrim('list', 0, 9).exec();
            break;
          case 2:
            await r.watch(key);
            await r.multi().set(key, 'tx').incr('txs').exec();
            break;
          case 3:
            await r.blpop('jobs', '0.05');
            break;
          default:
            await r.rpush('jobs', `job${n}`);
        }
      } catch {
        // Connections to the killed server fail; the trace records it.
      }
    }
  });
  const chaos = (async () => {
    await world.advanceAsync(30);
    world.network.partition('app', 'A');
    await world.advanceAsync(20);
    world.network.heal();
    await world.advanceAsync(10);
    b.signal('KILL');
  })();
  await world.settle(Promise.all([...work, chaos]), { maxMs: 600_000 });
  world.advance(1000);
  return { hash: world.trace.hash(), entries: world.trace.count, world };
}

describe('determinism of the simulated world', () => {
  it('the same seed and inputs give the same trace', async () => {
    const a = await busyWorld(42);
    const b = await busyWorld(42);
    expect(a.entries).toBeGreaterThan(200);
    expect(b.hash).toBe(a.hash);
    expect(b.world.trace.format()).toBe(a.world.trace.format());
  });

  it('a different seed gives a different history', async () => {
    const a = await busyWorld(42);
    const c = await busyWorld(43);
    expect(c.hash).not.toBe(a.hash);
  });
});
