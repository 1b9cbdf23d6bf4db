import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { digest, sessionHarness } from './session-harness.js';

describe('starting over', () => {
  it('resets to a fresh sandbox: one redis-cli, no checkpoints, one branch, the state providers reset', async () => {
    const h = sessionHarness();
    await h.load();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET a 1');
    await h.run(50);
    const cp = h.session.checkpoint()!;
    await h.session.fork(cp.id);
    let forgotten = false;
    h.providers.register({ key: 'lesson', save: () => 1, restore: () => undefined, reset: () => (forgotten = true) });

    h.session.reset();
    await h.run(50);
    const snap = h.session.getSnapshot();
    expect(snap.checkpoints).toEqual([]);
    expect(snap.branches.map((b) => b.name)).toEqual(['main']);
    expect(forgotten).toBe(true);
    expect(h.store.listTerminals().map((t) => [t.id, t.title])).toEqual([['t1', 'redis-cli redis:6379']]);
    expect(h.store.world.redis('redis')!.server.dbs[0]!.size).toBe(0);
    // What is saved is the new start: a reload finds the fresh sandbox.
    await h.session.save();
    const again = sessionHarness({ kv: h.kv });
    expect(await again.load()).toBe(true);
    await again.idle();
    expect(digest(again.store.world)).toBe(digest(h.store.world));
    expect(again.session.getSnapshot().checkpoints).toEqual([]);
  });

  it('starts a world of its own with named terminals (a lesson), keeping the state providers', async () => {
    const h = sessionHarness();
    await h.load();
    let forgotten = false;
    h.providers.register({ key: 'lesson', save: () => 1, restore: () => undefined, reset: () => (forgotten = true) });
    const world = new World({ seed: 7 });
    world.addHost('A', 'core2duo');
    world.startRedis('A');
    world.addHost('app');
    h.session.reset({
      world,
      terminals: [
        { choice: { kind: 'redis-cli', from: 'app', to: 'A', port: 6379 }, title: 'Frank' },
        { choice: { kind: 'redis-cli', from: 'app', to: 'A', port: 6379 }, title: 'Bill' },
      ],
      resetState: false,
    });
    expect(forgotten).toBe(false);
    expect(h.store.world).toBe(world);
    expect(h.store.listTerminals().map((t) => t.title)).toEqual(['Frank', 'Bill']);
    const frank = h.view('t1');
    await h.run(50);
    h.store.sendLine('t1', 'SET k v');
    await h.run(50);
    expect(frank.lines()).toEqual(['A:6379> SET k v', 'OK', 'A:6379>']);
  });

  it('starts a new timeline when another part of the page hosts a world of its own', async () => {
    const h = sessionHarness();
    await h.load();
    h.open();
    await h.run(50);
    h.session.checkpoint();
    const world = new World({ seed: 3 });
    world.addHost('B');
    h.store.replaceWorld(world);
    expect(h.session.getSnapshot().checkpoints).toEqual([]);
    expect(h.session.eventLog.world).toBe(world);
    // Faults in the new world are checkpointed too.
    h.store.input(() => world.powerOff('B'));
    expect(h.session.getSnapshot().checkpoints.map((c) => c.label)).toEqual(['before power loss on B']);
  });
});
