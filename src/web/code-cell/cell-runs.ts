// A cell may send any command: every command's code (emulator/commands/on-demand.ts).
import '../../../emulator/commands/on-demand-handlers.js';
import { CellExecutor } from '../../code-cell/executor.js';
import { macrotaskQueue } from '../../code-cell/macrotask.js';
import type { CellError, CellProgress } from '../../code-cell/protocol.js';
import type { World } from '../../../emulator/world/world.js';
import type { WorldStore } from '../world-store.js';
import { deferredWorker, engineModule, sandboxWorker } from './cell-sandbox.js';
import { EngineShelf, pageThreadWorker } from './page-thread-cell.js';

export type CellStatus = 'idle' | 'running' | 'done' | 'failed' | 'stopped';

/** What a code cell's last run did, as one immutable value per change. */
export interface CellRunState {
  readonly status: CellStatus;
  /** Printed lines, oldest first (the oldest are dropped past MAX_LINES). */
  readonly output: readonly string[];
  /** Lines dropped from the front of `output`. */
  readonly dropped: number;
  /** report(name, value): the last value per name, in the order first reported. */
  readonly reports: Readonly<Record<string, unknown>>;
  readonly error: CellError | null;
  /** How many runs of the cell have started on this world (this one included). */
  readonly runs: number;
  /** Virtual ms the run has taken, and wall ms. */
  readonly virtualMs: number;
  readonly wallMs: number;
  /** What the running cell last said it is doing, with progress(text, fraction); null when it said nothing. */
  readonly progress: CellProgress | null;
}

/**
 * Wall ms between two redraws of the page while a cell runs: the world's
 * panels and the cell's progress are redrawn together, five times a
 * second. Each redraw is a React render and a layout and paint of the
 * page, several ms each; at one a frame they took half of the page's
 * thread, and the world's panels and the progress line redrawn on clocks
 * of their own, ten times a second each, still took about a fifth of
 * lesson 16's benchmark.
 */
export const REDRAW_MS = 200;

/** The wall clock a running cell's redraws are paced by: the page's own, or a test's. */
export interface RedrawClock {
  nowMs(): number;
  /** Runs `fn` once, `ms` from now. */
  after(ms: number, fn: () => void): { cancel(): void };
}

