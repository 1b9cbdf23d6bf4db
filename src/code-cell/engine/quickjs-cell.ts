import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant, type EitherFFI, type JSContextPointer, type JSContextPointerPointer, type JSRuntimePointer, type JSValueConstPointer, type JSValueConstPointerPointer, type JSValuePointer, type BorrowedHeapCharPointer, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from 'quickjs-emscripten-core';
import engineSource from 'virtual:cell-engine';
import type { CellError, CellMessage, PageMessage } from '../protocol.js';
import type { EngineEntry, EngineHost } from './inside.js';
import { decodeWire, encodeWire } from './json-wire.js';

/**
 * The most memory a cell's engine has, in all: its WebAssembly memory
 * cannot grow past it, whatever the cell's code does. The engine's own
 * code and structures take about 2 MB of it.
 */
export const CELL_MEMORY_BYTES = 64 * 1024 * 1024;
const WASM_PAGE_BYTES = 65536;
/** The memory the engine starts with, as its build expects. */
const INITIAL_MEMORY_BYTES = 16 * 1024 * 1024;
/** A failure with at least this much of the memory in use is the cell's memory running out. */
const NEARLY_FULL_BYTES = CELL_MEMORY_BYTES - 4 * 1024 * 1024;
/**
 * How deep the engine's own stack may grow, kept well below what a
 * browser's worker thread allows the WebAssembly frames under it, so deep
 * recursion in a cell is the engine's RangeError, not the worker's.
 */
const ENGINE_STACK_BYTES = 200 * 1024;

/** The error a cell ends with when its memory runs out. */
export const OUT_OF_MEMORY: CellError = {
  name: 'Out of memory',
  message: `the cell used all of its ${CELL_MEMORY_BYTES / 1024 / 1024} MB and was stopped`,
  line: null,
  column: null,
};

export interface QuickJsCellOptions {
  /**
   * The engine's WebAssembly code, or that code compiled (a module
   * compiled once serves every engine after it); where absent, its
   * package finds it (Node reads the file beside it).
   */
  readonly wasm?: ArrayBuffer | WebAssembly.Module;
  /** A message for the page. */
  post(msg: CellMessage): void;
  wallNowMs(): number;
  /**
   * Wall ms a turn may run before the engine cuts it short (none by
   * default). A cut turn posts nothing more and ends the engine: the page
   * then runs the cell again where a cell may spin without holding it.
   */
  readonly turnLimitMs?: number;
}

/** How a message's turn ended: ran until the cell waited or ended, or was cut short at the turn limit. */
export type TurnOutcome = 'ran' | 'cut';

/** What quickjs-emscripten keeps of the Emscripten module: its allocator, to see that a copy in will fit. */
interface Allocator {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/**
 * A code cell's side of a run, in an engine of its own: QuickJS compiled to
 * WebAssembly, with a memory that has a hard maximum (CELL_MEMORY_BYTES).
 * The cell's runtime (engine/inside.ts, bundled as `virtual:cell-engine`)
 * runs inside it; this host carries messages in and out as JSON text,
 * gives it its compiler, and runs its promise jobs and tasks until it waits
 * for the page. A cell that fills its memory gets QuickJS's out-of-memory
 * error; whatever way that shows (the cell's own error, a failed copy in,
 * a turn that ends without a word), the run ends with OUT_OF_MEMORY and
 * the engine is dropped. The page's Web Worker runs one per run
 * (src/web/code-cell/cell-worker.ts); tests and lesson replays run one in
 * their own process (run-in-process.ts).
 *
 *   const cell = await QuickJsCell.create({ post: (m) => executor.receive(m), wallNowMs: () => performance.now() });
 *   cell.receive(startMessage);   // then each deliver
 */
export class QuickJsCell {
  /** The run has ended: the cell posted its done, or failed; nothing more goes in or out. */
  private ended = false;
  private disposed = false;
  /** Steps and dones posted: every turn of the cell ends with one. */
  private turnsEnded = 0;
  /**
   * When the running turn was first asked about by the interrupt handler
   * (wall ms; -1 before that), and whether the handler has cut it. The
   * clock is read only when QuickJS asks, every few thousand operations,
   * not for every turn: nearly all turns end before it first asks.
   */
  private turnStartMs = -1;
  private cut = false;
  /**
   * Messages the engine has posted by calling back into the host, each a
   * crossing that costs more than the rest of a short turn; a turn's step
   * comes back as a call's value instead, so a cell awaiting one command
   * at a time makes none.
   */
  callsFromEngine = 0;
  /** Messages from the page copied into the engine as JSON text; a deliver of one plain answer goes as values instead. */
  textsIntoEngine = 0;
  /**
   * Calls into the engine made through quickjs-emscripten's handles, each
   * a few µs of allocations, pointer arrays and lifetimes around the call:
   * a turn's deliver of one plain answer and its runTask go through the
   * FFI beneath them (RawCalls) instead, when the package's pieces are there.
   */
  callsThroughHandles = 0;

