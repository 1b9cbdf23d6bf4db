import { isCSpace } from '../../numbers/c-string.js';
/**
 * The few C library reads Redis's AOF code is built on, over a file's bytes
 * held in memory: fgets, fread, ftello, fseek and strtol. Redis reads AOF
 * files line by line with fixed-size buffers, so what it accepts, where it
 * stops and what it prints depend on these calls' exact rules: fgets stops
 * after n-1 bytes or a newline, a short read sets the end-of-file flag,
 * fseek clears it, strtol skips leading blanks and saturates on overflow.
 */

export class CFile {
  pos = 0;
  /** The end-of-file indicator (feof). */
  eof = false;

  constructor(readonly data: Uint8Array) {}

  get size(): number {
    return this.data.length;
  }

  /**
   * fgets(buf, n, fp): at most n-1 bytes, up to and including a newline.
   * Returns the bytes read, or null when none could be (end of file).
   */
  fgets(n: number): Uint8Array | null {
    const start = this.pos;
    return this.fgetsEnd(n) < 0 ? null : this.data.subarray(start, this.pos);
  }

  /**
   * fgets without the copy: where the line read ends (it starts where the
   * file was before the call), or -1 when nothing could be read. A loader
   * going through millions of lines keeps only the offsets.
   */
  fgetsEnd(n: number): number {
    const data = this.data;
    if (this.pos >= data.length) {
      this.eof = true;
      return -1;
    }
    const start = this.pos;
    const limit = Math.min(data.length, start + n - 1);
    let p = start;
    while (p < limit) {
      if (data[p++] === 0x0a) break;
    }
    // Asking for more after the last byte is what sets the flag.
    if (p === data.length && data[p - 1] !== 0x0a && p - start < n - 1) this.eof = true;
    this.pos = p;
    return p;
  }

  /** fread: up to `length` bytes; fewer means the file ended, which sets the flag. */
  fread(length: number): Uint8Array {
    const start = this.pos;
    this.skip(length);
    return this.data.subarray(start, this.pos);
  }

  /** fread into nowhere: how many of `length` bytes were there (the bytes stay in `data`). */
  skip(length: number): number {
    const start = this.pos;
    const end = Math.min(this.data.length, start + length);
    if (end - start < length) this.eof = true;
    this.pos = end;
    return end - start;
  }

  tell(): number {
    return this.pos;
  }

  /** fseek to an absolute offset; like every successful fseek, it clears the end-of-file flag. */
  seek(offset: number): void {
    this.pos = offset;
    this.eof = false;
  }
}

export interface StrtolResult {
  value: bigint;
  /** Index just past the number, or `start` when there was none. */
  end: number;
  /** The number did not fit in a long (errno ERANGE); value is saturated. */
  overflow: boolean;
}

const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

/** Digits a double holds exactly whatever they are (10^15 < 2^53). */
const EXACT_DIGITS = 15;

/**
 * strtol's value for bytes [start, end) of a buffer, the end reading as
 * NUL: a number when the digits are few enough to be exact, otherwise
 * what strtol gives (a bigint, saturated on overflow). The fast form for
 * the lengths in every line of an AOF.
 */
export function strtolValue(data: Uint8Array, start: number, end: number): number | bigint {
  let p = start;
  while (p < end && isCSpace(data[p]!)) p++;
  let negative = false;
  if (p < end && (data[p] === 0x2b || data[p] === 0x2d)) {
    negative = data[p] === 0x2d;
    p++;
  }
  let v = 0;
  const digitsStart = p;
  for (; p < end; p++) {
    const d = data[p]! - 0x30;
    if (d < 0 || d > 9) break;
    if (p - digitsStart === EXACT_DIGITS) return strtol(data.subarray(start, end)).value;
    v = v * 10 + d;
  }
  return negative ? 0 - v : v;
}

/**
 * strtol(s + start, &end, 10) for a 64-bit long. The string ends at its
 * first NUL, as a C string does.
 */
export function strtol(s: Uint8Array | string, start = 0): StrtolResult {
  const at = typeof s === 'string' ? (i: number) => (i < s.length ? s.charCodeAt(i) : 0) : (i: number) => (i < s.length ? s[i]! : 0);
  let p = start;
  while (isCSpace(at(p))) p++;
  let negative = false;
  if (at(p) === 0x2b || at(p) === 0x2d) {
    negative = at(p) === 0x2d;
    p++;
  }
  const digitsStart = p;
  let v = 0n;
  let overflow = false;
  while (at(p) >= 0x30 && at(p) <= 0x39) {
    if (!overflow) {
      v = v * 10n + BigInt(at(p) - 0x30);
      if (v > LONG_MAX + 1n) overflow = true;
    }
    p++;
  }
  if (p === digitsStart) return { value: 0n, end: start, overflow: false };
  let value = negative ? -v : v;
  if (overflow || value > LONG_MAX || value < LONG_MIN) {
    overflow = true;
    value = negative ? LONG_MIN : LONG_MAX;
  }
  return { value, end: p, overflow };
}
