import { DEFAULT_EPOCH_US, type Clock } from './clock.js';
import { Random } from './random.js';
import { Trace } from './trace.js';

/**
 * The heart of the simulated world: one clock in integer microseconds and
 * one queue of events ordered by (time, sequence). Nothing in the world
 * happens except as an event taken from this queue, so the same seed and the
 * same inputs always give the same history.
 *
 *   const k = new Kernel({ seed: 7 });
 *   k.after(1500, () => console.log('1.5 ms later'));
 *   k.advance(2);             // runs it, the clock now reads 2 ms later
 */

/** A scheduled event. Cancelling clears `fn`; the entry is skipped when due. */
export interface SimEvent {
  readonly at: number;
  readonly seq: number;
  fn: (() => void) | null;
}

export interface KernelOptions {
  seed?: number;
  /** Virtual time at the start, microseconds since the Unix epoch. */
  startUs?: number;
}

/** What an exception thrown by an event becomes: a trace line, never an escape. */
export type FaultHandler = (error: unknown) => void;

export class Kernel implements Clock {
  /** The current virtual time in microseconds since the Unix epoch. */
  now: number;
  readonly startUs: number;
  readonly seed: number;
  readonly random: Random;
  readonly trace: Trace;
  private heap: SimEvent[] = [];
  private seq = 0;
  /** Events run so far, for the determinism tests and the speed figures. */
  eventsRun = 0;
  /** Set when an event resolved a promise: async drivers yield to let it run. */
  promisesSettled = false;
  /**
   * The machine's clock when the world runs in real time (npm run server),
   * else null. Work done outside the model takes machine time there while
   * virtual time stands still (reading a 100 MB dump.rdb from a real disk
   * takes seconds), and virtual time jumps ahead by as much at the next
   * tick; lagUs() tells a process how far, so that what it models next
   * starts after that work instead of having already run out.
   */
  outsideNowUs: (() => number) | null = null;

  constructor(opts: KernelOptions = {}) {
    this.seed = opts.seed ?? 1;
    this.startUs = opts.startUs ?? DEFAULT_EPOCH_US;
    this.now = this.startUs;
    this.random = new Random(this.seed);
    this.trace = new Trace(() => this.now - this.startUs);
  }

  nowUs(): number {
    return this.now;
  }

  /** How far the machine's clock has run past virtual time (0 in a simulated world). */
  lagUs(): number {
    return this.outsideNowUs === null ? 0 : Math.max(0, Math.round(this.outsideNowUs() - this.now));
  }

  /** Milliseconds of virtual time since the world began. */
  get elapsedMs(): number {
    return (this.now - this.startUs) / 1000;
  }

