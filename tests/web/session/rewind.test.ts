import { describe, expect, it } from 'vitest';
import { formatElapsed } from '../../../src/web/timeline/clock-format.js';
import { digest, sessionHarness } from './session-harness.js';

describe('checkpoints, rewind and fork', () => {
  it('takes a checkpoint before a power loss typed in a host shell, and rewinds to it with the server up and its data', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET a 1');
    h.store.sendLine(cli.id, 'MULTI');
    h.store.sendLine(cli.id, 'SET b 2');
    await h.run(100);
    const shell = h.open({ kind: 'shell', host: 'redis' });
    await h.run(50);
    const before = digest(h.store.world);
    h.store.sendLine(shell.id, 'sim power-loss redis');
    await h.run(100);
    expect(h.store.world.redis('redis')).toBeUndefined();

    const cps = h.session.getSnapshot().checkpoints;
    expect(cps.map((c) => [c.label, c.auto])).toEqual([['before power loss on redis', true]]);

    expect(await h.session.rewind(cps[0]!.id)).toBe(true);
    expect(h.store.world.redis('redis')).toBeDefined();
    expect(digest(h.store.world)).toBe(before);
    // The terminals come back under their ids, the shell's screen without the line that cut the power.
    expect(h.store.listTerminals().map((t) => [t.id, t.title])).toEqual([
      ['t1', 'redis-cli redis:6379'],
      ['t2', 'root@redis'],
    ]);
    expect(h.store.activeTerminalId).toBe('t2');
    const again = h.view('t1');
    await h.run(50);
    expect(again.lines()).toEqual(['redis:6379> SET a 1', 'OK', 'redis:6379> MULTI', 'OK', 'redis:6379(TX)> SET b 2', 'QUEUED', 'redis:6379(TX)>']);
    h.store.sendLine('t1', 'EXEC');
    h.store.sendLine('t1', 'GET b');
    await h.run(100);
    expect(again.lines().slice(-5)).toEqual(['redis:6379(TX)> EXEC', '1) OK', 'redis:6379> GET b', '"2"', 'redis:6379>']);
    const sh = h.view('t2');
    await h.run(50);
    expect(sh.lines()).toEqual(['root@redis:~#']);
  });

  it('rewinds to a checkpoint taken on demand and keeps what came after it as a branch to go back to', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET k first');
    await h.run(50);
    const first = h.session.checkpoint()!;
    expect(first.label).toBe('checkpoint 1');
    h.store.sendLine(cli.id, 'SET k second');
    await h.run(50);
    h.session.checkpoint('after the second SET');
    h.store.sendLine(cli.id, 'SET k third');
    await h.run(50);
    const futureDigest = digest(h.store.world);
    const leftAtUs = h.store.world.kernel.now - h.store.world.kernel.startUs;
    expect(h.session.getSnapshot().checkpoints.map((c) => c.label)).toEqual(['checkpoint 1', 'after the second SET']);

    expect(await h.session.rewind(first.id)).toBe(true);
    const snap = h.session.getSnapshot();
    // The rewound branch goes on from the checkpoint under its name; the future left behind is a branch of its own.
    expect(snap.branches.map((b) => [b.name, b.active, b.forkedFrom])).toEqual([
      ['main', true, null],
      [`main left at T+${formatElapsed(leftAtUs)}`, false, 'checkpoint 1'],
    ]);
    expect(snap.checkpoints.map((c) => c.label)).toEqual(['checkpoint 1']);
    h.view('t1');
    h.store.sendLine('t1', 'GET k');
    await h.run(100);
    expect(h.view('t1').lines().slice(-3)).toEqual(['redis:6379> GET k', '"first"', 'redis:6379>']);
    h.store.sendLine('t1', 'SET k other');
    await h.run(50);

    // The old future is reachable: where it was, with its checkpoints.
    expect(await h.session.switchBranch(snap.branches[1]!.id)).toBe(true);
    expect(digest(h.store.world)).toBe(futureDigest);
    expect(h.session.getSnapshot().checkpoints.map((c) => c.label)).toEqual(['checkpoint 1', 'after the second SET']);
    const t = h.view('t1');
    await h.run(50);
    expect(t.lines().slice(-3)).toEqual(['redis:6379> SET k third', 'OK', 'redis:6379>']);

    // Rewinding there again keeps that branch's future too: no rewind ever drops a timeline.
    const again = h.session.getSnapshot().checkpoints[1]!;
    expect(await h.session.rewind(again.id)).toBe(true);
    expect(h.session.getSnapshot().branches).toHaveLength(3);
  });

  it('rewinds in place when nothing was done after the checkpoint', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET k first');
    await h.run(50);
    const cp = h.session.checkpoint()!;
    expect(await h.session.rewind(cp.id)).toBe(true);
    expect(h.session.getSnapshot().branches.map((b) => b.name)).toEqual(['main']);
  });

  it('forks a branch from a checkpoint and switches back to the branch left, where it was', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET k original');
    await h.run(50);
    const cp = h.session.checkpoint('before the change')!;
    h.store.sendLine(cli.id, 'SET k changed');
    await h.run(50);
    const mainDigest = digest(h.store.world);
    const mainTime = h.store.world.kernel.now;

    const forked = await h.session.fork(cp.id);
    expect(forked).not.toBeNull();
    const snap = h.session.getSnapshot();
    expect(snap.branches.map((b) => [b.name, b.active, b.forkedFrom])).toEqual([
      ['main', false, null],
      ['branch 2', true, 'before the change'],
    ]);
    // The fork starts from the checkpoint, which it has too.
    expect(snap.checkpoints.map((c) => c.label)).toEqual(['before the change']);
    h.store.sendLine('t1', 'SET k forked');
    await h.run(50);
    const forkDigest = digest(h.store.world);
    expect(forkDigest).not.toBe(mainDigest);

    const main = snap.branches[0]!.id;
    expect(await h.session.switchBranch(main)).toBe(true);
    expect(digest(h.store.world)).toBe(mainDigest);
    expect(h.store.world.kernel.now).toBeGreaterThanOrEqual(mainTime);
    const t = h.view('t1');
    await h.run(50);
    expect(t.lines()).toEqual(['redis:6379> SET k original', 'OK', 'redis:6379> SET k changed', 'OK', 'redis:6379>']);

    expect(await h.session.switchBranch(forked!)).toBe(true);
    expect(digest(h.store.world)).toBe(forkDigest);
  });

  it('replays a long history in slices, reporting its progress', async () => {
    const h = sessionHarness({ wallStepMs: 0.5 });
    const cli = h.open();
    await h.run(50);
    for (let i = 0; i < 200; i++) h.store.sendLine(cli.id, `SET key:${i} ${i}`);
    await h.run(500);
    // Let the server's timers run a while: many events to replay.
    h.store.step(60_000);
    const keys = h.store.world.redis('redis')!.server.dbs[0]!.size;
    expect(keys).toBeGreaterThan(10);
    const before = digest(h.store.world);
    const cp = h.session.checkpoint()!;
    const progress: number[] = [];
    const off = h.session.subscribe(() => {
      const busy = h.session.getSnapshot().busy;
      if (busy !== null) progress.push(busy.progress);
    });
    const done = h.session.rewind(cp.id);
    await h.idle();
    expect(await done).toBe(true);
    off();
    expect(progress.length).toBeGreaterThan(2);
    expect(progress[progress.length - 1]).toBeGreaterThan(0.5);
    expect(h.store.world.redis('redis')!.server.dbs[0]!.size).toBe(keys);
    expect(digest(h.store.world)).toBe(before);
  });
});
