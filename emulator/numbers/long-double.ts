/**
 * The x87 80-bit long double, as INCRBYFLOAT and HINCRBYFLOAT compute with
 * it: a 64-bit significand, exponent range up to 2^16383. Redis parses with
 * strtold, adds in long double and prints with "%.17Lf" trimmed of trailing
 * zeros, which is why INCRBYFLOAT 0.1 answers "0.1" where a double would
 * print 0.10000000000000001. Arithmetic here is exact BigInt arithmetic with
 * round-to-nearest-even, which is what the FPU does.
 */
export interface LongDouble {
  readonly neg: boolean;
  /** 0, or a significand in [2^63, 2^64). */
  readonly mant: bigint;
  /** value = mant * 2^exp */
  readonly exp: number;
  readonly inf?: boolean;
}

const MAX_BITS = 16384; // values at or above 2^16384 overflow to infinity
const MIN_EXP = -16445; // the smallest subnormal is 2^-16445
const ZERO: LongDouble = { neg: false, mant: 0n, exp: 0 };

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** Rounds m * 2^e to a 64-bit significand (sticky: bits below m were non-zero). */
function round(neg: boolean, m: bigint, e: number, sticky = false): LongDouble {
  if (m === 0n) return { neg, mant: 0n, exp: 0 };
  let bl = bitLength(m);
  // Subnormal range: fewer significand bits are available.
  const minE = MIN_EXP;
  let drop = bl - 64;
  if (e + drop < minE) drop = minE - e;
  if (drop > 0) {
    const dropB = BigInt(drop);
    const low = m & ((1n << dropB) - 1n);
    const half = 1n << (dropB - 1n);
    m >>= dropB;
    e += drop;
    if (low > half || (low === half && (sticky || (m & 1n) === 1n))) m += 1n;
    if (m === 0n) return { neg, mant: 0n, exp: 0 };
    bl = bitLength(m);
    if (bl > 64) {
      m >>= 1n;
      e += 1;
      bl = 64;
    }
  }
  if (bl + e > MAX_BITS) return { neg, mant: 0n, exp: 0, inf: true };
  if (bl < 64) {
    const shift = Math.min(64 - bl, e - minE);
    if (shift > 0) {
      m <<= BigInt(shift);
      e -= shift;
    }
  }
  return { neg, mant: m, exp: e };
}

const LD_DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const LD_INFINITY = /^([+-]?)(?:inf|infinity)$/i;
const LD_HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?$/;

/**
 * Redis's string2ld: strtold over the whole string, no leading space, no
 * NaN, overflow and underflow to zero rejected, at most 5119 bytes. Returns
 * null when invalid.
 */
export function parseLongDouble(s: string): LongDouble | null {
  if (s.length === 0 || s.length >= 5 * 1024) return null;
  const inf = LD_INFINITY.exec(s);
  if (inf) return { neg: inf[1] === '-', mant: 0n, exp: 0, inf: true };
  let neg: boolean;
  let m: bigint;
  let e2 = 0;
  let e10 = 0;
  const dec = LD_DECIMAL.exec(s);
  if (dec) {
    const intPart = dec[2] ?? '';
    const frac = dec[3] ?? '';
    if (intPart.length + frac.length === 0) return null;
    neg = dec[1] === '-';
    m = BigInt(intPart + frac || '0');
    e10 = (dec[4] ? parseInt(dec[4], 10) : 0) - frac.length;
    if (!Number.isFinite(e10)) return null;
  } else {
    const hex = LD_HEX.exec(s);
    if (!hex || /[pP]$/.test(s)) return null;
    const intPart = hex[2] ?? '';
    const frac = hex[3] ?? '';
    if (intPart.length + frac.length === 0) return null;
    neg = hex[1] === '-';
    m = BigInt('0x' + (intPart + frac || '0'));
    e2 = (hex[4] ? parseInt(hex[4], 10) : 0) - 4 * frac.length;
  }
  if (m === 0n) return { neg, mant: 0n, exp: 0 };
  let r: LongDouble;
  if (e2 !== 0) {
    if (e2 > 20000) return null;
    if (e2 < -20000) return null;
    r = round(neg, m, e2);
  } else if (e10 >= 0) {
    if (e10 + m.toString().length > 4940) return null; // certainly above 1.19e4932
    r = round(neg, m * 10n ** BigInt(e10), 0);
  } else {
    const digits = m.toString().length;
    if (digits + e10 < -4960) return null; // certainly below the smallest subnormal
    const q = 10n ** BigInt(-e10);
    const k = Math.max(0, 68 + bitLength(q) - bitLength(m));
    const num = m << BigInt(k);
    const quo = num / q;
    const rem = num - quo * q;
    r = round(neg, quo, -k, rem !== 0n);
  }
  if (r.inf || r.mant === 0n) return null; // ERANGE
  return r;
}

