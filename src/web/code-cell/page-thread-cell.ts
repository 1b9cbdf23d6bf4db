import type { QuickJsCell } from '../../code-cell/engine/quickjs-cell.js';
import type { QuietMessage } from '../../code-cell/engine/quiet.js';
import type { CellMessage, PageMessage } from '../../code-cell/protocol.js';

export interface PageThreadOptions {
  /** Where the cell's engine comes from: the one made ahead of the run, or one made now. */
  readonly shelf: EngineShelf;
  /** The worker a cell moves to when a turn of it runs past the shelf's turn limit. */
  spill(): Worker;
  wallNowMs(): number;
  /** Runs `fn` in a later task, after the page has handled what waits (input, painting). */
  later(fn: () => void): void;
  /** Wall ms of turns, one after another, before the page gets a task of its own. */
  readonly sliceMs?: number;
}

/** What a shelf makes its engines with. */
export interface EngineOptions {
  /** The engine's WebAssembly code, or that code compiled (undefined: its package finds it, as in Node). */
  engine(): Promise<ArrayBuffer | WebAssembly.Module | undefined>;
  wallNowMs(): number;
  /** Wall ms a turn of the cell may hold the page's thread. */
  readonly turnLimitMs?: number;
}

/** A turn longer than this is not a cell waiting on the world but one computing: it goes to a worker. */
const TURN_LIMIT_MS = 100;
const SLICE_MS = 10;

/** An engine made before its cell, and the way its messages go to whichever cell takes it. */
interface ShelvedEngine {
  readonly cell: QuickJsCell;
  readonly route: { post(m: CellMessage): void };
}

/**
 * One engine for the page's thread made ahead of the next cell's run:
 * the engine's code fetched and compiled, the cells' runtime evaluated in
 * it. Made when a page with code cells opens, it spares the first Run a
 * few hundred ms (its chunk, its WebAssembly and the runtime's script),
 * while the learner reads. The code is compiled once for the page's life,
 * so later engines start from it.
 *
 *   const shelf = new EngineShelf({ engine: engineModule, wallNowMs: () => performance.now() });
 *   shelf.prepare();                            // a cell's view appeared
 *   pageThreadWorker({ shelf, spill, ... });    // Run: takes it (or waits for it)
 */
export class EngineShelf {
  private spare: Promise<ShelvedEngine> | null = null;

  constructor(private readonly opts: EngineOptions) {}

  /** Starts making the spare engine, if there is none. */
  prepare(): void {
    if (this.spare !== null) return;
    const made = this.make();
    this.spare = made;
    // A spare that could not be made is forgotten: the next cell makes its own and says why it failed.
    made.catch(() => {
      if (this.spare === made) this.spare = null;
    });
  }

  /** The spare engine (made now if there is none); the shelf is empty after it until the next prepare(). */
  take(): Promise<ShelvedEngine> {
    const made = this.spare ?? this.make();
    this.spare = null;
    return made;
  }

  private async make(): Promise<ShelvedEngine> {
    const [wasm, { QuickJsCell }] = await Promise.all([this.opts.engine(), import('../../code-cell/engine/quickjs-cell.js')]);
    const route = { post: (_m: CellMessage): void => undefined };
    const cell = await QuickJsCell.create({ wasm, post: (m) => route.post(m), wallNowMs: this.opts.wallNowMs, turnLimitMs: this.opts.turnLimitMs ?? TURN_LIMIT_MS });
    return { cell, route };
  }
}

type Listener = (e: { data?: unknown; message?: string; preventDefault(): void }) => void;

/**
 * A code cell's engine on the page's own thread, beside the world, behind
 * the interface of the Web Worker it replaces for the cell runner
 * (cell-runs.ts). A cell that awaits a command a line, as lesson 16's
 * benchmark does twenty thousand times, then costs a call into the engine
 * per answer instead of two messages between threads, each waking the
 * other side.
 *
 * The engine is the same sandbox as in the worker: QuickJS compiled to
 * WebAssembly, with its own memory under a hard maximum, and no way out but
 * the cell runtime's messages, which the page checks as it checks a
 * worker's. What the page's thread cannot do is end a cell that spins: so
 * each turn (one message in, until the cell waits again) may run for
 * TURN_LIMIT_MS of wall time, and one that runs longer is cut, its engine
 * dropped with what it posted in that turn, and the cell handed to a
 * worker (`spill`) with every message so far. The worker runs the turns
 * the page has already seen again without a word (engine/quiet.ts) and
 * goes on from the turn that was cut, where a cell may spin or print
 * without end and the Stop button ends the worker. The cell's output and
 * requests are the same either way: a cell sees only virtual time and a
 * seeded Math.random, so its turns run again the same.
 *
 *   const cells = new CodeCells(store, () => pageThreadWorker({ shelf, spill, wallNowMs, later }));
 */