  private constructor(
    private readonly opts: QuickJsCellOptions,
    private readonly runtime: QuickJSRuntime,
    private readonly vm: QuickJSContext,
    private readonly memory: WebAssembly.Memory,
    private readonly allocator: Allocator | null,
    private readonly entry: QuickJSHandle,
    private readonly receiveFn: QuickJSHandle,
    private readonly deliverOneFn: QuickJSHandle,
    private readonly runTaskFn: QuickJSHandle,
    private readonly raw: RawCalls | null,
  ) {}

  static async create(opts: QuickJsCellOptions): Promise<QuickJsCell> {
    const memory = new WebAssembly.Memory({ initial: INITIAL_MEMORY_BYTES / WASM_PAGE_BYTES, maximum: CELL_MEMORY_BYTES / WASM_PAGE_BYTES });
    // Given its code, the engine must not work out where its file is: in a worker made from a blob: URL it cannot.
    const given = opts.wasm === undefined ? {} : opts.wasm instanceof WebAssembly.Module ? { wasmModule: opts.wasm, locateFile: (name: string) => name } : { wasmBinary: opts.wasm, locateFile: (name: string) => name };
    const module = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory, ...given }));
    const runtime = module.newRuntime();
    runtime.setMaxStackSize(ENGINE_STACK_BYTES);
    const vm = runtime.newContext();
    const found = (module as unknown as { module?: Partial<Allocator> }).module;
    const allocator = typeof found?._malloc === 'function' && typeof found._free === 'function' ? (found as Allocator) : null;
    let cell: QuickJsCell | null = null;
    const host = vm.newObject();
    const hostFunctions: Record<keyof EngineHost, QuickJSHandle> = {
      post: vm.newFunction('post', (json, ...buffers) => cell?.fromEngine(json, buffers)),
      compile: vm.newFunction('compile', (params, body, url) => compileIn(vm, params, body, url)),
      // With a turn limit, a turn's output goes to the page when it ends anyway: the runtime is given no clock to pace it by.
      wallNowMs: vm.newFunction('wallNowMs', () => vm.newNumber(opts.turnLimitMs === undefined ? opts.wallNowMs() : -Infinity)),
    };
    for (const [name, fn] of Object.entries(hostFunctions)) {
      vm.setProp(host, name, fn);
      fn.dispose();
    }
    vm.setProp(vm.global, '__cellHost', host);
    host.dispose();
    // The bundle's value is its entry object; wrapped in a function, its one variable stays out of the global scope.
    const entry = vm.unwrapResult(vm.evalCode(`(function () {\n${engineSource}\nreturn cellEngine.default;\n})()`, 'cell-engine.js'));
    cell = new QuickJsCell(
      opts,
      runtime,
      vm,
      memory,
      allocator,
      entry,
      vm.getProp(entry, 'receive' satisfies keyof EngineEntry),
      vm.getProp(entry, 'deliverOne' satisfies keyof EngineEntry),
      vm.getProp(entry, 'runTask' satisfies keyof EngineEntry),
      rawCalls(vm, module),
    );
    const limit = opts.turnLimitMs;
    if (limit !== undefined) {
      const made = cell;
      // QuickJS asks every few thousand operations; once true, the turn ends with an error no cell code can catch.
      runtime.setInterruptHandler(() => {
        const now = opts.wallNowMs();
        if (made.turnStartMs < 0) made.turnStartMs = now;
        return (made.cut ||= now - made.turnStartMs > limit);
      });
    }
    return cell;
  }

  /** A message from the page: the start, then each deliver. */
  receive(msg: PageMessage): TurnOutcome {
    if (this.ended) return 'ran';
    const turnsBefore = this.turnsEnded;
    this.turnStartMs = -1;
    try {
      const one = msg.type === 'deliver' && msg.results.length === 1 ? msg.results[0]! : null;
      if (one !== null && one.ok && this.raw !== null && isPlainTree(one.value, 0)) {
        this.deliverOneRaw(this.raw, msg.nowUs, one.id, one.value);
      } else if (one !== null && one.ok && isPlainAnswer(one.value)) {
        this.callsThroughHandles++;
        const value = one.value === null ? this.vm.null : typeof one.value === 'number' ? this.vm.newNumber(one.value) : this.newString(one.value);
        const args = [this.vm.newNumber(msg.nowUs), this.vm.newNumber(one.id), value];
        try {
          this.check(this.vm.callFunction(this.deliverOneFn, this.entry, ...args));
        } finally {
          for (const a of args) a.dispose();
        }
      } else {
        this.textsIntoEngine++;
        this.callsThroughHandles++;
        const { json, buffers } = encodeWire(msg);
        const args = [this.newString(json), ...buffers.map((b) => this.newArrayBuffer(b))];
        try {
          this.check(this.vm.callFunction(this.receiveFn, this.entry, ...args));
        } finally {
          for (const a of args) a.dispose();
        }
      }
      this.runUntilWaiting();
    } catch (e) {
      if (this.cut) return this.cutShort();
      this.fail(e);
      return 'ran';
    }
    if (this.cut) return this.cutShort();
    // A turn ends with a step or a done; one that ended with neither lost its way out, as when its memory ran out.
    if (!this.ended && this.turnsEnded === turnsBefore) this.fail(new Error('the cell stopped without a word'));
    if (this.ended) this.dispose();
    return 'ran';
  }

  /** The turn ran past the limit: the engine is ended without another word (what it posted in this turn is for the caller to drop). */
  private cutShort(): TurnOutcome {
    this.dispose();
    return 'cut';
  }

  /** The engine's own count of the memory blocks it has in use, and their bytes. */
  memoryInUse(): { blocks: number; bytes: number } {
    const usage = this.runtime.computeMemoryUsage();
    try {
      const u = this.vm.dump(usage) as { malloc_count: number; memory_used_size: number };
      return { blocks: u.malloc_count, bytes: u.memory_used_size };
    } finally {
      usage.dispose();
    }
  }

  /** Ends the run now and frees the engine. */
  dispose(): void {
    this.ended = true;
    if (this.disposed) return;
    this.disposed = true;
    try {
      for (const h of [this.receiveFn, this.deliverOneFn, this.runTaskFn, this.entry]) h.dispose();
      this.raw?.free();
      this.vm.dispose();
      this.runtime.dispose();
    } catch {
      // An engine that failed may not free cleanly; it is dropped all the same.
    }
  }

  /**
   * Promise jobs, then queued tasks one by one, until the cell has nothing
   * left to do. The engine says whether more tasks wait after the one it
   * ran, and the runtime whether any promise job does: when neither does,
   * the calls that would find nothing are not made (a turn of a cell is
   * then two calls into the engine, not four). A task's step comes back as
   * the call's value (EngineEntry.runTask).
   */
  private runUntilWaiting(): void {
    for (;;) {
      if (this.hasPendingJob()) {
        this.runPendingJobs();
        if (this.ended) return;
      }
      const ran = this.runTask();
      if (ran.length > 1) this.fromEngineText(ran.slice(1), []);
      if (this.ended || (ran[0] !== '1' && !this.hasPendingJob())) return;
    }
  }

  private hasPendingJob(): boolean {
    const raw = this.raw;
    return raw === null ? this.runtime.hasPendingJob() : raw.ffi.QTS_IsJobPending(raw.rt) !== 0;
  }

  /**
   * Runs every pending promise job; what a job threw (only what no promise
   * catches: the turn's interruption, the memory running out) is thrown.
   * Through the FFI, the runtime's wrapper costs a pointer array, two
   * lifetimes and the result's type read back as text on every turn.
   */
  private runPendingJobs(): void {
    const raw = this.raw;
    if (raw === null) {
      this.callsThroughHandles++;
      const jobs = this.runtime.executePendingJobs(-1);
      if (jobs.error === undefined) return;
      const error = jobs.error;
      jobs.dispose();
      this.check({ error });
      return;
    }
    const { ffi, ctx, rt } = raw;
    // The value is the count of jobs run, or what the last one threw; the slot says in which context (none when no job ran).
    const result = ffi.QTS_ExecutePendingJob(rt, -1, raw.out);
    if (raw.outValue() === 0) {
      ffi.QTS_FreeValuePointerRuntime(rt, result);
      return;
    }
    const type = ffi.QTS_Typeof(ctx, result);
    // "number" is the only type whose name begins with "n".
    const count = raw.heap()[type] === 0x6e;
    // Made by the C library's own malloc, not the engine's: freed the same way (the engine's free would
    // take it off its count of memory in use, which then reads as always over the threshold of its GC).
    raw.release(type);
    if (count) ffi.QTS_FreeValuePointer(ctx, result);
    else this.throwIfError({ error: raw.handle(result) });
  }

  /** The oldest queued task of the engine run: its value (EngineEntry.runTask). */
  private runTask(): string {
    const raw = this.raw;
    if (raw === null) {
      this.callsThroughHandles++;
      return this.text(this.vm.callFunction(this.runTaskFn, this.entry));
    }
    const result = this.callRaw(raw, this.runTaskFn, 0);
    const { ffi, ctx } = raw;
    try {
      const chars = ffi.QTS_GetString(ctx, result);
      const text = raw.text(chars);
      ffi.QTS_FreeCString(ctx, chars);
      return text;
    } finally {
      ffi.QTS_FreeValuePointer(ctx, result);
    }
  }

  /** EngineEntry.deliverOne, its values made and freed in the engine directly. */
  private deliverOneRaw(raw: RawCalls, nowUs: number, id: number, value: PlainTree): void {
    const { ffi, ctx } = raw;
    const now = ffi.QTS_NewFloat64(ctx, nowUs);
    const idValue = ffi.QTS_NewFloat64(ctx, id);
    let answer: JSValuePointer | null = null;
    try {
      answer = this.valueIn(raw, value);
      raw.args(now, idValue, answer ?? ffi.QTS_GetNull());
      ffi.QTS_FreeValuePointer(ctx, this.callRaw(raw, this.deliverOneFn, 3));
    } finally {
      ffi.QTS_FreeValuePointer(ctx, now);
      ffi.QTS_FreeValuePointer(ctx, idValue);
      if (answer !== null) ffi.QTS_FreeValuePointer(ctx, answer);
    }
  }

  /**
   * A plain answer made in the engine, for the caller to free; null for
   * null, the engine's own constant. A list (a pipeline's answers) is made
   * item by item: the engine keeps its own reference to each.
   */
  private valueIn(raw: RawCalls, v: PlainTree): JSValuePointer | null {
    const { ffi, ctx } = raw;
    if (v === null) return null;
    if (typeof v === 'number') return ffi.QTS_NewFloat64(ctx, v);
    if (typeof v === 'string') {
      const short = this.shortString(raw, v);
      if (short !== null) return short;
      const handle = this.newString(v);
      // The handle's pointer is handed over: freed by the caller, not the handle.
      return handle.value as JSValuePointer;
    }
    const list = ffi.QTS_NewArray(ctx);
    try {
      for (let i = 0; i < v.length; i++) {
        const key = ffi.QTS_NewFloat64(ctx, i);
        const item = this.valueIn(raw, v[i]!);
        ffi.QTS_SetProp(ctx, list, key, item ?? ffi.QTS_GetNull());
        ffi.QTS_FreeValuePointer(ctx, key);
        if (item !== null) ffi.QTS_FreeValuePointer(ctx, item);
      }
    } catch (e) {
      ffi.QTS_FreeValuePointer(ctx, list);
      throw e;
    }
    return list;
  }

  /** Calls `fn` of the entry with the first `argc` of raw's arguments: its value (for the caller to free), or its error thrown. */
  private callRaw(raw: RawCalls, fn: QuickJSHandle, argc: number): JSValuePointer {
    const { ffi, ctx } = raw;
    const result = ffi.QTS_Call(ctx, fn.value, this.entry.value, argc, raw.argv);
    const error = ffi.QTS_ResolveException(ctx, result);
    if (error === 0) return result;
    ffi.QTS_FreeValuePointer(ctx, result);
    this.throwIfError({ error: raw.handle(error) });
    return result;
  }

  /** A call's value dropped, or its error thrown. */
  private check(result: { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle; value?: undefined }): void {
    this.throwIfError(result);
    result.value?.dispose();
  }

  /** A call's value as text (runTask's), or its error thrown. */
  private text(result: { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle; value?: undefined }): string {
    this.throwIfError(result);
    const value = this.vm.getString(result.value!);
    result.value!.dispose();
    return value;
  }

  private throwIfError(result: { error?: QuickJSHandle }): void {
    if (result.error === undefined) return;
    let error: unknown;
    try {
      error = this.vm.dump(result.error);
    } catch {
      error = null;
    }
    result.error.dispose();
    throw new EngineError(error);
  }

  /** A message the cell's runtime posts. */
  private fromEngine(json: QuickJSHandle | undefined, buffers: QuickJSHandle[]): void {
    this.callsFromEngine++;
    if (this.ended || this.cut || json === undefined) return;
    const bytes = buffers.map((h) => this.vm.getArrayBuffer(h).consume((view) => view.value.slice().buffer));
    this.fromEngineText(this.vm.getString(json), bytes);
  }

  private fromEngineText(json: string, bytes: ArrayBuffer[]): void {
    if (this.ended || this.cut) return;
    let msg = decodeWire(json, bytes) as CellMessage;
    if (msg.type === 'step' || msg.type === 'done') this.turnsEnded++;
    if (msg.type === 'done' && msg.error !== null && (isOutOfMemory(msg.error) || (this.nearlyFull() && msg.error.message === 'Uncaught null'))) msg = { ...msg, error: OUT_OF_MEMORY };
    if (msg.type === 'done') this.ended = true;
    this.opts.post(msg);
  }

  /** Ends the run on a failure of the engine: out of memory when that is what it was, else what failed. */
  private fail(e: unknown): void {
    if (this.ended) return;
    const error = e instanceof EngineError ? e.error : e;
    const described = describe(error);
    const outOfMemory = this.nearlyFull() || e instanceof OutOfEngineMemory || (described !== null && isOutOfMemory(described));
    this.opts.post({
      type: 'done',
      requests: [],
      error: outOfMemory ? OUT_OF_MEMORY : { name: 'Error', message: `The cell's engine failed: ${described?.message ?? 'no reason given'}`, line: null, column: null },
    });
    this.dispose();
  }

  /**
   * Whether the engine's memory has grown to within a few MB of its
   * maximum. QuickJS's out-of-memory error is an InternalError, or, when
   * even that cannot be made, null: a cell that ends on null with its
   * memory this full ran out of it.
   */
  private nearlyFull(): boolean {
    return this.memory.buffer.byteLength >= NEARLY_FULL_BYTES;
  }

  /**
   * A string copied into the engine. quickjs-emscripten does not check
   * that its allocations succeed, so room for the copy and for the
   * engine's own string is made first and given back: a copy that cannot
   * fit is the cell's memory running out, never a write to nowhere.
   */
  private newString(s: string): QuickJSHandle {
    const utf8 = utf8Length(s);
    // The copy as UTF-8, then the engine's string: one byte a character when every one fits in a byte, else two.
    this.makeRoom(utf8 + (utf8 === s.length ? s.length : 2 * s.length) + 4096);
    return this.vm.newString(s);
  }

  /**
   * A short ASCII string made in the engine from a buffer kept for the
   * engine's life, for the caller to free; null for any other string
   * (newString's way). While the engine's memory is well short of its
   * maximum, a string this small always fits: it can grow by more.
   */
  private shortString(raw: RawCalls, s: string): JSValuePointer | null {
    if (s.length > SHORT_TEXT_BYTES || this.nearlyFull()) return null;
    const p = raw.scratch();
    if (p === 0) return null;
    const heap = raw.heap();
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return null;
      heap[p + i] = c;
    }
    heap[p + s.length] = 0;
    return raw.ffi.QTS_NewString(raw.ctx, p as BorrowedHeapCharPointer);
  }

  private newArrayBuffer(b: ArrayBuffer): QuickJSHandle {
    this.makeRoom(b.byteLength * 2 + 4096);
    return this.vm.newArrayBuffer(b);
  }

  private makeRoom(bytes: number): void {
    if (bytes > CELL_MEMORY_BYTES) throw new OutOfEngineMemory();
    if (this.allocator === null) return;
    const p = this.allocator._malloc(bytes);
    if (p === 0) throw new OutOfEngineMemory();
    this.allocator._free(p);
  }
}

