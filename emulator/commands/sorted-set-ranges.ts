import { lexGteMin, lexLteMax, lexRangeEmpty, type LexBound, type LexRange, type ScoreRange, type ZNode } from '../keyspace/skiplist.js';
import type { ZSetValue } from '../keyspace/values.js';
import { parseDouble } from '../numbers/double.js';
import { errorReply } from '../resp/reply.js';
import { cString, isCSpace } from '../numbers/c-string.js';

/**
 * Score and lexicographic ranges of the sorted-set commands: parsing
 * (zslParseRange, zslParseLexRange) and the lexicographic searches, which
 * depend on the encoding (see sorted-set-object.ts).
 */

export const NOT_FLOAT_RANGE = errorReply('min or max is not a float');
export const NOT_LEX_RANGE = errorReply('min or max not valid string range item');

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INFINITY = /^[+-]?(?:inf|infinity)$/i;
const HEX = /^[+-]?0[xX]/;

/**
 * A whole C string read by strtod, as zslParseRange reads its bounds: the
 * argument stops at its first NUL, leading white space is skipped, the
 * empty string is 0, overflow gives an infinity, and NaN is refused.
 */
function strtodWhole(arg: string): number | null {
  let s = cString(arg);
  // strtod converts nothing in an empty string and leaves the end pointer
  // on the terminating NUL, which zslParseRange accepts as 0.
  if (s.length === 0) return 0;
  let i = 0;
  while (i < s.length && isCSpace(s.charCodeAt(i))) i++;
  if (i > 0) s = s.slice(i);
  if (DECIMAL.test(s)) return Number(s);
  if (INFINITY.test(s)) return s.charCodeAt(0) === 45 ? -Infinity : Infinity;
  if (HEX.test(s)) return parseDouble(s);
  return null;
}

/** One bound of a score range: "(" makes it exclusive. */
function parseScoreBound(arg: string): { v: number; ex: boolean } | null {
  const ex = arg.charCodeAt(0) === 40; /* ( */
  const v = strtodWhole(ex ? arg.slice(1) : arg);
  return v === null ? null : { v, ex };
}

/** ZRANGEBYSCORE-style min and max, or null for "min or max is not a float". */
export function parseScoreRange(minArg: string, maxArg: string): ScoreRange | null {
  const min = parseScoreBound(minArg);
  if (min === null) return null;
  const max = parseScoreBound(maxArg);
  if (max === null) return null;
  return { min: min.v, max: max.v, minEx: min.ex, maxEx: max.ex };
}

const MINUS_INF: LexBound = { s: '', inf: -1 };
const PLUS_INF: LexBound = { s: '', inf: 1 };

/** One bound of a lex range: "(x", "[x", "-" or "+"; the sign must end the C string. */
function parseLexBound(arg: string): { b: LexBound; ex: boolean } | null {
  switch (arg.charCodeAt(0)) {
    case 43 /* + */:
      return arg.length === 1 || arg.charCodeAt(1) === 0 ? { b: PLUS_INF, ex: true } : null;
    case 45 /* - */:
      return arg.length === 1 || arg.charCodeAt(1) === 0 ? { b: MINUS_INF, ex: true } : null;
    case 40 /* ( */:
      return { b: { s: arg.slice(1), inf: 0 }, ex: true };
    case 91 /* [ */:
      return { b: { s: arg.slice(1), inf: 0 }, ex: false };
    default:
      return null;
  }
}

/** ZRANGEBYLEX-style min and max, or null for "min or max not valid string range item". */
export function parseLexRange(minArg: string, maxArg: string): LexRange | null {
  const min = parseLexBound(minArg);
  if (min === null) return null;
  const max = parseLexBound(maxArg);
  if (max === null) return null;
  return { min: min.b, max: max.b, minEx: min.ex, maxEx: max.ex };
}

/** Whether a listpack's ends allow members in the range (zzlIsInLexRange). */
function listpackMayHoldLex(z: ZSetValue, r: LexRange): boolean {
  if (lexRangeEmpty(r)) return false;
  const last = z.list.tail;
  if (last === null || !lexGteMin(last.member, r)) return false;
  const first = z.list.first();
  return first !== null && lexLteMax(first.member, r);
}

/**
 * The first node in the lex range. A listpack is walked from its head to the
 * first member >= min, which must then be <= max (zzlFirstInLexRange).
 */
export function firstInLexRange(z: ZSetValue, r: LexRange): ZNode | null {
  if (z.encoding === 'skiplist') return z.list.firstInLexRange(r);
  if (!listpackMayHoldLex(z, r)) return null;
  for (let n = z.list.first(); n !== null; n = n.next[0]!) {
    if (lexGteMin(n.member, r)) return lexLteMax(n.member, r) ? n : null;
  }
  return null;
}

/** The last node in the lex range, walking a listpack back from its tail (zzlLastInLexRange). */
export function lastInLexRange(z: ZSetValue, r: LexRange): ZNode | null {
  if (z.encoding === 'skiplist') return z.list.lastInLexRange(r);
  if (!listpackMayHoldLex(z, r)) return null;
  for (let n = z.list.tail; n !== null; n = n.backward) {
    if (lexLteMax(n.member, r)) return lexGteMin(n.member, r) ? n : null;
  }
  return null;
}
