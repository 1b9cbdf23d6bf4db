import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/web/session/kv-store.js';
import { LOG_CHUNK } from '../../../src/web/session/session-persistence.js';
import { sessionHarness, worldState } from './session-harness.js';

describe('the session kept between visits', () => {
  it('comes back after a reload at the same world, virtual time, terminals, screens and time controls', async () => {
    const kv = new MemoryStore();
    const first = sessionHarness({ kv });
    await first.load();
    const cli = first.open();
    await first.run(50);
    first.store.sendLine(cli.id, 'SET a 1');
    first.store.sendLine(cli.id, 'SELECT 3');
    first.store.sendLine(cli.id, 'MULTI');
    first.store.sendLine(cli.id, 'INCR n');
    await first.run(100);
    const shell = first.open({ kind: 'shell', host: 'app' }, 'Bill');
    await first.run(50);
    first.store.sendLine(shell.id, 'echo hello');
    await first.run(50);
    first.store.setSpeed(5);
    first.store.pause();
    first.store.selectTerminal(cli.id);
    await first.session.save();
    const world = first.store.world;
    const expected = worldState(world);
    const cliScreen = cli.lines();
    first.store.stop();
    first.session.dispose();

    const again = sessionHarness({ kv });
    expect(await again.load()).toBe(true);
    await again.idle();
    const w = again.store.world;
    expect(worldState(w)).toEqual(expected);
    expect(again.store.listTerminals().map((t) => [t.id, t.title, t.kind])).toEqual([
      ['t1', 'redis-cli redis:6379', 'redis-cli'],
      ['t2', 'Bill', 'shell'],
    ]);
    expect(again.store.activeTerminalId).toBe('t1');
    expect(again.store.driver.isPaused).toBe(true);
    expect(again.store.driver.speed).toBe(5);
    const t1 = again.view('t1');
    await again.run(50);
    expect(t1.lines()).toEqual(cliScreen);
    expect(t1.lines().at(-1)).toBe('redis:6379[3](TX)>');
    again.store.resume();
    again.store.sendLine('t1', 'EXEC');
    await again.run(100);
    expect(t1.lines().slice(-3)).toEqual(['redis:6379[3](TX)> EXEC', '1) (integer) 1', 'redis:6379[3]>']);
    const t2 = again.view('t2');
    await again.run(50);
    expect(t2.lines()).toEqual(['root@app:/# echo hello', 'hello', 'root@app:/#']);
  });

  it('comes back with the terminals history', async () => {
    const kv = new MemoryStore();
    const first = sessionHarness({ kv });
    await first.load();
    const cli = first.open();
    await first.run(50);
    first.store.sendLine(cli.id, 'PING');
    first.store.sendLine(cli.id, 'DBSIZE');
    await first.run(100);
    await first.session.save();
    first.store.stop();

    const again = sessionHarness({ kv });
    await again.load();
    await again.idle();
    expect(again.store.terminal('t1')!.history()).toEqual(['PING', 'DBSIZE']);
  });

  it('keeps checkpoints and branches, and a saved rewind', async () => {
    const kv = new MemoryStore();
    const first = sessionHarness({ kv });
    await first.load();
    const cli = first.open();
    await first.run(50);
    first.store.sendLine(cli.id, 'SET k v');
    await first.run(50);
    const cp = first.session.checkpoint('mine')!;
    first.store.sendLine(cli.id, 'SET k w');
    await first.run(50);
    await first.session.fork(cp.id, 'experiment');
    await first.session.save();
    const snap = first.session.getSnapshot();
    first.store.stop();

    const again = sessionHarness({ kv });
    await again.load();
    await again.idle();
    const s = again.session.getSnapshot();
    expect(s.branches).toEqual(snap.branches);
    expect(s.checkpoints).toEqual(snap.checkpoints);
    // The branch left is where it was: k is "w" there.
    await again.session.switchBranch(s.branches.find((b) => b.name === 'main')!.id);
    again.view('t1');
    again.store.resume();
    again.store.sendLine('t1', 'GET k');
    await again.run(100);
    expect(again.view('t1').lines().slice(-2)).toEqual(['"w"', 'redis:6379>']);
  });

  it('saves only what changed: the log in chunks from the first one not yet written', async () => {
    const kv = new MemoryStore();
    const h = sessionHarness({ kv });
    await h.load();
    const cli = h.open();
    await h.run(50);
    for (let i = 0; i < LOG_CHUNK + 10; i++) h.store.sendLine(cli.id, `SET k${i} ${i}`);
    for (let t = 0; t < 100 && h.store.world.actionCount <= LOG_CHUNK + 5; t++) await h.run(500);
    expect(h.store.world.actionCount).toBeGreaterThan(LOG_CHUNK);
    await h.session.save();
    const chunks = [...kv.data.keys()].filter((k) => k.startsWith('log/'));
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    kv.writes = 0;
    h.store.sendLine(cli.id, 'SET one more');
    await h.run(50);
    await h.session.save();
    // The last chunk of the log, the live moment and the meta record.
    expect(kv.writes).toBe(3);
  });

  it('saves nothing while a run holds its saves back, and saves when it ends', async () => {
    const kv = new MemoryStore();
    const h = sessionHarness({ kv });
    await h.load();
    const cli = h.open();
    await h.run(50);
    await h.session.save();
    kv.writes = 0;
    const release = h.store.holdSaves();
    expect(h.store.savesHeld).toBe(true);
    for (let i = 0; i < 20; i++) {
      h.store.sendLine(cli.id, `SET held${i} ${i}`);
      await h.run(200);
    }
    expect(kv.writes).toBe(0);
    expect(h.session.getSnapshot().save).toBe('pending');
    release();
    release();
    expect(h.store.savesHeld).toBe(false);
    await h.run(1000);
    expect(kv.writes).toBeGreaterThan(0);
    expect(h.session.getSnapshot().save).toBe('saved');
  });

  it('gives each state provider its data back, even one that registers after the load', async () => {
    const kv = new MemoryStore();
    const first = sessionHarness({ kv });
    await first.load();
    first.open();
    let progress = { lesson: 5, step: 2 };
    first.providers.register({ key: 'lesson-progress', save: () => progress, restore: () => undefined });
    first.providers.register({ key: 'cells', save: () => ({ a: 'x' }), restore: () => undefined });
    await first.session.save();
    progress = { lesson: 5, step: 3 };
    first.providers.changed();
    await first.run(600);
    first.store.stop();

    const again = sessionHarness({ kv });
    let got: unknown = null;
    again.providers.register({ key: 'lesson-progress', save: () => got, restore: (d) => (got = d) });
    await again.load();
    await again.idle();
    expect(got).toEqual({ lesson: 5, step: 3 });
    let late: unknown = null;
    again.providers.register({ key: 'cells', save: () => late, restore: (d) => (late = d) });
    expect(late).toEqual({ a: 'x' });
  });

  it('keeps a stored session it cannot read aside, and starts the sandbox', async () => {
    const kv = new MemoryStore();
    await kv.setMany([['meta', { format: 'redis-workbook-session', version: 1, branches: [{ id: 'b1', logLength: 0 }], checkpoints: [] }]]);
    const h = sessionHarness({ kv });
    expect(await h.load()).toBe(false);
    expect(h.session.getSnapshot().notice?.text).toMatch(/^Your saved session could not be restored: The session file is damaged/);
    expect(await h.session.savedUnreadable()).toContain('redis-workbook-session');
    expect(h.store.world.redis('redis')).toBeDefined();
  });
});