/**
 * The FFI under quickjs-emscripten's handles, for the two calls every
 * turn of a cell makes. Through the handles, a call builds an array of
 * pointers in the engine's memory, a lifetime object per argument and
 * result, and frees them after: about 3 µs of the host's time for a
 * call whose work in the engine takes less than 1 µs. Here the argument
 * pointers go into one block made with the engine and kept for its life.
 * The package does not export these pieces: when a version lacks them,
 * the calls go through the handles as before.
 */
interface RawCalls {
  readonly ffi: Pick<EngineFfi, (typeof RAW_FUNCTIONS)[number]>;
  readonly ctx: JSContextPointer;
  readonly rt: JSRuntimePointer;
  /** The block of argument pointers. */
  readonly argv: JSValueConstPointerPointer;
  /** A slot after them, for a pointer the engine gives back (the context of the last job run). */
  readonly out: JSContextPointerPointer;
  /** Writes the arguments of the next call into the block. */
  args(...values: Array<JSValuePointer | JSValueConstPointer>): void;
  /** What the engine wrote into the slot. */
  outValue(): number;
  /** Frees what the C library's malloc made. */
  release(pointer: number): void;
  /** The engine's memory as bytes (a new view after it grows). */
  heap(): Uint8Array;
  /** A block of SHORT_TEXT_BYTES + 1 bytes kept for the engine's life, for short strings copied in (0 when it cannot be made). */
  scratch(): number;
  /** The text of a NUL-terminated UTF-8 string in the engine's memory. */
  text(pointer: number): string;
  /** A handle for a value the engine returned (an error, to dump). */
  handle(pointer: JSValuePointer): QuickJSHandle;
  free(): void;
}