export function pageThreadWorker(opts: PageThreadOptions): Worker {
  return new PageThreadCell(opts) as unknown as Worker;
}

class PageThreadCell {
  private cell: QuickJsCell | null = null;
  private readonly inbox: PageMessage[] = [];
  /** Messages whose turns ran here: a worker taking the cell over runs them again, quietly. */
  private readonly answered: PageMessage[] = [];
  private outbox: CellMessage[] = [];
  private spilled: Worker | null = null;
  private ended = false;
  private scheduled = false;
  private sliceStartMs = -Infinity;
  private readonly listeners: Array<[string, Listener]> = [];
  private readonly sliceMs: number;

  constructor(private readonly opts: PageThreadOptions) {
    this.sliceMs = opts.sliceMs ?? SLICE_MS;
    // The engine's code (with the cells' runtime it evaluates) loads with a page's code cells or with the first that runs, not with the page.
    opts.shelf
      .take()
      .then(
        ({ cell, route }) => {
          if (this.ended) {
            cell.dispose();
            return;
          }
          route.post = (m) => this.outbox.push(m);
          this.cell = cell;
          this.schedule();
        },
        (e: unknown) => {
          if (!this.ended) this.emit('error', { message: `The cell's engine could not start: ${e instanceof Error ? e.message : String(e)}`, preventDefault() {} });
        },
      );
  }

  postMessage(msg: PageMessage): void {
    if (this.ended) return;
    if (this.spilled !== null) {
      this.spilled.postMessage(msg);
      return;
    }
    this.inbox.push(msg);
    this.schedule();
  }

  terminate(): void {
    this.ended = true;
    this.cell?.dispose();
    this.cell = null;
    this.spilled?.terminate();
  }

  addEventListener(type: string, l: Listener): void {
    this.listeners.push([type, l]);
    this.spilled?.addEventListener(type, l as unknown as EventListener);
  }

  /**
   * The next turn, at once (as a promise job) while the page's thread has
   * run turns for less than SLICE_MS, else in a later task, so that input
   * and painting get their turn between slices.
   */
  private schedule(): void {
    if (this.scheduled || this.cell === null || this.inbox.length === 0) return;
    this.scheduled = true;
    if (this.opts.wallNowMs() - this.sliceStartMs < this.sliceMs) {
      queueMicrotask(() => this.turn());
      return;
    }
    this.opts.later(() => {
      this.sliceStartMs = this.opts.wallNowMs();
      this.turn();
    });
  }

  private turn(): void {
    this.scheduled = false;
    const cell = this.cell;
    const msg = this.inbox.shift();
    if (this.ended || cell === null || msg === undefined) return;
    const outcome = cell.receive(msg);
    const out = this.outbox;
    this.outbox = [];
    if (outcome === 'cut') {
      this.spill(msg);
      return;
    }
    this.answered.push(msg);
    // The runner's listener may run the world and post the next message: it waits in the inbox for the next turn.
    for (const m of out) this.emit('message', { data: m, preventDefault() {} });
    this.schedule();
  }

  /** Hands the cell to a worker: the turns seen so far run there quietly, then the one that was cut and what came since. */
  private spill(cut: PageMessage): void {
    this.cell = null;
    const worker = this.opts.spill();
    this.spilled = worker;
    for (const [type, l] of this.listeners) worker.addEventListener(type, l as unknown as EventListener);
    for (const msg of this.answered.splice(0)) worker.postMessage({ type: 'quiet', msg } satisfies QuietMessage);
    worker.postMessage(cut);
    for (const msg of this.inbox.splice(0)) worker.postMessage(msg);
  }

  private emit(type: string, e: Parameters<Listener>[0]): void {
    for (const [t, l] of this.listeners) if (t === type) l(e);
  }
}
