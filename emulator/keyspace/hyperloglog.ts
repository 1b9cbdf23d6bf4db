/**
 * HyperLogLog as Redis 7.0 stores it in a string (src/hyperloglog.c), byte
 * for byte: a 16-byte header ("HYLL", the encoding, three zero bytes, the
 * cached cardinality little endian with its top bit set while stale), then
 * 16384 registers, either dense (6 bits each) or sparse (run-length
 * opcodes ZERO 00xxxxxx, XZERO 01xxxxxx yyyyyyyy, VAL 1vvvvvxx). Every
 * function works on the bytes, so that GET, DUMP, the RDB file and the
 * replication stream carry exactly what a real server would.
 */

const P = 14;
const Q = 64 - P;
export const HLL_REGISTERS = 1 << P;
const HDR_SIZE = 16;
const BITS = 6;
const REGISTER_MAX = (1 << BITS) - 1;
const DENSE_SIZE = HDR_SIZE + Math.floor((HLL_REGISTERS * BITS + 7) / 8);
const DENSE = 0;
const SPARSE = 1;
const SPARSE_VAL_MAX_VALUE = 32;
const SPARSE_VAL_MAX_LEN = 4;
const SPARSE_ZERO_MAX_LEN = 64;
const SPARSE_XZERO_MAX_LEN = 16384;
/** 0.5 / ln(2), the estimator's constant. */
const ALPHA_INF = 0.7213475204444817;

const M64 = (1n << 64n) - 1n;
const MURMUR_M = 0xc6a4a7935bd1e995n;

/** MurmurHash64A as Redis uses it (endian-neutral), over a byte string. */
export function murmurHash64A(bytes: string, seed: number): bigint {
  const len = bytes.length;
  let h = (BigInt(seed) ^ ((BigInt(len) * MURMUR_M) & M64)) & M64;
  const whole = len - (len & 7);
  for (let i = 0; i < whole; i += 8) {
    let k = 0n;
    for (let b = 7; b >= 0; b--) k = (k << 8n) | BigInt(bytes.charCodeAt(i + b));
    k = (k * MURMUR_M) & M64;
    k ^= k >> 47n;
    k = (k * MURMUR_M) & M64;
    h ^= k;
    h = (h * MURMUR_M) & M64;
  }
  const rest = len & 7;
  if (rest !== 0) {
    for (let b = rest - 1; b >= 0; b--) h ^= BigInt(bytes.charCodeAt(whole + b)) << BigInt(8 * b);
    h = (h * MURMUR_M) & M64;
  }
  h ^= h >> 47n;
  h = (h * MURMUR_M) & M64;
  h ^= h >> 47n;
  return h;
}

/** hllPatLen: the register an element hashes to, and the length of its 000..1 pattern. */
export function patternOf(element: string): { index: number; count: number } {
  const hash = murmurHash64A(element, 0xadc83b19);
  const index = Number(hash & BigInt(HLL_REGISTERS - 1));
  let rest = (hash >> BigInt(P)) | (1n << BigInt(Q));
  let count = 1;
  while ((rest & 1n) === 0n) {
    count++;
    rest >>= 1n;
  }
  return { index, count };
}

/** createHLLObject: an empty sparse HLL (XZERO opcodes covering every register). */
export function emptyHll(): Uint8Array {
  const chunks = Math.ceil(HLL_REGISTERS / SPARSE_XZERO_MAX_LEN);
  const b = new Uint8Array(HDR_SIZE + chunks * 2);
  b.set([72, 89, 76, 76], 0); // "HYLL"
  b[4] = SPARSE;
  let left = HLL_REGISTERS;
  for (let p = HDR_SIZE; left > 0; p += 2) {
    const n = Math.min(left, SPARSE_XZERO_MAX_LEN);
    setXzero(b, p, n);
    left -= n;
  }
  return b;
}

/** isHLLObjectOrReply's checks on the bytes of a string value. */
export function isHll(b: Uint8Array): boolean {
  if (b.length < HDR_SIZE) return false;
  if (b[0] !== 72 || b[1] !== 89 || b[2] !== 76 || b[3] !== 76) return false;
  if (b[4]! > SPARSE) return false;
  return b[4] !== DENSE || b.length === DENSE_SIZE;
}

export function invalidateCache(b: Uint8Array): void {
  b[15]! |= 0x80;
}

/** The cached cardinality, or null while it is stale. */
export function cachedCardinality(b: Uint8Array): number | null {
  if (b[15]! & 0x80) return null;
  let card = 0;
  for (let i = 7; i >= 0; i--) card = card * 256 + b[8 + i]!;
  return card;
}

