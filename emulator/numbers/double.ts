/**
 * Doubles as Redis parses (strtod via string2d) and prints them (%.17g).
 */

/**
 * Redis's string2d: the whole string must be a strtod number; no leading
 * space; overflow to +-inf, underflow to zero and NaN are rejected; "inf",
 * "-Infinity" and hex floats are accepted. Returns null when invalid.
 */
export function parseDouble(s: string): number | null {
  const n = s.length;
  if (n === 0) return null;
  // Fast path: plain decimal numbers.
  if (DECIMAL.test(s)) {
    const v = Number(s);
    if (v === Infinity || v === -Infinity) return null;
    if (v === 0 && NONZERO_DIGIT.test(mantissaOf(s))) return null; // underflow
    return v;
  }
  return parseSpecial(s);
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NONZERO_DIGIT = /[1-9]/;
const INFINITY = /^([+-]?)(?:inf|infinity)$/i;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?$/;

function mantissaOf(s: string): string {
  const e = s.search(/[eE]/);
  return e < 0 ? s : s.slice(0, e);
}

function parseSpecial(s: string): number | null {
  const inf = INFINITY.exec(s);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  const hex = HEX.exec(s);
  if (hex) {
    const intPart = hex[2] ?? '';
    const fracPart = hex[3] ?? '';
    if (intPart.length + fracPart.length === 0) return null;
    // strtod needs a 'p' exponent to have digits; "0x1p" parses as "0x1" and stops.
    if (/[pP]$/.test(s)) return null;
    let exp = hex[4] ? parseInt(hex[4], 10) : 0;
    exp -= 4 * fracPart.length;
    const mant = BigInt('0x' + (intPart + fracPart || '0'));
    if (mant === 0n) return hex[1] === '-' ? -0 : 0;
    const v = scaleByPowerOfTwo(mant, exp);
    if (v === 0 || !Number.isFinite(v)) return null;
    return hex[1] === '-' ? -v : v;
  }
  return null;
}

/** mant * 2^exp, correctly rounded for the normal range. */
function scaleByPowerOfTwo(mant: bigint, exp: number): number {
  if (exp > 2000) return Infinity;
  if (exp < -2200) return 0;
  if (exp >= 0) return Number(mant << BigInt(exp));
  // Keep 64 significant bits and a sticky bit before letting Number() round.
  const bits = mant.toString(2).length;
  const keep = Math.max(0, bits - 64);
  let m = mant >> BigInt(keep);
  if (keep > 0 && (mant & ((1n << BigInt(keep)) - 1n)) !== 0n) m |= 1n;
  let e = exp + keep;
  let v = Number(m);
  while (e < -1000) {
    v /= 2 ** 1000;
    e += 1000;
  }
  return v * 2 ** e;
}

/**
 * printf("%.17g", d), as Redis formats doubles in replies (ZSCORE, ZINCRBY,
 * WITHSCORES). inf and nan spelled as glibc spells them.
 */
export function formatDouble(d: number): string {
  if (d !== d) return 'nan';
  if (d === Infinity) return 'inf';
  if (d === -Infinity) return '-inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  // Small integers print as themselves.
  if (Number.isSafeInteger(d) && d > -1e16 && d < 1e16) return String(d);
  const neg = d < 0;
  const a = neg ? -d : d;
  // "d.dddddddddddddddde+x": the 17 significant digits are s[0] and s[2..17].
  const s = seventeenDigits(a);
  const exp = Number(s.slice(18 + 1));
  // %g drops trailing zeros of the fraction.
  let end = 18;
  while (end > 2 && s.charCodeAt(end - 1) === 48) end--;
  let out: string;
  if (exp < -4 || exp >= 17) {
    const mant = end > 2 ? s.slice(0, end) : s[0]!;
    const e = exp < 0 ? -exp : exp;
    out = mant + (exp < 0 ? 'e-' : 'e+') + (e < 10 ? '0' + e : String(e));
  } else if (exp >= 0) {
    const intPart = exp === 0 ? s[0]! : s[0]! + s.slice(2, 2 + exp);
    out = end > 2 + exp ? intPart + '.' + s.slice(2 + exp, end) : intPart;
  } else {
    out = '0.' + '0'.repeat(-exp - 1) + s[0]! + s.slice(2, end);
  }
  return neg ? '-' + out : out;
}

/**
 * A positive finite double as toExponential(16) spells it, but with an exact
 * tie on the 17th digit broken to even, as glibc does (toExponential breaks
 * it away from zero).
 */
function seventeenDigits(a: number): string {
  const s = a.toExponential(16);
  // A tie needs a value with at most 18 significant digits, so at most 25
  // binary digits after the point (5^26 has 19 digits): most doubles cannot tie.
  if (!Number.isInteger(a * 33554432)) return s;
  // A tie shows as an 18th digit of 5 with nothing after it.
  const s18 = a.toExponential(17);
  if (s18.charCodeAt(s18.indexOf('e') - 1) !== 53 /* 5 */) return s;
  const wide = a.toExponential(100);
  const we = wide.indexOf('e');
  if (!/^0*$/.test(wide.slice(19, we))) return s;
  // Rounded down: keep 17 digits when the 17th is even.
  if ((wide.charCodeAt(17) - 48) % 2 !== 0) return s;
  return wide.slice(0, 18) + wide.slice(we);
}
