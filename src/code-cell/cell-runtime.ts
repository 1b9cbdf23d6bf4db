import { CellRedis, connectOptions, type RequestBody } from './cell-client.js';
import { compileCell, type CompileFunction } from './cell-source.js';
import { MAX_PRINT_LINES, MAX_TEXT, plainData } from './cell-messages.js';
import { formatArgs } from './format-value.js';
import type { CellError, CellMessage, CellProgress, CellRequest, PageMessage, StartMessage } from './protocol.js';
import { fromWireError, fromWireValue } from './wire-values.js';

/** What the cell's side needs from where it runs: the cell's engine (engine/inside.ts). */
export interface RuntimeHost {
  post(msg: CellMessage): void;
  /** Runs `fn` as a new task, once every pending promise reaction has run. */
  afterMicrotasks(fn: () => void): void;
  readonly compile: CompileFunction;
  /** The wall clock, ms: printed lines go to the page at most every PRINT_INTERVAL_MS of it while the code runs. */
  wallNowMs?(): number;
}

/**
 * The ways to the network a cell's code could try. The cell's engine has
 * none of them, and the worker around it runs under a policy that refuses
 * every request (src/web/code-cell/cell-sandbox.ts); the cell sees them as
 * undefined all the same.
 */
export const NETWORK_NAMES = ['fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'WebTransport', 'EventSource', 'importScripts'] as const;

/**
 * Names a cell sees as undefined: ways out of the simulated world that no
 * request policy covers (storage and messages shared with the page, other
 * workers, the host process). The worker around the engine also removes
 * them from its own global scope (lockdown.ts).
 */
export const SHADOWED_NAMES = [
  'indexedDB',
  'caches',
  'BroadcastChannel',
  'Worker',
  'SharedWorker',
  'navigator',
  'postMessage',
  'MessageChannel',
  'setImmediate',
  'process',
  'require',
] as const;

/** Wall ms between two messages of printed lines while a cell's code runs without waiting. */
const PRINT_INTERVAL_MS = 50;
/** Printed lines the cell keeps until they are sent: the newest. */
const MAX_KEPT_LINES = MAX_PRINT_LINES;
/** Characters of printed lines the cell keeps until they are sent. */
const MAX_KEPT_CHARS = 256 * 1024;

interface Waiter {
  resolve(v: unknown): void;
  reject(e: Error): void;
  /** A sleep resolves with nothing, whatever the page answers. */
  readonly sleep: boolean;
}

/**
 * The cell's side of a run: it compiles the source into an async function
 * of the cell's API, sends the requests the code makes to the page, and
 * resolves them with the page's answers. Whenever the code has nothing
 * left to do but wait, it tells the page (a 'step' with the requests made
 * since the last one); the page then runs the world until an answer is
 * due. Clocks in the cell (time(), Date, performance.now) read virtual
 * time, as of the last answer.
 *
 * The API a cell sees:
 *   redis                  a connection from the cell's host to its server, opened on first use
 *   connect({ from, to, client })   another connection
 *   new Redis({ sentinels, name })   a connection to the primary the sentinels name, following failovers
 *                                    (also new Redis('host:port'), new Redis({ host, port }))
 *   print(...values)       a line of output
 *   report(name, value)    a named result for lesson checks and charts (plain data)
 *   progress(text, fraction)   what a long run is doing now and how far it is (0 to 1, optional)
 *   sleep(ms)              resolves after ms of virtual time
 *   time()                 virtual seconds since the Unix epoch, like Python's time.time()
 *   console.log, setTimeout, setInterval, Date, performance.now: on virtual time too
 */
export class CellRuntime {
  private nowUs: number;
  private readonly startUs: number;
  private nextId = 1;
  private nextConn = 1;
  private buffer: CellRequest[] = [];
  private readonly waiters = new Map<number, Waiter>();
  private flushQueued = false;
  private finished = false;
  /** Printed lines not sent yet, oldest first, their characters, and how many older ones were let go. */
  private printed: string[] = [];
  private printedChars = 0;
  private printDropped = 0;
  private printSentAtMs = -Infinity;
  /** The last progress(text, fraction) not sent yet: it goes with the next step, so it costs no message of its own. */
  private progressed: CellProgress | null = null;

  constructor(
    private readonly host: RuntimeHost,
    private readonly start: StartMessage,
  ) {
    this.nowUs = start.nowUs;
    this.startUs = start.startUs;
  }

  /** Compiles and starts the cell. */
  run(): void {
    const api = this.api();
    const shadowed = [...NETWORK_NAMES, ...SHADOWED_NAMES];
    const names = [...Object.keys(api), ...shadowed];
    const values = [...Object.values(api), ...shadowed.map(() => undefined)];
    const compiled = compileCell(this.host.compile, names, this.start.source, `cell-${this.start.cellId.replace(/[^\w-]/g, '_')}.js`);
    if (!('run' in compiled)) {
      this.finish(compiled);
      return;
    }
    let result: Promise<unknown>;
    try {
      result = compiled.run(...values);
    } catch (e) {
      this.finish(compiled.mapError(e));
      return;
    }
    result.then(
      () => this.finish(null),
      (e: unknown) => this.finish(compiled.mapError(e)),
    );
    this.scheduleFlush();
  }

  /** A message from the page. */
  receive(msg: PageMessage): void {
    if (msg.type !== 'deliver' || this.finished) return;
    this.nowUs = msg.nowUs;
    for (const r of msg.results) {
      const w = this.waiters.get(r.id);
      if (w === undefined) continue;
      this.waiters.delete(r.id);
      if (r.ok) w.resolve(w.sleep ? undefined : fromWireValue(r.value));
      else w.reject(withoutStack(fromWireError(r.error)));
    }
    this.scheduleFlush();
  }

  /**
   * A deliver of one answer that is a string, a number, null or a list of
   * them (fromWireValue leaves such a value as it is), the answer a cell
   * awaiting one command or pipeline at a time gets every turn: the same
   * as receive() with that one result, without the message, its list and
   * its result object made and walked in the engine's interpreter.
   */
  answer(nowUs: number, id: number, value: string | number | null | readonly unknown[]): void {
    if (this.finished) return;
    this.nowUs = nowUs;
    const w = this.waiters.get(id);
    if (w !== undefined) {
      this.waiters.delete(id);
      w.resolve(w.sleep ? undefined : value);
    }
    this.scheduleFlush();
  }

  /**
   * Queues a request for the next step; its promise settles with the
   * page's answer, in the same promise job as the answer arrives: a cell
   * awaiting a command resumes one reaction after the deliver.
   */
  private request(body: RequestBody): Promise<unknown> {
    if (this.finished) return new Promise(() => {});
    const id = this.nextId++;
    // The body is the caller's own new object: numbered in place rather than copied.
    const req = body as { id?: number };
    req.id = id;
    this.buffer.push(req as CellRequest);
    this.scheduleFlush();
    // An open is never answered: its failure comes back on the commands that use it.
    if (body.op === 'open') return Promise.resolve(undefined);
    const sleep = body.op === 'sleep';
    return new Promise((resolve, reject) => this.waiters.set(id, { resolve, reject, sleep }));
  }

  /** Once the code has run all it can, tells the page it waits (with what it asked for meanwhile). */
  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.host.afterMicrotasks(this.flush);
  }

  /** The task scheduleFlush queues, made once: a cell's engine interprets a closure made each turn. */
  private readonly flush = (): void => {
    this.flushQueued = false;
    if (this.finished) return;
    const requests = this.buffer;
    this.buffer = [];
    this.sendPrinted();
    const progress = this.progressed;
    this.progressed = null;
    this.host.post(progress === null ? { type: 'step', requests } : { type: 'step', requests, progress });
  };

  private finish(error: CellError | null): void {
    if (this.finished) return;
    this.finished = true;
    const requests = this.buffer;
    this.buffer = [];
    this.sendPrinted();
    this.host.post({ type: 'done', error, requests });
  }

  /**
   * A printed text, as lines. Output is held back: the lines go to the page
   * when the code next waits or ends, and at most every PRINT_INTERVAL_MS
   * of wall time while it runs on without waiting. Meanwhile only the newest
   * lines are kept, each cut to MAX_TEXT characters, and the count of those
   * let go goes with them; so a cell printing in a loop, or printing huge
   * strings, neither floods the page nor fills its own memory.
   */
  private print(text: string): void {
    if (this.finished) return;
    for (const line of text.split('\n')) {
      const kept = line.length > MAX_TEXT ? line.slice(0, MAX_TEXT) + '…' : line;
      this.printed.push(kept);
      this.printedChars += kept.length;
    }
    let drop = 0;
    let chars = this.printedChars;
    while (this.printed.length - drop > MAX_KEPT_LINES || (chars > MAX_KEPT_CHARS && this.printed.length - drop > 1)) chars -= this.printed[drop++]!.length;
    if (drop !== 0) {
      this.printed = this.printed.slice(drop);
      this.printedChars = chars;
      this.printDropped += drop;
    }
    const now = this.host.wallNowMs?.();
    if (now !== undefined && now - this.printSentAtMs >= PRINT_INTERVAL_MS) this.sendPrinted();
  }

  private sendPrinted(): void {
    if (this.printed.length === 0 && this.printDropped === 0) return;
    this.host.post({ type: 'print', lines: this.printed, dropped: this.printDropped });
    this.printed = [];
    this.printedChars = 0;
    this.printDropped = 0;
    this.printSentAtMs = this.host.wallNowMs?.() ?? 0;
  }

  /** The names a cell's code sees, with their values. */
  private api(): Record<string, unknown> {
    const channel = { request: (body: RequestBody) => this.request(body) };
    const sleep = (ms: unknown): Promise<void> => {
      const n = Number(ms);
      if (!Number.isFinite(n) || n < 0) return Promise.reject(new RangeError(`sleep(${String(ms)}): give a number of milliseconds`));
      return this.request({ op: 'sleep', ms: n }) as Promise<void>;
    };
    const nowMs = () => this.nowUs / 1000;
    const print = (...args: unknown[]) => this.print(formatArgs(args));
    const connect = (opts?: unknown): CellRedis => new CellRedis(channel, this.nextConn++, connectOptions(opts), true);
    return {
      redis: new CellRedis(channel, 0, {}, false),
      connect,
      // ioredis's constructor: `new Redis({ sentinels, name })`, `new Redis('A:6379')`, `new Redis({ host, port })`.
      Redis: function Redis(opts?: unknown) {
        return connect(opts);
      },
      print,
      report: (name: unknown, value: unknown) => {
        if (typeof name !== 'string' || name === '') throw new TypeError('report(name, value): the name is a non-empty string');
        if (!this.finished) this.host.post({ type: 'report', name, value: plainData(value) });
      },
      progress: (text: unknown, fraction: unknown = null) => {
        const f = fraction === null || fraction === undefined ? null : Number(fraction);
        if (f !== null && !Number.isFinite(f)) throw new TypeError('progress(text, fraction): the fraction is a number from 0 to 1');
        if (!this.finished) this.progressed = { text: String(text), fraction: f === null ? null : Math.min(1, Math.max(0, f)) };
      },
      sleep,
      time: () => this.nowUs / 1e6,
      console: Object.freeze({ log: print, info: print, warn: print, error: print, debug: print }),
      ...virtualTimers(sleep),
      Date: virtualDate(nowMs),
      performance: Object.freeze({ now: () => (this.nowUs - this.startUs) / 1000, timeOrigin: this.startUs / 1000 }),
    };
  }
}