export function setCachedCardinality(b: Uint8Array, card: number): void {
  let v = card;
  for (let i = 0; i < 8; i++) {
    b[8 + i] = v % 256;
    v = Math.floor(v / 256);
  }
}

function denseGet(b: Uint8Array, regnum: number): number {
  const byte = HDR_SIZE + ((regnum * BITS) >> 3);
  const fb = (regnum * BITS) & 7;
  // The register after the last reads the byte past the end, 0 (sds's terminator).
  return ((b[byte]! >> fb) | ((b[byte + 1] ?? 0) << (8 - fb))) & REGISTER_MAX;
}

function denseSetRegister(b: Uint8Array, regnum: number, val: number): void {
  const byte = HDR_SIZE + ((regnum * BITS) >> 3);
  const fb = (regnum * BITS) & 7;
  b[byte] = (b[byte]! & ~(REGISTER_MAX << fb)) | ((val << fb) & 0xff);
  if (byte + 1 < b.length) b[byte + 1] = (b[byte + 1]! & ~(REGISTER_MAX >> (8 - fb))) | (val >> (8 - fb));
}

/** hllDenseSet: raises a register; whether it changed. */
function denseSet(b: Uint8Array, index: number, count: number): boolean {
  if (count <= denseGet(b, index)) return false;
  denseSetRegister(b, index, count);
  return true;
}

const isZero = (op: number): boolean => (op & 0xc0) === 0;
const isXzero = (op: number): boolean => (op & 0xc0) === 0x40;
const isVal = (op: number): boolean => (op & 0x80) !== 0;
const zeroLen = (op: number): number => (op & 0x3f) + 1;
const xzeroLen = (b: Uint8Array, p: number): number => (((b[p]! & 0x3f) << 8) | b[p + 1]!) + 1;
const valValue = (op: number): number => ((op >> 2) & 0x1f) + 1;
const valLen = (op: number): number => (op & 0x3) + 1;
const valOp = (value: number, len: number): number => (((value - 1) << 2) | (len - 1)) | 0x80;

function setXzero(b: Uint8Array, p: number, len: number): void {
  b[p] = ((len - 1) >> 8) | 0x40;
  b[p + 1] = (len - 1) & 0xff;
}

/** Calls visit(firstRegister, runLength, value) for every opcode; false when the opcodes do not cover exactly 16384 registers. */
function walkSparse(b: Uint8Array, visit: (first: number, len: number, value: number) => void): boolean {
  let idx = 0;
  let p = HDR_SIZE;
  while (p < b.length) {
    const op = b[p]!;
    if (isZero(op)) {
      visit(idx, zeroLen(op), 0);
      idx += zeroLen(op);
      p++;
    } else if (isXzero(op)) {
      const n = xzeroLen(b, p);
      visit(idx, n, 0);
      idx += n;
      p += 2;
    } else {
      const n = valLen(op);
      if (idx + n > HLL_REGISTERS) return false;
      visit(idx, n, valValue(op));
      idx += n;
      p++;
    }
  }
  return idx === HLL_REGISTERS;
}

/** hllSparseToDense: the same registers in the dense encoding (header copied), or null when the sparse form is corrupt. */
export function sparseToDense(b: Uint8Array): Uint8Array | null {
  if (b[4] === DENSE) return b;
  const dense = new Uint8Array(DENSE_SIZE);
  dense.set(b.subarray(0, HDR_SIZE));
  dense[4] = DENSE;
  const ok = walkSparse(b, (first, len, value) => {
    if (value !== 0) for (let i = 0; i < len; i++) denseSetRegister(dense, first + i, value);
  });
  return ok ? dense : null;
}

/** The outcome of raising one register: the (possibly new) bytes and whether anything changed; null when corrupt. */
export interface SetOutcome {
  bytes: Uint8Array;
  changed: boolean;
}

/**
 * hllSparseSet: raises register `index` to `count` in place of the opcode
 * that covers it, split as Redis splits it, then merges adjacent equal
 * VAL opcodes near the change; promotes to dense when the value does not
 * fit a VAL opcode or the string would pass hll-sparse-max-bytes.
 */
