/**
 * The slicing-by-8 step of CRC-64/Jones (crc64.ts) as a small WebAssembly
 * function: with 64-bit registers it does in one lookup per byte what the
 * JavaScript loop does in two (the register split into 32-bit halves), a
 * few times faster. A full synchronization checksums its RDB on both
 * sides, so for a dataset of a hundred megabytes this is most of what the
 * primary's child and the loading replica spend.
 *
 * The module is assembled here from its instructions rather than shipped
 * as an opaque binary. Its memory holds the register (bytes 0-7), the
 * eight tables of crc64.ts as 64-bit entries (table k at TABLES + k*2048)
 * and a window of input the caller copies in before each call.
 *
 *   (func (export "update") (param $len i32)
 *     crc := load64(0); p := DATA
 *     while p < DATA + (len & ~7):                   ;; eight bytes at a time
 *       x := load64(p) ^ crc
 *       crc := T7[x & 255] ^ T6[(x >> 8) & 255] ^ ... ^ T0[x >> 56]
 *       p += 8
 *     while p < DATA + len:                           ;; the rest, a byte at a time
 *       crc := T0[(crc ^ load8(p)) & 255] ^ (crc >> 8); p += 1
 *     store64(0, crc))
 */

/** Where the tables start, after the register. */
const TABLES = 8;
/** Where the input window starts, after the eight tables. */
export const WASM_DATA = TABLES + 8 * 256 * 8;
/** How many input bytes one call takes. */
export const WASM_WINDOW_BYTES = 64 * 1024;
const PAGES = Math.ceil((WASM_DATA + WASM_WINDOW_BYTES) / 65536);

/** An unsigned LEB128 number. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** A signed LEB128 number (32-bit range). */
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const OP = {
  block: 0x02, loop: 0x03, end: 0x0b, br: 0x0c, brIf: 0x0d,
  localGet: 0x20, localSet: 0x21,
  i64Load: 0x29, i32Load8u: 0x2d, i64Store: 0x37,
  i32Const: 0x41, i64Const: 0x42,
  i32GeU: 0x4f, i32Add: 0x6a, i32And: 0x71, i32Xor: 0x73, i32Shl: 0x74,
  i64Xor: 0x85, i64ShrU: 0x88, i32WrapI64: 0xa7,
} as const;
const VOID = 0x40;

// Locals: 0 len (param), 1 crc i64, 2 p, 3 end, 4 end8, 5 x i64.
const LEN = 0, CRC = 1, P = 2, END = 3, END8 = 4, X = 5;

/** Pushes the 64-bit entry of table `k` for the byte on the stack (an i32 in 0..255). */
function lookup(k: number): number[] {
  return [OP.i32Const, ...sleb(3), OP.i32Shl, OP.i64Load, 3, ...uleb(TABLES + k * 2048)];
}

function body(): number[] {
  const code: number[] = [];
  const emit = (...b: number[]): void => {
    code.push(...b);
  };
  emit(OP.i32Const, 0, OP.i64Load, 3, 0, OP.localSet, CRC);
  emit(OP.i32Const, ...sleb(WASM_DATA), OP.localSet, P);
  emit(OP.i32Const, ...sleb(WASM_DATA), OP.localGet, LEN, OP.i32Add, OP.localSet, END);
  emit(OP.i32Const, ...sleb(WASM_DATA), OP.localGet, LEN, OP.i32Const, ...sleb(-8), OP.i32And, OP.i32Add, OP.localSet, END8);
  emit(OP.block, VOID, OP.loop, VOID);
  emit(OP.localGet, P, OP.localGet, END8, OP.i32GeU, OP.brIf, 1);
  emit(OP.localGet, P, OP.i64Load, 3, 0, OP.localGet, CRC, OP.i64Xor, OP.localSet, X);
  for (let j = 0; j < 8; j++) {
    emit(OP.localGet, X);
    if (j > 0) emit(OP.i64Const, ...sleb(8 * j), OP.i64ShrU);
    emit(OP.i32WrapI64, OP.i32Const, ...sleb(255), OP.i32And, ...lookup(7 - j));
    if (j > 0) emit(OP.i64Xor);
  }
  emit(OP.localSet, CRC);
  emit(OP.localGet, P, OP.i32Const, 8, OP.i32Add, OP.localSet, P, OP.br, 0, OP.end, OP.end);
  emit(OP.block, VOID, OP.loop, VOID);
  emit(OP.localGet, P, OP.localGet, END, OP.i32GeU, OP.brIf, 1);
  emit(OP.localGet, CRC, OP.i32WrapI64, OP.localGet, P, OP.i32Load8u, 0, 0, OP.i32Xor, OP.i32Const, ...sleb(255), OP.i32And, ...lookup(0));
  emit(OP.localGet, CRC, OP.i64Const, 8, OP.i64ShrU, OP.i64Xor, OP.localSet, CRC);
  emit(OP.localGet, P, OP.i32Const, 1, OP.i32Add, OP.localSet, P, OP.br, 0, OP.end, OP.end);
  emit(OP.i32Const, 0, OP.localGet, CRC, OP.i64Store, 3, 0);
  emit(OP.end);
  // Local declarations: one i64, three i32, one i64.
  return [3, 1, 0x7e, 3, 0x7f, 1, 0x7e, ...code];
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function name(s: string): number[] {
  return [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
}

function moduleBytes(): Uint8Array {
  const fn = body();
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, ...uleb(PAGES)]),
    ...section(7, [2, ...name('update'), 0x00, 0, ...name('memory'), 0x02, 0]),
    ...section(10, [1, ...uleb(fn.length), ...fn]),
  ]);
}

/** The instantiated step: its memory and the function. */
export interface WasmCrc64 {
  readonly memory: Uint8Array;
  /** The register, as two 32-bit halves at words 0 (low) and 1 (high). */
  readonly words: Uint32Array;
  /** Where in `memory` the input window starts, and how many bytes one call takes. */
  readonly dataAt: number;
  readonly windowBytes: number;
  update(len: number): void;
}

/** The part of the WebAssembly API used here (the emulator's types leave out the host's globals). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

let instance: WasmCrc64 | null | undefined;

/** True once a long sum has run in WebAssembly (false before, or where it is not available). */
export function wasmCrc64Ready(): boolean {
  return instance !== undefined && instance !== null;
}

/**
 * The step, with the tables written into its memory, or null where
 * WebAssembly is not available (the callers then use the JavaScript loop).
 */
export function wasmCrc64(tableLo: Uint32Array, tableHi: Uint32Array): WasmCrc64 | null {
  if (instance !== undefined) return instance;
  instance = null;
  const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (wasm === undefined) return null;
  try {
    const inst = new wasm.Instance(new wasm.Module(moduleBytes()), {});
    const mem = inst.exports.memory as { buffer: ArrayBuffer };
    const words = new Uint32Array(mem.buffer);
    for (let i = 0; i < 8 * 256; i++) {
      words[TABLES / 4 + 2 * i] = tableLo[i]!;
      words[TABLES / 4 + 2 * i + 1] = tableHi[i]!;
    }
    instance = { memory: new Uint8Array(mem.buffer), words, dataAt: WASM_DATA, windowBytes: WASM_WINDOW_BYTES, update: inst.exports.update as (len: number) => void };
  } catch {
    // A page whose policy forbids compiling WebAssembly keeps the loop.
    instance = null;
  }
  return instance;
}
