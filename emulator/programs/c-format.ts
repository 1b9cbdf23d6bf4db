import { isCSpace } from '../numbers/c-string.js';

/**
 * Number formatting the way a C program built against glibc prints it, for
 * tools whose output must match byte for byte.
 *
 *   formatFixed(0.0625, 3)      // '0.062': glibc breaks exact ties towards the even digit
 *   formatFixed(1 / 0, 2)       // 'inf'
 *   formatFixed(0.125, 3, 9)    // '    0.125' (printf's %9.3f)
 */

/**
 * printf's `%W.Df`: `digits` decimals, padded on the left to `width`.
 * JavaScript's toFixed rounds exact ties away from zero where glibc rounds
 * them to even, so ties are detected and corrected. NaN prints as "-nan":
 * the NaNs these tools print come from 0/0, which on x86-64 yields the
 * default NaN with its sign bit set.
 */
export function formatFixed(x: number, digits: number, width = 0): string {
  let s: string;
  if (Number.isNaN(x)) s = '-nan';
  else if (x === Infinity) s = 'inf';
  else if (x === -Infinity) s = '-inf';
  else {
    s = x.toFixed(digits);
    // x lies exactly halfway between two printable values when x * 2 * 10^d
    // is an odd integer; for a binary fraction that happens exactly when its
    // lowest set bit is worth 2^-(d+1). Scaling by powers of two is exact.
    if (Number.isInteger(x * 2 ** (digits + 1)) && !Number.isInteger(x * 2 ** digits)) {
      const last = s.charCodeAt(s.length - 1) - 48;
      // toFixed went away from zero; glibc keeps the even neighbour, one
      // unit nearer zero when the digit it chose is odd (never a borrow).
      if ((last & 1) === 1) s = s.slice(0, -1) + String.fromCharCode(48 + last - 1);
    }
    if (Object.is(x, -0)) s = '-' + s;
  }
  return s.length < width ? ' '.repeat(width - s.length) + s : s;
}

/** printf's `%*s` with a one-space argument: at least one space, `width` when wider. */
export function spaces(width: number): string {
  return width > 1 ? ' '.repeat(width) : ' ';
}

/** A C `float`: rounds a double to single precision (what a `float` variable holds). */
export const f32 = Math.fround;

/**
 * C's atoi as glibc has it: (int) strtol(s, NULL, 10). Leading blanks and a
 * sign are accepted, parsing stops at the first non-digit, no digits give 0;
 * strtol saturates at the long range and the cast keeps the low 32 bits.
 */
export function atoi(s: string): number {
  let i = 0;
  while (i < s.length && isCSpace(s.charCodeAt(i))) i++;
  let neg = false;
  if (s[i] === '+' || s[i] === '-') neg = s[i++] === '-';
  let v = 0n;
  const LONG_MAX = 2n ** 63n - 1n;
  let saturated = false;
  for (; i < s.length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    if (!saturated) {
      v = v * 10n + BigInt(d);
      if (v > LONG_MAX + 1n) saturated = true;
    }
  }
  let signed = neg ? -v : v;
  if (saturated || signed > LONG_MAX) signed = neg ? -LONG_MAX - 1n : LONG_MAX;
  if (signed < -LONG_MAX - 1n) signed = -LONG_MAX - 1n;
  return Number(BigInt.asIntN(32, signed));
}