function sparseSet(b: Uint8Array, index: number, count: number, sparseMaxBytes: number): SetOutcome | null {
  if (count > SPARSE_VAL_MAX_VALUE) return promote(b, index, count);
  let p = HDR_SIZE;
  let first = 0;
  let prev = -1;
  let span = 0;
  while (p < b.length) {
    const op = b[p]!;
    let oplen = 1;
    if (isZero(op)) span = zeroLen(op);
    else if (isVal(op)) span = valLen(op);
    else {
      span = xzeroLen(b, p);
      oplen = 2;
    }
    if (index <= first + span - 1) break;
    prev = p;
    p += oplen;
    first += span;
  }
  if (span === 0 || p >= b.length) return null;
  const op = b[p]!;
  const zero = isZero(op);
  const xzero = isXzero(op);
  const runlen = zero ? zeroLen(op) : xzero ? xzeroLen(b, p) : valLen(op);
  let out = b;
  if (!zero && !xzero) {
    if (valValue(op) >= count) return { bytes: b, changed: false };
    if (runlen === 1) {
      out[p] = valOp(count, 1);
      return { bytes: mergeAndInvalidate(out, prev), changed: true };
    }
  }
  if (zero && runlen === 1) {
    out[p] = valOp(count, 1);
    return { bytes: mergeAndInvalidate(out, prev), changed: true };
  }
  const seq: number[] = [];
  const last = first + span - 1;
  const pushZeros = (len: number): void => {
    if (len > SPARSE_ZERO_MAX_LEN) seq.push(((len - 1) >> 8) | 0x40, (len - 1) & 0xff);
    else seq.push(len - 1);
  };
  if (zero || xzero) {
    if (index !== first) pushZeros(index - first);
    seq.push(valOp(count, 1));
    if (index !== last) pushZeros(last - index);
  } else {
    const cur = valValue(op);
    if (index !== first) seq.push(valOp(cur, index - first));
    seq.push(valOp(count, 1));
    if (index !== last) seq.push(valOp(cur, last - index));
  }
  const oldlen = xzero ? 2 : 1;
  const delta = seq.length - oldlen;
  if (delta > 0 && b.length + delta > sparseMaxBytes) return promote(b, index, count);
  out = new Uint8Array(b.length + delta);
  out.set(b.subarray(0, p));
  out.set(seq, p);
  out.set(b.subarray(p + oldlen), p + seq.length);
  return { bytes: mergeAndInvalidate(out, prev), changed: true };
}

/** Step 4 of hllSparseSet: merge adjacent VAL opcodes of one value, scanning up to 5 opcodes from the one before the change. */
function mergeAndInvalidate(b: Uint8Array, prev: number): Uint8Array {
  let bytes = b;
  let end = bytes.length;
  let p = prev >= 0 ? prev : HDR_SIZE;
  let scan = 5;
  while (p < end && scan-- > 0) {
    const op = bytes[p]!;
    if (isXzero(op)) {
      p += 2;
      continue;
    }
    if (isZero(op)) {
      p++;
      continue;
    }
    if (p + 1 < end && isVal(bytes[p + 1]!)) {
      const v1 = valValue(op);
      const next = bytes[p + 1]!;
      if (v1 === valValue(next)) {
        const len = valLen(op) + valLen(next);
        if (len <= SPARSE_VAL_MAX_LEN) {
          bytes[p + 1] = valOp(v1, len);
          bytes.copyWithin(p, p + 1, end);
          end--;
          continue;
        }
      }
    }
    p++;
  }
  if (end !== bytes.length) bytes = bytes.slice(0, end);
  invalidateCache(bytes);
  return bytes;
}

function promote(b: Uint8Array, index: number, count: number): SetOutcome | null {
  const dense = sparseToDense(b);
  if (dense === null) return null;
  denseSet(dense, index, count);
  return { bytes: dense, changed: true };
}

/** hllAdd: adds an element; null when the sparse form is corrupt. Does not touch the cache (PFADD does). */
export function hllAdd(b: Uint8Array, element: string, sparseMaxBytes: number): SetOutcome | null {
  const { index, count } = patternOf(element);
  if (b[4] === DENSE) return { bytes: b, changed: denseSet(b, index, count) };
  return sparseSet(b, index, count, sparseMaxBytes);
}

/** hllMerge: raises max[i] to each register of the HLL; false when corrupt. */
export function hllMerge(max: Uint8Array, b: Uint8Array): boolean {
  if (b[4] === DENSE) {
    for (let i = 0; i < HLL_REGISTERS; i++) {
      const v = denseGet(b, i);
      if (v > max[i]!) max[i] = v;
    }
    return true;
  }
  return walkSparse(b, (first, len, value) => {
    for (let i = first; i < first + len; i++) if (value > max[i]!) max[i] = value;
  });
}

