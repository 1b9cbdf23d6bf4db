import { describe, expect, it } from 'vitest';
import { QuickJsCell } from '../../src/code-cell/engine/quickjs-cell.js';
import type { PageMessage } from '../../src/code-cell/protocol.js';
import { CodeCells, REDRAW_MS, runCellToEnd, type RedrawClock } from '../../src/web/code-cell/cell-runs.js';
import { storeHarness } from '../web/store-harness.js';

/**
 * A stand-in for the cell's Web Worker: the same engine, in this process,
 * with messages cloned and delivered as tasks, and terminate() cutting it off.
 */
class FakeWorker {
  private readonly cell = QuickJsCell.create({
    post: (m) => {
      const out = structuredClone(m);
      setImmediate(() => {
        if (!this.terminated) for (const l of this.listeners) l({ data: out });
      });
    },
    wallNowMs: () => performance.now(),
  });
  private readonly listeners: Array<(e: { data: unknown }) => void> = [];
  terminated = false;

  postMessage(msg: PageMessage): void {
    const copy = structuredClone(msg);
    setImmediate(() => {
      if (this.terminated) return;
      void this.cell.then((cell) => cell.receive(copy));
    });
  }

  addEventListener(type: string, l: (e: { data: unknown }) => void): void {
    if (type === 'message') this.listeners.push(l);
  }

  terminate(): void {
    this.terminated = true;
    void this.cell.then((cell) => cell.dispose());
  }
}

async function until(done: () => boolean, maxMs = 5000): Promise<void> {
  const end = Date.now() + maxMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setImmediate(r));
  }
}