type EngineFfi = EitherFFI;

const RAW_FUNCTIONS = [
  'QTS_Call',
  'QTS_ResolveException',
  'QTS_FreeValuePointer',
  'QTS_FreeValuePointerRuntime',
  'QTS_NewFloat64',
  'QTS_GetNull',
  'QTS_GetString',
  'QTS_FreeCString',
  'QTS_NewArray',
  'QTS_SetProp',
  'QTS_ExecutePendingJob',
  'QTS_IsJobPending',
  'QTS_Typeof',
  'QTS_NewString',
] as const;

/** Strings up to this many bytes, all ASCII, are read from the engine's memory here rather than through a TextDecoder call. */
const SHORT_TEXT_BYTES = 4096;

function rawCalls(vm: QuickJSContext, wasm: unknown): RawCalls | null {
  const inner = vm as unknown as { ffi?: RawCalls['ffi']; ctx?: { value?: JSContextPointer }; rt?: { value?: JSRuntimePointer }; memory?: { heapValueHandle?(p: JSValuePointer): QuickJSHandle } };
  const module = (wasm as { module?: { HEAPU8?: Uint8Array; UTF8ToString?: unknown; _malloc?: unknown; _free?: unknown } }).module;
  const ffi = inner.ffi;
  const ctx = inner.ctx?.value;
  const rt = inner.rt?.value;
  const memory = inner.memory;
  if (ffi === undefined || ctx === undefined || rt === undefined || typeof memory?.heapValueHandle !== 'function' || module === undefined) return null;
  if (!(module.HEAPU8 instanceof Uint8Array) || typeof module.UTF8ToString !== 'function' || typeof module._malloc !== 'function' || typeof module._free !== 'function') return null;
  const em = module as { HEAPU8: Uint8Array; UTF8ToString(p: number): string; _malloc(n: number): number; _free(p: number): void };
  for (const name of RAW_FUNCTIONS) {
    if (typeof ffi[name] !== 'function') return null;
  }
  const slots = 3;
  // The argument pointers, then the slot for a pointer given back.
  const argv = em._malloc(4 * (slots + 1));
  if (argv === 0) return null;
  const out = argv + 4 * slots;
  let scratch: number | undefined;
  // A view of the block, made again when the engine's memory has grown (its buffer is then another).
  let block = new Int32Array(em.HEAPU8.buffer, argv, slots + 1);
  const view = (): Int32Array => {
    if (block.buffer !== em.HEAPU8.buffer) block = new Int32Array(em.HEAPU8.buffer, argv, slots + 1);
    return block;
  };
  return {
    ffi,
    ctx,
    rt,
    argv: argv as JSValueConstPointerPointer,
    out: out as JSContextPointerPointer,
    args(...values) {
      const heap = view();
      for (let i = 0; i < values.length; i++) heap[i] = values[i] as number;
    },
    outValue: () => view()[slots]!,
    heap: () => em.HEAPU8,
    release: (p) => em._free(p),
    scratch: () => {
      if (scratch === undefined) {
        const p = em._malloc(SHORT_TEXT_BYTES + 1);
        if (p === 0) return 0;
        scratch = p;
      }
      return scratch;
    },
    text(p) {
      const heap = em.HEAPU8;
      let end = p;
      let ascii = 0;
      while (heap[end] !== 0 && end - p <= SHORT_TEXT_BYTES) ascii |= heap[end++]!;
      // Longer text, or any byte of a multi-byte character: the module's own decoder.
      if (heap[end] !== 0 || ascii >= 0x80) return em.UTF8ToString(p);
      return String.fromCharCode.apply(null, heap.subarray(p, end) as unknown as number[]);
    },
    handle: (p) => memory.heapValueHandle!(p),
    free: () => {
      em._free(argv);
      if (scratch !== undefined) em._free(scratch);
    },
  };
}