/**
 * A failed command's error, its stack taken away. QuickJS, the cell's
 * engine, gives an Error thrown without a stack the stack of the place it
 * is thrown: rejected into the cell's code, it points at the line that
 * awaits the command (`await redis.hget(...)`), which is the line the cell
 * needs to see. Made here, its stack would hold only the runtime's frames;
 * the alternative, an Error made at every command to keep the stack of
 * its call, costs a cell's engine a tenth of its time in a benchmark.
 */
function withoutStack(e: Error): Error {
  delete (e as { stack?: string }).stack;
  return e;
}

/** setTimeout and setInterval on virtual time: each wait is a sleep the page carries out. */
function virtualTimers(sleep: (ms: number) => Promise<void>) {
  let next = 1;
  const live = new Set<number>();
  const setTimeout = (fn: unknown, ms: unknown = 0, ...args: unknown[]): number => {
    if (typeof fn !== 'function') throw new TypeError('setTimeout in a cell takes a function');
    const id = next++;
    live.add(id);
    void sleep(Math.max(0, Number(ms) || 0)).then(() => {
      if (!live.delete(id)) return;
      (fn as (...a: unknown[]) => void)(...args);
    });
    return id;
  };
  const setInterval = (fn: unknown, ms: unknown = 0, ...args: unknown[]): number => {
    if (typeof fn !== 'function') throw new TypeError('setInterval in a cell takes a function');
    const id = next++;
    const period = Math.max(1, Number(ms) || 0);
    live.add(id);
    const tick = (): void => {
      void sleep(period).then(() => {
        if (!live.has(id)) return;
        (fn as (...a: unknown[]) => void)(...args);
        tick();
      });
    };
    tick();
    return id;
  };
  const clear = (id: unknown): void => {
    live.delete(Number(id));
  };
  return { setTimeout, setInterval, clearTimeout: clear, clearInterval: clear };
}

/** Date whose `new Date()` and `Date.now()` read virtual time. */
function virtualDate(nowMs: () => number): DateConstructor {
  class VirtualDate extends Date {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(nowMs());
      else super(...(args as [string]));
    }
    static override now(): number {
      return Math.floor(nowMs());
    }
  }
  return VirtualDate as unknown as DateConstructor;
}