const PAGE_CLOCK: RedrawClock = {
  nowMs: () => performance.now(),
  after: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/** Output lines a cell's view keeps. */
export const MAX_LINES = 2000;
/** Characters of output a cell's view keeps. */
const MAX_OUTPUT_CHARS = 512 * 1024;

const IDLE: CellRunState = { status: 'idle', output: [], dropped: 0, reports: {}, error: null, runs: 0, virtualMs: 0, wallMs: 0, progress: null };

/**
 * Spawns the worker a cell runs in; tests and other hosts may give their
 * own. `prepare`, where there is one, readies what the next spawn needs
 * (called when a page with code cells opens and after each run).
 */
export type WorkerFactory = (() => Worker) & { prepare?(): void };

/** The page's engines: one made ahead of each run, from the engine's code compiled once. */
const pageEngines = new EngineShelf({ engine: engineModule, wallNowMs: () => performance.now() });

/**
 * A cell runs in its engine on the page's thread (page-thread-cell.ts) until
 * a turn of it computes too long; it then moves to a worker under the
 * sandbox frame's policy, which lets no request out (cell-sandbox.ts).
 */
const defaultWorker: WorkerFactory = Object.assign(
  () =>
    pageThreadWorker({
      shelf: pageEngines,
      spill: () => deferredWorker(sandboxWorker()),
      wallNowMs: () => performance.now(),
      later: macrotaskQueue(),
    }),
  { prepare: () => pageEngines.prepare() },
);

interface ActiveRun {
  readonly cellId: string;
  readonly executor: CellExecutor;
  readonly worker: Worker;
  readonly startUs: number;
  readonly startWall: number;
  readonly wasPaused: boolean;
}

/**
 * The page's code cells: runs each in a Web Worker against the store's
 * world (one at a time, since a running cell owns virtual time), keeps
 * each cell's last run for its view and for lesson checks, and stops a run
 * on request or when the page hosts another world.
 *
 *   const cells = codeCells(store);
 *   cells.run('list-item', source, { from: 'app' });
 *   cells.subscribe(() => render(cells.state('list-item')));
 *   cells.stop();
 *
 * While a cell runs, the realtime driver is paused and the cell's executor
 * moves the clock: still while the cell computes, as fast as it can while
 * the cell waits. When the run ends, the clock follows the wall clock again
 * (unless it was paused before).
 */
export class CodeCells {
  /** Each cell's last run, with the world it ran on: a run on another world is not shown. */
  private readonly states = new Map<string, { readonly world: World; readonly state: CellRunState }>();
  private readonly listeners = new Set<() => void>();
  private active: ActiveRun | null = null;
  private readonly later = macrotaskQueue();

  constructor(
    private readonly store: WorldStore,
    private readonly spawn: WorkerFactory = defaultWorker,
    private readonly clock: RedrawClock = PAGE_CLOCK,
  ) {}

  /** A cell's last run on the world the page hosts now (idle when it has not run there). */
  state(cellId: string): CellRunState {
    const s = this.states.get(cellId);
    return s !== undefined && s.world === this.store.world ? s.state : IDLE;
  }

  /** Readies an engine for the next run while none runs (a page with code cells opened, or a run ended). */
  prepare(): void {
    if (this.active === null) this.spawn.prepare?.();
  }

  /** The cell running now, if any. */
  get running(): string | null {
    return this.active?.cellId ?? null;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(cellId: string, world: World, next: Partial<CellRunState>): void {
    const s = this.states.get(cellId);
    const prev = s !== undefined && s.world === world ? s.state : IDLE;
    this.states.set(cellId, { world, state: { ...prev, ...next } });
    for (const l of [...this.listeners]) l();
  }

  /**
   * Runs a cell's source from a host of the world (to the world's first
   * redis-server unless `to` names one). Refused while another cell runs.
   */
  run(cellId: string, source: string, where: { from: string; to?: string }): boolean {
    if (this.active !== null) return false;
    const store = this.store;
    const world = store.world;
    let worker: Worker;
    try {
      worker = this.spawn();
    } catch (e) {
      this.set(cellId, world, { ...IDLE, status: 'failed', error: { name: 'Error', message: `The cell's worker could not start: ${String(e)}`, line: null, column: null } });
      return false;
    }
    const wasPaused = store.driver.isPaused;
    store.pause();
    const releaseSaves = store.holdSaves();
    let output: string[] = [];
    let dropped = 0;
    let outputChars = 0;
    // The newest MAX_LINES lines and MAX_OUTPUT_CHARS characters are shown; the rest are counted.
    const trim = () => {
      let drop = Math.max(0, output.length - MAX_LINES);
      for (let i = 0; i < drop; i++) outputChars -= output[i]!.length;
      while (outputChars > MAX_OUTPUT_CHARS && drop < output.length - 1) outputChars -= output[drop++]!.length;
      if (drop === 0) return;
      dropped += drop;
      output = output.slice(drop);
    };
    let progress: CellProgress | null = null;
    let flushQueued = false;
    // Printed lines and progress reach the view at most once per task, so a cell printing in a loop does not re-render per line.
    const flushOutput = () => {
      if (flushQueued) return;
      flushQueued = true;
      this.later(() => {
        flushQueued = false;
        trim();
        this.set(cellId, world, { output: [...output], dropped, progress, ...this.times() });
      });
    };
    // One redraw for the world's panels and the cell's progress, at most every REDRAW_MS; what changed since waits for the next.
    let redrawnAt = -Infinity;
    let worldMoved = false;
    let progressMoved = false;
    let pending: { cancel(): void } | null = null;
    const redraw = () => {
      pending = null;
      redrawnAt = this.clock.nowMs();
      if (worldMoved) {
        worldMoved = false;
        store.input(() => undefined);
      }
      if (progressMoved) {
        progressMoved = false;
        flushOutput();
      }
    };
    const askRedraw = () => {
      if (pending !== null) return;
      const wait = redrawnAt + REDRAW_MS - this.clock.nowMs();
      if (wait <= 0) redraw();
      else pending = this.clock.after(wait, () => {
        if (this.active?.executor === executor) redraw();
      });
    };
    const executor = new CellExecutor(world, {
      cellId,
      source,
      from: where.from,
      to: where.to,
      post: (msg) => worker.postMessage(msg),
      later: this.later,
      wallNowMs: () => performance.now(),
      onWorldChanged: () => {
        if (store.world !== world) {
          this.stop();
          return;
        }
        worldMoved = true;
        askRedraw();
      },
      onPrint: (line) => {
        output.push(line);
        outputChars += line.length;
        flushOutput();
      },
      onDropped: (lines) => {
        dropped += lines;
        flushOutput();
      },
      onReport: (name, value) => {
        this.set(cellId, world, { reports: { ...(this.states.get(cellId)?.state.reports ?? {}), [name]: value } });
      },
      onProgress: (text, fraction) => {
        // A cell may say how far it is on every call it makes: the view shows the newest with the next redraw.
        progress = { text, fraction };
        progressMoved = true;
        askRedraw();
      },
      onEnd: (end) => {
        worker.terminate();
        progress = null;
        pending?.cancel();
        const run = this.active;
        this.active = null;
        trim();
        const times = run === null ? {} : this.timesOf(run);
        offWorld();
        releaseSaves();
        this.set(cellId, world, { status: end.stopped ? 'stopped' : end.error !== null ? 'failed' : 'done', error: end.error, output: [...output], dropped, progress: null, ...times });
        if (store.world === world) store.input(() => undefined);
        // A world hosted meanwhile took the paused clock over from this one: it runs again too.
        if (!wasPaused) store.resume();
        // The next run's engine, made after this one's end has been drawn.
        this.later(() => this.prepare());
      },
    });
    // Another world hosted (a lesson started over, a checkpoint restored): the run belonged to the old one.
    const offWorld = store.onWorldChange(() => this.stop());
    worker.addEventListener('message', (e: MessageEvent) => executor.receive(e.data));
    worker.addEventListener('error', (e: ErrorEvent) => {
      e.preventDefault();
      if (!executor.ended) {
        executor.receive({ type: 'done', requests: [], error: { name: 'Error', message: `The cell's worker failed: ${e.message || 'it could not be loaded'}`, line: null, column: null } });
      }
    });
    this.active = { cellId, executor, worker, startUs: world.kernel.now, startWall: performance.now(), wasPaused };
    this.set(cellId, world, { ...IDLE, status: 'running', runs: this.state(cellId).runs + 1 });
    executor.start();
    return true;
  }

  /** Stops the running cell: its worker is ended and its connections closed. */
  stop(): void {
    const run = this.active;
    if (run === null) return;
    run.worker.terminate();
    run.executor.stop();
  }

  private times(): Partial<CellRunState> {
    return this.active === null ? {} : this.timesOf(this.active);
  }

  private timesOf(run: ActiveRun): Pick<CellRunState, 'virtualMs' | 'wallMs'> {
    return { virtualMs: (run.executor.world.kernel.now - run.startUs) / 1000, wallMs: performance.now() - run.startWall };
  }
}

/**
 * Runs a cell and resolves with its run once it has ended (a lesson's
 * solution plays its cells this way); resolves at once with a failed run
 * when another cell is running.
 */
export function runCellToEnd(cells: CodeCells, cellId: string, source: string, where: { from: string; to?: string }): Promise<CellRunState> {
  if (!cells.run(cellId, source, where)) {
    const busy: CellRunState = { ...IDLE, status: 'failed', error: { name: 'Error', message: `Another cell (${cells.running ?? '?'}) is running.`, line: null, column: null } };
    return Promise.resolve(cells.running === null ? cells.state(cellId) : busy);
  }
  return new Promise((resolve) => {
    const off = cells.subscribe(() => {
      const s = cells.state(cellId);
      if (s.status === 'running' && cells.running === cellId) return;
      off();
      resolve(s);
    });
  });
}

const registries = new WeakMap<WorldStore, CodeCells>();

/** The code cells of a page's store (made on first use). */
export function codeCells(store: WorldStore): CodeCells {
  let cells = registries.get(store);
  if (cells === undefined) {
    cells = new CodeCells(store);
    registries.set(store, cells);
  }
  return cells;
}
