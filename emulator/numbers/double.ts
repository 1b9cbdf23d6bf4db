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
  const [digits, exp] = seventeenDigits(a);
  let out: string;
  if (exp < -4 || exp >= 17) {
    const trimmed = digits.replace(/0+$/, '');
    const mant = trimmed.length > 1 ? trimmed[0] + '.' + trimmed.slice(1) : trimmed;
    const e = Math.abs(exp);
    out = mant + (exp < 0 ? 'e-' : 'e+') + (e < 10 ? '0' + e : String(e));
  } else if (exp >= 0) {
    const intPart = digits.slice(0, exp + 1);
    const frac = digits.slice(exp + 1).replace(/0+$/, '');
    out = frac ? intPart + '.' + frac : intPart;
  } else {
    const frac = ('0'.repeat(-exp - 1) + digits).replace(/0+$/, '');
    out = '0.' + frac;
  }
  return neg ? '-' + out : out;
}

/**
 * The 17 significant digits of a positive finite double, correctly rounded
 * with ties to even (as glibc does), and the decimal exponent of the first.
 */
function seventeenDigits(a: number): [string, number] {
  const s = a.toExponential(16);
  const e = s.indexOf('e');
  const digits = s[0] + s.slice(2, e);
  const exp = parseInt(s.slice(e + 1), 10);
  // toExponential breaks exact ties away from zero; glibc breaks them to
  // even. A tie shows as an 18th digit of 5 with nothing after it.
  const s18 = a.toExponential(17);
  if (s18.charCodeAt(s18.indexOf('e') - 1) !== 53 /* 5 */) return [digits, exp];
  const wide = a.toExponential(100);
  const we = wide.indexOf('e');
  const wdigits = wide[0] + wide.slice(2, we);
  if (!/^0*$/.test(wdigits.slice(18))) return [digits, exp];
  const down = wdigits.slice(0, 17);
  if ((down.charCodeAt(16) - 48) % 2 !== 0) return [digits, exp];
  return [down, parseInt(wide.slice(we + 1), 10)];
}
