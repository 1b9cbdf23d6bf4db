/**
 * Starting a daemon is one kind of recorded action whatever the daemon
 * is: redis-server, or a program registered the same way (Sentinel next),
 * and a checkpoint replays it. Logs recorded before the action was generic
 * still replay.
 */
import { describe, expect, it } from 'vitest';
import { World, type WorldCheckpoint } from '../../../emulator/world/world.js';
import { SimProcess } from '../../../emulator/sim/host.js';

class Idle extends SimProcess {}

function withIdleDaemon(world: World): void {
  world.registerDaemon('idle', (host, opts) => host.spawn(new Idle(host, 'idle', ['idle', String((opts as { tag: string }).tag)])));
}

describe('spawning daemons', () => {
  it('records starting redis-server as a spawn of it', () => {
    const world = new World({ seed: 1 });
    world.addHost('A');
    world.startRedis('A', { port: 6380 });
    const actions = world.checkpoint().actions.map((r) => r.action);
    expect(actions.at(-1)).toEqual({ kind: 'spawn', host: 'A', program: 'redis-server', opts: { port: 6380 } });
  });

  it('starts a registered daemon the same way, and a checkpoint brings it back', () => {
    const world = new World({ seed: 1 });
    withIdleDaemon(world);
    world.addHost('A');
    const p = world.spawn('A', 'idle', { tag: 'x' });
    expect(p.argv).toEqual(['idle', 'x']);
    const restored = World.restore(world.checkpoint(), withIdleDaemon);
    expect([...restored.host('A').processes.values()].map((q) => q.argv.join(' '))).toEqual(['idle x']);
  });

  it('refuses a daemon nobody registered', () => {
    const world = new World({ seed: 1 });
    world.addHost('A');
    expect(() => world.spawn('A', 'redis-sentinel')).toThrow('no daemon named redis-sentinel');
  });

  it('replays a startRedis action of an older log as a spawn of redis-server', () => {
    const older: WorldCheckpoint = {
      version: 1,
      seed: 1,
      startUs: 0,
      nowUs: 0,
      eventsRun: 0,
      complete: true,
      actions: [
        { n: 0, t: 0, action: { kind: 'addHost', name: 'A', profile: 'metal' } },
        { n: 0, t: 0, action: { kind: 'startRedis', host: 'A', opts: { port: 7000 } } },
      ],
    };
    const world = World.restore(older);
    expect(world.redis('A', 7000)?.alive).toBe(true);
  });
});