/** Writes merged registers into an HLL as PFMERGE does (dense if asked, else register by register). */
export function hllWriteRegisters(target: Uint8Array, max: Uint8Array, useDense: boolean, sparseMaxBytes: number): Uint8Array | null {
  let b: Uint8Array | null = useDense ? sparseToDense(target) : target;
  if (b === null) return null;
  for (let j = 0; j < HLL_REGISTERS; j++) {
    const v = max[j]!;
    if (v === 0) continue;
    if (b[4] === DENSE) denseSet(b, j, v);
    else {
      const r: SetOutcome | null = sparseSet(b, j, v, sparseMaxBytes);
      if (r !== null) b = r.bytes;
    }
  }
  invalidateCache(b);
  return b;
}

function sigma(x0: number): number {
  if (x0 === 1) return Infinity;
  let x = x0;
  let y = 1;
  let z = x;
  let zPrime: number;
  do {
    x *= x;
    zPrime = z;
    z += x * y;
    y += y;
  } while (zPrime !== z);
  return z;
}

function tau(x0: number): number {
  if (x0 === 0 || x0 === 1) return 0;
  let x = x0;
  let y = 1;
  let z = 1 - x;
  let zPrime: number;
  do {
    x = Math.sqrt(x);
    zPrime = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
  } while (zPrime !== z);
  return z / 3;
}

/** hllCount from a register histogram (Ertl's estimator, as Redis computes it). */
function estimate(histo: number[]): number {
  const m = HLL_REGISTERS;
  let z = m * tau((m - histo[Q + 1]!) / m);
  for (let j = Q; j >= 1; j--) {
    z += histo[j]!;
    z *= 0.5;
  }
  z += m * sigma(histo[0]! / m);
  return Math.round((ALPHA_INF * m * m) / z);
}

/** hllCount of an HLL's bytes; null when the sparse form is corrupt. */
export function hllCount(b: Uint8Array): number | null {
  const histo = new Array<number>(64).fill(0);
  if (b[4] === DENSE) {
    for (let i = 0; i < HLL_REGISTERS; i++) histo[denseGet(b, i)]!++;
  } else {
    let idx = 0;
    let p = HDR_SIZE;
    while (p < b.length) {
      const op = b[p]!;
      const n = isZero(op) ? zeroLen(op) : isXzero(op) ? xzeroLen(b, p) : valLen(op);
      histo[isVal(op) ? valValue(op) : 0]! += n;
      idx += n;
      p += isXzero(op) ? 2 : 1;
    }
    if (idx !== HLL_REGISTERS) return null;
  }
  return estimate(histo);
}

/** hllCount of raw registers (one byte each), for PFCOUNT over several keys. */
export function rawCount(max: Uint8Array): number {
  const histo = new Array<number>(64).fill(0);
  for (let i = 0; i < HLL_REGISTERS; i++) histo[max[i]!]!++;
  return estimate(histo);
}

/** The 16384 registers of a dense HLL (HLL_DENSE_GET_REGISTER), for PFDEBUG GETREG. */
export function denseRegisters(b: Uint8Array): number[] {
  const out: number[] = [];
  for (let j = 0; j < HLL_REGISTERS; j++) out.push(denseGet(b, j));
  return out;
}

/** PFDEBUG DECODE: a sparse HLL's opcodes as "z:len", "Z:len" and "v:value,len", read as they come. */
export function decodeSparse(b: Uint8Array): string {
  const words: string[] = [];
  for (let p = HDR_SIZE; p < b.length; ) {
    const op = b[p]!;
    if (isZero(op)) {
      words.push(`z:${zeroLen(op)}`);
      p++;
    } else if (isXzero(op)) {
      words.push(`Z:${xzeroLen(b, p)}`);
      p += 2;
    } else {
      words.push(`v:${valValue(op)},${valLen(op)}`);
      p++;
    }
  }
  return words.join(' ');
}

/**
 * PFSELFTEST's first test (src/hyperloglog.c pfselftestCommand): every
 * dense register set to a random 6-bit value reads back as that value,
 * its neighbours untouched. The first register that does not, or null.
 */
export function denseRegistersFault(nextRandom: () => number): { register: number; want: number; got: number } | null {
  const b = new Uint8Array(DENSE_SIZE);
  const want = new Uint8Array(HLL_REGISTERS);
  for (let i = 0; i < HLL_REGISTERS; i++) {
    want[i] = nextRandom() & REGISTER_MAX;
    denseSetRegister(b, i, want[i]!);
  }
  for (let i = 0; i < HLL_REGISTERS; i++) {
    const got = denseGet(b, i);
    if (got !== want[i]) return { register: i, want: want[i]!, got };
  }
  return null;
}