  /** Schedules `fn` at absolute time `at` (never earlier than now). */
  at(at: number, fn: () => void): SimEvent {
    const ev: SimEvent = { at: at > this.now ? Math.round(at) : this.now, seq: this.seq++, fn };
    const heap = this.heap;
    // Sift up.
    let i = heap.length;
    heap.push(ev);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.at < ev.at || (p.at === ev.at && p.seq < ev.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = ev;
    return ev;
  }

  /** Schedules `fn` after `delayUs` microseconds. */
  after(delayUs: number, fn: () => void): SimEvent {
    return this.at(this.now + delayUs, fn);
  }

  cancel(ev: SimEvent | null | undefined): void {
    if (ev) ev.fn = null;
  }

  /** The time of the next live event, or Infinity when the queue is empty. */
  nextEventTime(): number {
    const heap = this.heap;
    while (heap.length !== 0 && heap[0]!.fn === null) this.pop();
    return heap.length === 0 ? Infinity : heap[0]!.at;
  }

  private pop(): SimEvent {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    const n = heap.length;
    if (n !== 0) {
      // Sift down.
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        let c = l;
        let child = heap[l]!;
        if (r < n) {
          const rc = heap[r]!;
          if (rc.at < child.at || (rc.at === child.at && rc.seq < child.seq)) {
            c = r;
            child = rc;
          }
        }
        if (last.at < child.at || (last.at === child.at && last.seq < child.seq)) break;
        heap[i] = child;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }

  /**
   * Runs the next event if it is due no later than `limit`; returns false
   * when there is none. An exception from an event is recorded in the trace
   * and does not stop the world.
   */
  step(limit = Infinity): boolean {
    const heap = this.heap;
    for (;;) {
      if (heap.length === 0) return false;
      const top = heap[0]!;
      if (top.at > limit) return false;
      this.pop();
      const fn = top.fn;
      if (fn === null) continue;
      top.fn = null;
      this.now = top.at;
      this.eventsRun++;
      try {
        fn();
      } catch (error) {
        this.trace.add('sim', 'fault', errorText(error));
      }
      return true;
    }
  }

  /** Runs every event up to `untilUs` and leaves the clock there. */
  runUntilTime(untilUs: number): void {
    while (this.step(untilUs));
    if (untilUs > this.now) this.now = Math.round(untilUs);
  }

  /** Manual driver: lets `ms` milliseconds of virtual time pass. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot advance by ${ms} ms`);
    this.runUntilTime(this.now + Math.round(ms * 1000));
  }

  /**
   * Manual driver: runs events until `done()` holds, or until `maxMs` of
   * virtual time have passed. Returns whether `done()` held.
   */
  runUntil(done: () => boolean, opts: { maxMs?: number } = {}): boolean {
    const limit = this.now + Math.round((opts.maxMs ?? 60_000) * 1000);
    while (!done()) {
      if (!this.step(limit)) {
        if (limit > this.now) this.now = limit;
        return done();
      }
    }
    return true;
  }

  /**
   * The async form of runUntil for code written with promises (the client
   * library): after every event that settled a promise, the awaiting code
   * runs before the next event, so it sees replies at their virtual time.
   */
  async runUntilAsync(done: () => boolean, opts: { maxMs?: number } = {}): Promise<boolean> {
    const limit = this.now + Math.round((opts.maxMs ?? 60_000) * 1000);
    await drainMicrotasks();
    while (!done()) {
      if (!this.step(limit)) {
        if (limit > this.now) this.now = limit;
        await drainMicrotasks();
        return done();
      }
      if (this.promisesSettled) {
        this.promisesSettled = false;
        await drainMicrotasks();
      }
    }
    return true;
  }

  /**
   * For code running inside the world (driven by runUntilAsync or settle):
   * resolves after `ms` of virtual time, as setTimeout would in real time.
   * Unlike advanceAsync it drives nothing itself, so it is safe to await
   * from code that the world is already running.
   */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.after(Math.round(ms * 1000), () => {
        this.promisesSettled = true;
        resolve();
      });
    });
  }

  /** The async form of advance(). */
  async advanceAsync(ms: number): Promise<void> {
    const until = this.now + Math.round(ms * 1000);
    await this.runUntilAsync(() => this.now >= until && this.nextEventTime() > until, { maxMs: ms });
  }

  /**
   * Runs until `promise` settles (the world moving on meanwhile) and returns
   * its value: how tests and lesson checks await a client call.
   *
   *   const v = await world.kernel.settle(r.get('k'));
   */
  async settle<T>(promise: Promise<T>, opts: { maxMs?: number } = {}): Promise<T> {
    let state: 'pending' | 'done' | 'failed' = 'pending';
    let value: T | undefined;
    let error: unknown;
    promise.then(
      (v) => {
        state = 'done';
        value = v;
      },
      (e: unknown) => {
        state = 'failed';
        error = e;
      },
    );
    await this.runUntilAsync(() => state !== 'pending', opts);
    if (state === 'pending') throw new Error(`still waiting after ${opts.maxMs ?? 60_000} ms of virtual time`);
    if (state === 'failed') throw error;
    return value as T;
  }
}

/**
 * Lets pending promise reactions run. Each await is one turn of the
 * microtask queue; chains of awaits in user code need several.
 */
async function drainMicrotasks(): Promise<void> {
  for (let i = 0; i < 24; i++) await undefined;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