describe("the page's code cells", () => {
  it('runs a cell on the store\'s world, holding the realtime clock meanwhile', async () => {
    const h = storeHarness();
    const workers: FakeWorker[] = [];
    const cells = new CodeCells(h.store, () => {
      const w = new FakeWorker();
      workers.push(w);
      return w as unknown as Worker;
    });
    expect(h.store.driver.isPaused).toBe(false);
    const t0 = h.store.world.kernel.now;
    expect(cells.run('demo', "await redis.set('greeting', 'hello');\nprint(await redis.get('greeting'));\nawait sleep(2000);\nreport('slept', true);", { from: 'app' })).toBe(true);
    expect(cells.state('demo').status).toBe('running');
    expect(h.store.driver.isPaused).toBe(true);
    // The session's saves wait for the run's end.
    expect(h.store.savesHeld).toBe(true);
    // One cell at a time: it owns virtual time.
    expect(cells.run('other', 'print(1)', { from: 'app' })).toBe(false);
    await until(() => cells.state('demo').status !== 'running');
    const s = cells.state('demo');
    expect(s.status).toBe('done');
    expect(s.output).toEqual(['hello']);
    expect(s.reports).toEqual({ slept: true });
    expect(s.virtualMs).toBeGreaterThanOrEqual(2000);
    expect(h.store.world.kernel.now - t0).toBeGreaterThanOrEqual(2_000_000);
    expect(h.store.driver.isPaused).toBe(false);
    expect(h.store.savesHeld).toBe(false);
    expect(workers[0]!.terminated).toBe(true);
    expect(cells.running).toBeNull();
  });

  it('stops a running cell, closes its connections and leaves a paused clock paused', async () => {
    const h = storeHarness();
    h.store.pause();
    const cells = new CodeCells(h.store, () => new FakeWorker() as unknown as Worker);
    cells.run('loop', "for (let i = 0; ; i++) { await redis.incr('n'); if (i === 10) print('going'); }", { from: 'app' });
    await until(() => cells.state('loop').output.length !== 0);
    expect(h.store.world.clients.size).toBe(1);
    cells.stop();
    expect(cells.state('loop').status).toBe('stopped');
    expect(h.store.world.clients.size).toBe(0);
    expect(h.store.driver.isPaused).toBe(true);
  });

  it('shows a failing cell\'s error with its line', async () => {
    const h = storeHarness();
    const cells = new CodeCells(h.store, () => new FakeWorker() as unknown as Worker);
    cells.run('bad', "print('before');\nundefinedThing();", { from: 'app' });
    await until(() => cells.state('bad').status !== 'running');
    expect(cells.state('bad')).toMatchObject({ status: 'failed', output: ['before'], error: { name: 'ReferenceError', line: 2 } });
  });

  it('stops the run when the page hosts another world', async () => {
    const h = storeHarness();
    const cells = new CodeCells(h.store, () => new FakeWorker() as unknown as Worker);
    const old = h.store.world;
    cells.run('long', 'for (;;) await sleep(1000);', { from: 'app' });
    await until(() => old.kernel.now - old.kernel.startUs > 5_000_000);
    const { buildSandboxWorld } = await import('../../src/web/world-setup.js');
    h.store.replaceWorld(buildSandboxWorld(9));
    expect(cells.running).toBeNull();
    expect(old.clients.size).toBe(0);
    // The run belonged to the old world: the new one shows the cell as never run, and its clock runs.
    expect(cells.state('long').status).toBe('idle');
    expect(h.store.driver.isPaused).toBe(false);
  });

  it('runs a cell to its end for a lesson\'s solution', async () => {
    const h = storeHarness();
    const cells = new CodeCells(h.store, () => new FakeWorker() as unknown as Worker);
    const run = await runCellToEnd(cells, 'sum', "await redis.set('a', 2);\nreport('double', 2 * Number(await redis.get('a')));", { from: 'app' });
    expect(run).toMatchObject({ status: 'done', reports: { double: 4 } });
  });

  it('shows what a long run is doing and how far it is while it runs, and nothing of it once it ended', async () => {
    const h = storeHarness();
    const cells = new CodeCells(h.store, () => new FakeWorker() as unknown as Worker);
    const source = "progress('Unix socket', 0);\nawait sleep(1000);\nprogress('VPN, update_token', 0.5);\nawait redis.blpop('never', 0);";
    expect(cells.run('bench', source, { from: 'app' })).toBe(true);
    await until(() => cells.state('bench').progress?.text === 'VPN, update_token');
    expect(cells.state('bench')).toMatchObject({ status: 'running', progress: { text: 'VPN, update_token', fraction: 0.5 } });
    cells.stop();
    await until(() => cells.state('bench').status !== 'running');
    expect(cells.state('bench').progress).toBeNull();
    const bad = await runCellToEnd(cells, 'bad', "progress('half', 'a half');", { from: 'app' });
    expect(bad.error?.message).toMatch(/fraction is a number/);
  });

  it("redraws the world's panels and a running cell's progress together, once per interval of the page's clock", async () => {
    const h = storeHarness();
    // The page's clock held still, its timers run by the test.
    let now = 0;
    const timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
    const clock: RedrawClock = {
      nowMs: () => now,
      after: (ms, fn) => {
        const t = { at: now + ms, fn, live: true };
        timers.push(t);
        return { cancel: () => void (t.live = false) };
      },
    };
    let redraws = 0;
    const input = h.store.input.bind(h.store);
    h.store.input = (fn) => {
      redraws++;
      return input(fn);
    };
    const cells = new CodeCells(h.store, () => new FakeWorker() as unknown as Worker, clock);
    const shown: string[] = [];
    cells.subscribe(() => {
      const text = cells.state('bench').progress?.text;
      if (text !== undefined && shown.at(-1) !== text) shown.push(text);
    });
    const source = "for (let i = 1; i <= 200; i++) { progress('call ' + i, i / 200); await redis.incr('n'); }\nawait redis.blpop('never', 0);";
    expect(cells.run('bench', source, { from: 'app' })).toBe(true);
    const counted = () => Number(h.store.world.redis('redis')!.server.dbs[0]!.lookupNoTouch('n') ?? 0);
    await until(() => counted() === 200);
    // Two hundred turns of the world and as many progress calls: one redraw so far, at the first progress (before the world moved).
    expect(redraws).toBe(0);
    expect(shown).toEqual(['call 1']);
    expect(timers.filter((t) => t.live)).toHaveLength(1);
    // The next redraw is due REDRAW_MS later: the panels and the newest progress, in the same redraw.
    now += REDRAW_MS;
    for (const t of timers.splice(0)) if (t.live && t.at <= now) t.fn();
    await until(() => shown.length === 2);
    expect(redraws).toBe(1);
    expect(shown).toEqual(['call 1', 'call 200']);
    cells.stop();
  });
});