export function fromInteger(v: number | bigint): LongDouble {
  const b = BigInt(v);
  if (b === 0n) return ZERO;
  return round(b < 0n, b < 0n ? -b : b, 0);
}

/** a + b in long double arithmetic. */
export function addLongDouble(a: LongDouble, b: LongDouble): LongDouble {
  if (a.inf || b.inf) {
    if (a.inf && b.inf && a.neg !== b.neg) return { neg: false, mant: 0n, exp: 0, inf: true }; // NaN, rejected by the caller as inf
    return a.inf ? a : b;
  }
  if (a.mant === 0n) return b.mant === 0n ? { neg: a.neg && b.neg, mant: 0n, exp: 0 } : b;
  if (b.mant === 0n) return a;
  const e = Math.min(a.exp, b.exp);
  const x = a.mant << BigInt(a.exp - e);
  const y = b.mant << BigInt(b.exp - e);
  const sum = (a.neg ? -x : x) + (b.neg ? -y : y);
  if (sum === 0n) return ZERO;
  return round(sum < 0n, sum < 0n ? -sum : sum, e);
}

export function isInfinite(v: LongDouble): boolean {
  return v.inf === true;
}

/**
 * "%.17Lf" with trailing zeros (and a bare '.') removed, and "-0" shown as
 * "0": Redis's ld2string in LD_STR_HUMAN mode.
 */
export function formatLongDoubleHuman(v: LongDouble): string {
  if (v.inf) return v.neg ? '-inf' : 'inf';
  let scaled: bigint; // round(|v| * 10^17)
  const P = 10n ** 17n;
  if (v.exp >= 0) {
    scaled = (v.mant << BigInt(v.exp)) * P;
  } else {
    const num = v.mant * P;
    const sh = BigInt(-v.exp);
    let q = num >> sh;
    const rem = num - (q << sh);
    const half = 1n << (sh - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
    scaled = q;
  }
  const digits = scaled.toString().padStart(18, '0');
  const intPart = digits.slice(0, digits.length - 17);
  const frac = digits.slice(digits.length - 17).replace(/0+$/, '');
  const out = frac ? intPart + '.' + frac : intPart;
  return v.neg && out !== '0' ? '-' + out : out;
}

/** v * n in long double arithmetic (n a small integer). */
export function multiplyLongDouble(v: LongDouble, n: number): LongDouble {
  if (v.inf) return v;
  if (v.mant === 0n || n === 0) return { neg: v.neg !== n < 0, mant: 0n, exp: 0 };
  const m = BigInt(Math.abs(n));
  return round(v.neg !== n < 0, v.mant * m, v.exp);
}

const INT64_MIN = -9223372036854775808n;
const INT64_MAX = 9223372036854775807n;

/**
 * (long long) ceill(v): the value rounded up to an integer and converted
 * the way x86-64 converts an out-of-range long double, to INT64_MIN.
 */
export function ceilToInt64(v: LongDouble): bigint {
  if (v.inf) return INT64_MIN;
  let q: bigint;
  if (v.exp >= 0) {
    q = v.mant << BigInt(v.exp);
  } else {
    const sh = BigInt(-v.exp);
    q = v.mant >> sh;
    const exact = q << sh === v.mant;
    // Rounding up: positive values with a fraction go up; negative ones toward zero.
    if (!exact && !v.neg) q += 1n;
  }
  const r = v.neg ? -q : q;
  return r < INT64_MIN || r > INT64_MAX ? INT64_MIN : r;
}
