import { describe, expect, it } from 'vitest';
import { QuickJsCell } from '../../src/code-cell/engine/quickjs-cell.js';
import { quietTurns, type QuietMessage } from '../../src/code-cell/engine/quiet.js';
import { macrotaskQueue } from '../../src/code-cell/macrotask.js';
import type { PageMessage } from '../../src/code-cell/protocol.js';
import { CodeCells, runCellToEnd } from '../../src/web/code-cell/cell-runs.js';
import { EngineShelf, pageThreadWorker } from '../../src/web/code-cell/page-thread-cell.js';
import { storeHarness } from '../web/store-harness.js';

/**
 * The worker a cell moves to, in this process: the same engine behind the
 * same quiet turns as src/web/code-cell/cell-worker.ts, its messages as tasks.
 */
class SpillWorker {
  private readonly listeners: Array<(e: { data: unknown }) => void> = [];
  private readonly turns = quietTurns((m) => {
    const out = structuredClone(m);
    setImmediate(() => {
      if (!this.terminated) for (const l of this.listeners) l({ data: out });
    });
  }, () => performance.now());
  private readonly cell = QuickJsCell.create({ post: this.turns.post, wallNowMs: this.turns.wallNowMs });
  terminated = false;
  readonly received: Array<PageMessage | QuietMessage> = [];

  postMessage(msg: PageMessage | QuietMessage): void {
    this.received.push(msg);
    const copy = structuredClone(msg);
    setImmediate(() => {
      if (!this.terminated) void this.cell.then((cell) => this.turns.receive(cell, copy));
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

/**
 * Cells on the page's thread, on a clock that moves a millisecond each
 * time it is read: a turn is cut once the engine has asked whether to
 * stop more than `turnLimitMs` times, which only a turn that computes
 * for a while does.
 */
function pageThreadCells(turnLimitMs: number) {
  const h = storeHarness();
  const spilled: SpillWorker[] = [];
  let tick = 0;
  const wallNowMs = () => ++tick;
  const cells = new CodeCells(h.store, () =>
    pageThreadWorker({
      shelf: new EngineShelf({ engine: () => Promise.resolve(undefined), wallNowMs, turnLimitMs }),
      spill: () => {
        const w = new SpillWorker();
        spilled.push(w);
        return w as unknown as Worker;
      },
      wallNowMs,
      later: macrotaskQueue(),
    }),
  );
  return { h, cells, spilled };
}

// Commands before and after a turn that computes without waiting; a seeded Math.random on both sides of it.
const SOURCE = [
  'const r = Math.random();',
  "for (let i = 0; i < 3; i++) print(await redis.incr('n'));",
  "print('computing');",
  'let sum = 0;',
  'for (let i = 0; i < 1e6; i++) sum += i % 7;',
  "print(sum, Math.random() !== r, await redis.incr('n'));",
  "await redis.pipeline().incr('n').incr('n').exec();",
  "report('n', Number(await redis.get('n')));",
  'report(\'r\', [r, Math.random()]);',
].join('\n');

describe("a cell on the page's thread", () => {
  it('runs beside the world without a worker while each of its turns is short', async () => {
    const { h, cells, spilled } = pageThreadCells(1e9);
    const run = await runCellToEnd(cells, 'c', SOURCE, { from: 'app' });
    expect(run).toMatchObject({ status: 'done', output: ['1', '2', '3', 'computing', '2999997 true 4'], reports: { n: 6 } });
    expect(spilled).toHaveLength(0);
    expect(h.store.world.clients.size).toBe(0);
  });

  it('hands a turn that computes too long to a worker, which runs the turns before it quietly and goes on the same', async () => {
    const alone = pageThreadCells(1e9);
    const expected = await runCellToEnd(alone.cells, 'c', SOURCE, { from: 'app' });
    const { h, cells, spilled } = pageThreadCells(30);
    const run = await runCellToEnd(cells, 'c', SOURCE, { from: 'app' });
    expect(spilled).toHaveLength(1);
    // Every turn the page ran was given to the worker quietly, then the one that was cut, as it was.
    const given = spilled[0]!.received;
    expect(given.at(0)).toMatchObject({ type: 'quiet', msg: { type: 'start' } });
    // The start and the answers to the first two INCRs; the third's answer began the turn that computes.
    expect(given.filter((m) => m.type === 'quiet')).toHaveLength(3);
    expect(given[3]).toMatchObject({ type: 'deliver', results: [{ ok: true, value: 3 }] });
    // Nothing printed twice or lost, the same numbers, the same world.
    expect(run.status).toBe('done');
    expect(run.output).toEqual(expected.output);
    expect(run.reports).toEqual(expected.reports);
    expect(h.store.world.trace.hash()).toBe(alone.h.store.world.trace.hash());
    expect(spilled[0]!.terminated).toBe(true);
  });

  it('stops a cell on the page\'s thread between its turns, and its engine with it', async () => {
    const { h, cells, spilled } = pageThreadCells(1e9);
    cells.run('loop', "for (let i = 0; ; i++) { await redis.incr('n'); if (i === 10) print('going'); }", { from: 'app' });
    for (let i = 0; i < 10_000 && cells.state('loop').output.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(cells.state('loop').output).toEqual(['going']);
    cells.stop();
    expect(cells.state('loop').status).toBe('stopped');
    expect(h.store.world.clients.size).toBe(0);
    expect(spilled).toHaveLength(0);
  });

  it('takes the engine made ahead of its run, and readies the next one when the run ends', async () => {
    const h = storeHarness();
    let engines = 0;
    const opts = { engine: () => (engines++, Promise.resolve(undefined)), wallNowMs: () => performance.now() };
    const shelf = new EngineShelf(opts);
    let spawned = 0;
    const spawn = Object.assign(
      () => {
        spawned++;
        return pageThreadWorker({ ...opts, shelf, spill: () => new SpillWorker() as unknown as Worker, later: macrotaskQueue() });
      },
      { prepare: () => shelf.prepare() },
    );
    const cells = new CodeCells(h.store, spawn);
    // A page with code cells opened: one engine is made, once however often the views ask.
    cells.prepare();
    cells.prepare();
    expect(engines).toBe(1);
    expect(await runCellToEnd(cells, 'a', "print(await redis.incr('n'));", { from: 'app' })).toMatchObject({ status: 'done', output: ['1'] });
    // The run took the engine made ahead; its end readied the next, which the next run takes.
    expect(engines).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(engines).toBe(2);
    expect(await runCellToEnd(cells, 'a', "print(await redis.incr('n'));", { from: 'app' })).toMatchObject({ status: 'done', output: ['2'] });
    expect({ spawned, engines }).toEqual({ spawned: 2, engines: 2 });
    // Without one made ahead, a cell makes its own.
    const alone = new CodeCells(h.store, () => pageThreadWorker({ ...opts, shelf: new EngineShelf(opts), spill: () => new SpillWorker() as unknown as Worker, later: macrotaskQueue() }));
    await new Promise((r) => setImmediate(r));
    const before = engines;
    expect(await runCellToEnd(alone, 'b', 'print(1 + 1);', { from: 'app' })).toMatchObject({ status: 'done', output: ['2'] });
    expect(engines).toBe(before + 1);
  });
});
