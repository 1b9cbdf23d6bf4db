/**
 * Signed 64-bit integers as Redis parses and prints them.
 *
 * Values that fit in a double exactly are JavaScript numbers; the rest of the
 * int64 range is bigint. Every function here accepts and returns both.
 */
export type Int64 = number | bigint;

export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

/**
 * Redis's string2ll: a canonical decimal integer (no '+', no leading zeros,
 * no spaces, "-0" rejected) within the int64 range, at most 20 bytes.
 * Returns null when the string is not one.
 */
export function parseInt64(s: string): Int64 | null {
  const n = s.length;
  if (n === 0 || n >= 21) return null;
  let i = 0;
  let neg = false;
  if (s.charCodeAt(0) === 45 /* - */) {
    neg = true;
    i = 1;
    if (n === 1) return null;
  }
  const first = s.charCodeAt(i);
  if (first < 49 || first > 57) {
    return n === 1 && first === 48 ? 0 : null;
  }
  if (n - i <= 15) {
    let v = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return null;
      v = v * 10 + c;
    }
    return neg ? -v : v;
  }
  for (let k = i; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return null;
  }
  const big = BigInt(s);
  if (big > INT64_MAX || big < INT64_MIN) return null;
  return normalize(big);
}

/** Like parseInt64, but also requires min <= v <= max (used for LONG ranges etc.). */
export function parseIntInRange(s: string, min: number, max: number): number | null {
  const v = parseInt64(s);
  if (v === null || typeof v === 'bigint') return null;
  return v < min || v > max ? null : v;
}

/** A bigint back to a number when that loses nothing. */
export function normalize(v: bigint): Int64 {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/** a + b, or null on int64 overflow (Redis: "increment or decrement would overflow"). */
export function addInt64(a: Int64, b: Int64): Int64 | null {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  const r = BigInt(a) + BigInt(b);
  if (r > INT64_MAX || r < INT64_MIN) return null;
  return normalize(r);
}

/** Compares two Int64 values: negative, zero or positive. */
export function compareInt64(a: Int64, b: Int64): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The canonical decimal form. */
export function int64ToString(v: Int64): string {
  return typeof v === 'number' ? String(v) : v.toString();
}