/** What the engine threw, as it dumped. */
class EngineError extends Error {
  constructor(readonly error: unknown) {
    super('the cell engine threw');
  }
}

/** A copy into the engine that its memory has no room for. */
class OutOfEngineMemory extends Error {}

/**
 * The cell's compiler: an async function of `params` whose body is the
 * cell's, its code named `url` in stacks. Like QuickJS's own Function
 * constructor, it puts the body between the function's braces, so a body
 * can close them early: what runs then is the cell's own code in the
 * cell's own engine, which is what a cell does anyway.
 */
function compileIn(vm: QuickJSContext, params: QuickJSHandle, body: QuickJSHandle, url: QuickJSHandle) {
  const names = vm.dump(params) as unknown;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string' && /^[A-Za-z_$][\w$]*$/.test(n))) {
    return { error: vm.newError({ name: 'TypeError', message: 'compile: the parameters are names' }) };
  }
  return vm.evalCode(`(async function anonymous(${names.join(',')}\n) {\n${vm.getString(body)}\n})`, vm.getString(url));
}

/**
 * An answer that crosses into the engine as itself and arrives as the
 * same value JSON text would give: null, a finite number other than -0
 * (JSON writes -0 as 0, and NaN and the infinities as null), a string
 * without surrogates or NUL (the copy in goes through UTF-8, where a lone
 * surrogate would not survive, and ends at the first NUL).
 */
function isPlainAnswer(v: unknown): v is string | number | null {
  if (v === null) return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  return typeof v === 'string' && !/[\u0000\ud800-\udfff]/.test(v);
}

/** A plain answer, or a list of them (a pipeline's answers), as deep as answers nest. */
type PlainTree = string | number | null | readonly PlainTree[];

/** Whether a value crosses into the engine as itself (see isPlainAnswer), lists of such values included. */
function isPlainTree(v: unknown, depth: number): v is PlainTree {
  if (!Array.isArray(v)) return isPlainAnswer(v);
  if (depth > 8) return false;
  for (let i = 0; i < v.length; i++) if (!isPlainTree(v[i], depth + 1)) return false;
  return true;
}

function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

function describe(e: unknown): { name: string; message: string } | null {
  if (e instanceof Error) return { name: e.name, message: e.message };
  if (e !== null && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    const name = (e as { name?: unknown }).name;
    return { name: typeof name === 'string' ? name : 'Error', message: (e as { message: string }).message };
  }
  return e === null || e === undefined ? null : { name: 'Error', message: String(e) };
}

function isOutOfMemory(e: { name: string; message: string }): boolean {
  return e.name === 'InternalError' && e.message === 'out of memory';
}
