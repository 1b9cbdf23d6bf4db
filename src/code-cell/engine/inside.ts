/**
 * The cell's side of a run, as it runs inside the cell's engine (QuickJS
 * compiled to WebAssembly, engine/quickjs-cell.ts): the same CellRuntime
 * as anywhere, its messages carried out as JSON text (json-wire.ts).
 * Everything the cell's code can make lives in the engine's memory, whose
 * size has a hard maximum.
 *
 * This file is bundled into one script (scripts/cell-engine-plugin.ts)
 * that the engine evaluates, wrapped in a function so that it leaves no
 * global behind; the script's value is the object below, which only the
 * host keeps. The host gives it its few functions in `__cellHost`, which
 * this script takes and removes before any cell code can see it.
 */
import { CellRuntime } from '../cell-runtime.js';
import type { CompileFunction } from '../cell-source.js';
import { lockDown } from '../lockdown.js';
import type { CellMessage, PageMessage, StartMessage } from '../protocol.js';
import { decodeWire, encodeWireInEngine } from './json-wire.js';

/** What the host gives the engine (see quickjs-cell.ts). */
export interface EngineHost {
  /** A message for the page, as JSON text with its bytes beside it. */
  post(json: string, ...buffers: ArrayBuffer[]): void;
  compile: CompileFunction;
  wallNowMs(): number;
}

/** An answer given as itself: a string, a number, null, or a list of them (a pipeline's answers). */
export type PlainAnswer = string | number | null | readonly PlainAnswer[];

/** What the host calls in the engine. */
export interface EngineEntry {
  /** A message from the page. */
  receive(json: string, ...buffers: ArrayBuffer[]): void;
  /**
   * A deliver of one answer that is a string, a number, null or a list
   * of them, given as the values themselves: the answer a cell awaiting
   * one command or pipeline at a time gets every turn, without a JSON
   * text to write and parse.
   */
  deliverOne(nowUs: number, id: number, value: PlainAnswer): void;
  /**
   * Runs the oldest queued task, if any. Says whether more are queued
   * after it ("1") or not ("0"), followed by the JSON text of the step the
   * task posted, if it posted one without bytes: the step every turn of a
   * cell ends with goes out as the call's value, not as a call back into
   * the host, which costs the engine's wrappers several times more.
   */
  runTask(): string;
}

const g = globalThis as unknown as { __cellHost?: EngineHost };
const host = g.__cellHost!;
delete g.__cellHost;

const tasks: Array<() => void> = [];
let runtime: CellRuntime | null = null;
/** While a task runs: the JSON text of the step it posted, kept for runTask's value. */
let inTask = false;
let stepText = '';

const post = (msg: CellMessage): void => {
  const { json, buffers } = encodeWireInEngine(msg);
  if (inTask && msg.type === 'step' && buffers.length === 0 && stepText === '') stepText = json;
  else host.post(json, ...buffers);
};

const entry: EngineEntry = {
  receive(json, ...buffers) {
    const msg = decodeWire(json, buffers) as PageMessage;
    if (msg.type !== 'start') {
      runtime?.receive(msg);
      return;
    }
    if (runtime !== null) return;
    // The engine holds nothing that reaches out of it; this takes away what would make code from text once the cell is compiled.
    const left = lockDown();
    if (left.length !== 0) {
      post({ type: 'done', requests: [], error: { name: 'Error', message: `The cell's engine keeps ${left.join(', ')} in reach of a cell, so cells do not run here.`, line: null, column: null } });
      return;
    }
    seedRandom(msg.nowUs);
    runtime = new CellRuntime({ post, afterMicrotasks: (fn) => tasks.push(fn), compile: host.compile, wallNowMs: host.wallNowMs }, msg as StartMessage);
    runtime.run();
  },
  deliverOne(nowUs, id, value) {
    runtime?.answer(nowUs, id, value);
  },
  runTask() {
    const task = tasks.shift();
    if (task === undefined) return '0';
    inTask = true;
    stepText = '';
    try {
      task();
    } finally {
      inTask = false;
    }
    const text = stepText;
    stepText = '';
    return (tasks.length !== 0 ? '1' : '0') + text;
  },
};

/**
 * Math.random from a seed, the world's clock at the cell's start: the
 * engine's own is seeded from the real clock, and a cell must run again
 * the same when a worker takes it over (quiet.ts). A small generator
 * (mulberry32), good enough for a cell's sampling and shuffling.
 */
function seedRandom(seed: number): void {
  let state = (seed % 0x100000000) >>> 0;
  Math.random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export default entry;
