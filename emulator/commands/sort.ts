import type { Database } from '../keyspace/database.js';
import { ListValue, type SetValue, type ZSetValue } from '../keyspace/values.js';
import { ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { intArg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import { partialQuickSort } from './generic-partial-sort.js';
import { modified } from './lookup.js';
import type { Handler } from '../server/command-table.js';
import { cString } from '../numbers/c-string.js';

/**
 * SORT and SORT_RO (src/sort.c):
 *
 *   SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA] [STORE destination]
 *
 * Patterns are C strings to Redis: the search for '*' and '->' stops at the
 * first NUL byte, although the whole pattern is used to build the key name.
 */

const BAD_SCORE = errorReply("One or more scores can't be converted into double");

interface SortItem {
  element: string;
  score: number;
  /** The BY value for ALPHA with BY; null when the looked-up key or field is missing. */
  by: string | null;
}

/**
 * The value a GET or BY pattern names for one element (lookupKeyByPattern):
 * "#" is the element itself; the first '*' is replaced by the element;
 * "key->field" reads a hash field. Null when the pattern has no '*', the key
 * is missing or has the wrong type, or the field is missing.
 */
function lookupByPattern(db: Database, pattern: string, element: string): string | null {
  const c = cString(pattern);
  if (c === '#') return element;
  const star = c.indexOf('*');
  if (star < 0) return null;
  const arrow = c.indexOf('->', star + 1);
  const hasField = arrow >= 0 && arrow + 2 < c.length;
  const keyEnd = hasField ? arrow : pattern.length;
  const key = pattern.slice(0, star) + element + pattern.slice(star + 1, keyEnd);
  const v = db.lookupRead(key);
  if (v === undefined) return null;
  if (hasField) {
    if (typeof v === 'string' || v.type !== 'hash') return null;
    return v.map.get(pattern.slice(arrow + 2)) ?? null;
  }
  if (typeof v === 'string') return v;
  return v.type === 'string' ? v.s : null;
}

const SPACE = /^[\t\n\v\f\r ]*/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?$/;
const SPECIAL = /^([+-]?)(?:(inf|infinity)|nan(?:\([0-9A-Za-z_]*\))?)$/i;
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * A SORT score as Redis reads it: strtod over the C string, which must be
 * used up entirely. Leading blanks are allowed and the empty string is 0.
 * NaN is refused, and so is a result out of range (glibc's ERANGE: overflow,
 * or an inexact result below the normal range). Returns null when refused.
 */
export function sortScore(s: string): number | null {
  const t = cString(s);
  if (t === '') return 0;
  const body = t.slice(SPACE.exec(t)![0].length);
  if (DECIMAL.test(body)) {
    const v = Number(body);
    if (!Number.isFinite(v)) return null;
    if (v === 0) return /[1-9]/.test(body.replace(/[eE].*$/, '')) ? null : v;
    return Math.abs(v) < MIN_NORMAL ? null : v;
  }
  const special = SPECIAL.exec(body);
  if (special) {
    if (special[2] === undefined) return null;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  const hex = HEX.exec(body);
  if (hex) return hexScore(hex[1] === '-', hex[2] ?? '', hex[3] ?? '', hex[4], body);
  return null;
}

/** strtod of a hexadecimal float: exact unless it overflows or loses bits below the normal range. */
function hexScore(negative: boolean, intDigits: string, fracDigits: string, exponent: string | undefined, body: string): number | null {
  if (intDigits.length + fracDigits.length === 0) return null;
  // A 'p' without digits is not part of the number: the text is not used up.
  if (exponent === undefined && /[pP]/.test(body)) return null;
  let mant = BigInt('0x' + intDigits + fracDigits);
  if (mant === 0n) return negative ? -0 : 0;
  let exp = (exponent === undefined ? 0 : Number(exponent)) - 4 * fracDigits.length;
  while ((mant & 1n) === 0n) {
    mant >>= 1n;
    exp++;
  }
  const bits = mant.toString(2).length;
  const top = exp + bits - 1; // the binary exponent of the leading bit
  if (top > 1023) return null;
  if (top < -1022) {
    // Below the normal range only multiples of 2^-1074 are exact.
    if (exp < -1074) return null;
  } else if (bits > 53) {
    // Normal range: rounding is fine, but not into overflow.
    const v = Number(mant) * 2 ** exp;
    if (!Number.isFinite(v)) return null;
    return negative ? -v : v;
  }
  let v = Number(mant);
  let e = exp;
  while (e > 0) {
    const step = Math.min(e, 1000);
    v *= 2 ** step;
    e -= step;
  }
  while (e < 0) {
    const step = Math.min(-e, 1000);
    v /= 2 ** step;
    e += step;
  }
  return negative ? -v : v;
}

/** strcoll in the C.UTF-8 locale: byte order over the C strings (up to NUL). */
function collate(a: string, b: string): number {
  const x = cString(a);
  const y = cString(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Binary comparison, shorter first on a common prefix (compareStringObjects). */
function binaryCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The members of a set in Redis's iteration order; an intset iterates in numeric order. */
function setMembers(v: SetValue): string[] {
  const out = Array.from(v.set);
  if (v.encoding === 'intset') out.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
  return out;
}

/** `count` elements of a list or sorted set in their own order from `start`, or from the end backwards. */
function orderedRange(v: ListValue | ZSetValue, start: number, count: number, desc: boolean): string[] {
  const out: string[] = [];
  if (v.type === 'list') {
    const items = v.items;
    for (let i = desc ? items.length - 1 - start : start, k = 0; k < count; k++, desc ? i-- : i++) out.push(items.get(i));
    return out;
  }
  let node = desc ? v.list.byRank(v.size - start) : v.list.byRank(start + 1);
  while (count-- > 0 && node !== null) {
    out.push(node.member);
    node = desc ? node.backward : (node.next[0] ?? null);
  }
  return out;
}

interface SortOptions {
  desc: boolean;
  alpha: boolean;
  limitStart: number;
  limitCount: number;
  /** BY was given a pattern without '*': every element would weigh the same. */
  dontSort: boolean;
  by: string | null;
  store: string | null;
  gets: string[];
}

/** The options after the key, in any order; later ones override earlier ones. */
function parseSortOptions(argv: string[], readonly: boolean): SortOptions | ErrorReply {
  const o: SortOptions = { desc: false, alpha: false, limitStart: 0, limitCount: -1, dontSort: false, by: null, store: null, gets: [] };
  for (let j = 2; j < argv.length; j++) {
    const left = argv.length - j - 1;
    const name = opt(argv[j]!);
    if (name === 'asc') {
      o.desc = false;
    } else if (name === 'desc') {
      o.desc = true;
    } else if (name === 'alpha') {
      o.alpha = true;
    } else if (name === 'limit' && left >= 2) {
      const start = intArg(argv[j + 1]!);
      if (start === null) return NOT_INTEGER;
      const count = intArg(argv[j + 2]!);
      if (count === null) return NOT_INTEGER;
      o.limitStart = start;
      o.limitCount = count;
      j += 2;
    } else if (!readonly && name === 'store' && left >= 1) {
      o.store = argv[++j]!;
    } else if (name === 'by' && left >= 1) {
      o.by = argv[++j]!;
      // Once set, this stays set even if a later BY has a '*'.
      if (!cString(o.by).includes('*')) o.dontSort = true;
    } else if (name === 'get' && left >= 1) {
      o.gets.push(argv[++j]!);
    } else {
      return SYNTAX_ERROR;
    }
  }
  return o;
}

function sortGeneric(c: Client, argv: string[], readonly: boolean): Reply {
  const o = parseSortOptions(argv, readonly);
  if (o instanceof ErrorReply) return o;
  const { desc, limitStart, limitCount, store, gets } = o;
  let { alpha, by, dontSort } = o;

  const db = c.db;
  const found = db.lookupRead(argv[1]!);
  let value: ListValue | SetValue | ZSetValue;
  if (found === undefined) value = new ListValue();
  else if (typeof found !== 'string' && (found.type === 'list' || found.type === 'set' || found.type === 'zset')) value = found;
  else return WRONGTYPE;

  // A set has no order of its own: when the result is stored, it is sorted
  // anyway so that replicas and the AOF get the same list.
  if (dontSort && value.type === 'set' && store !== null) {
    dontSort = false;
    alpha = true;
    by = null;
  }
  // Sorting a sorted set converts it for good (zsetConvert to skiplist).
  if (value.type === 'zset' && value.encoding !== 'skiplist') value.encoding = 'skiplist';

  const length = value.type === 'list' ? value.items.length : value.type === 'set' ? value.set.size : value.size;
  let start = Math.min(Math.max(limitStart, 0), length);
  const count = Math.min(Math.max(limitCount, -1), length);
  let end = count < 0 ? length - 1 : start + count - 1;
  if (start >= length) {
    start = length - 1;
    end = length - 2;
  }
  if (end >= length) end = length - 1;

  // Lists and sorted sets that need no sorting load only the requested
  // range, in their own order (reversed for DESC); the range then starts at 0.
  let elements: string[];
  if (dontSort && value.type !== 'set') {
    elements = orderedRange(value, start, end - start + 1, desc);
    end -= start;
    start = 0;
  } else if (value.type === 'list') {
    elements = value.items.toArray();
  } else if (value.type === 'set') {
    elements = setMembers(value);
  } else {
    elements = Array.from(value.dict.keys());
  }

  const items: SortItem[] = elements.map((element) => ({ element, score: 0, by: null }));
  let badScore = false;
  if (!dontSort) {
    for (const item of items) {
      const byValue = by !== null ? lookupByPattern(db, by, item.element) : item.element;
      // A missing BY value leaves score 0, or sorts first under ALPHA.
      if (byValue === null) continue;
      if (alpha) {
        if (by !== null) item.by = byValue;
      } else {
        const score = sortScore(byValue);
        if (score === null) badScore = true;
        else item.score = score;
      }
    }
    const compare = comparator(alpha, by !== null, store !== null, desc);
    if (by !== null && (start !== 0 || end !== items.length - 1)) partialQuickSort(items, compare, start, end);
    else items.sort(compare);
  }
  if (badScore) return BAD_SCORE;

  if (store === null) {
    const out: Reply[] = [];
    for (let j = start; j <= end; j++) {
      const element = items[j]!.element;
      if (gets.length === 0) out.push(element);
      for (const g of gets) out.push(lookupByPattern(db, g, element));
    }
    return out;
  }
  const result = new ListValue();
  for (let j = start; j <= end; j++) {
    const element = items[j]!.element;
    if (gets.length === 0) result.items.pushTail(element);
    for (const g of gets) result.items.pushTail(lookupByPattern(db, g, element) ?? '');
  }
  const outputLength = result.items.length;
  if (outputLength > 0) {
    // setKey's own lookup lets an expired destination expire first.
    db.lookupWrite(store);
    db.setKey(store, result);
    notifyKeyspaceEvent(c.server, NOTIFY.LIST, 'sortstore', store, db.id);
    c.server.dirty += outputLength;
  } else if (db.delete(store)) {
    modified(c, store);
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', store, db.id);
  }
  return outputLength;
}

/** sortCompare: numeric scores with ties broken by the elements' bytes, or ALPHA. */
function comparator(alpha: boolean, byPattern: boolean, storing: boolean, desc: boolean): (a: SortItem, b: SortItem) => number {
  let cmp: (a: SortItem, b: SortItem) => number;
  if (!alpha) {
    cmp = (a, b) => (a.score > b.score ? 1 : a.score < b.score ? -1 : binaryCompare(a.element, b.element));
  } else if (byPattern) {
    const strings = storing ? binaryCompare : collate;
    cmp = (a, b) => {
      if (a.by === null || b.by === null) return a.by === b.by ? 0 : a.by === null ? -1 : 1;
      return strings(a.by, b.by);
    };
  } else {
    const strings = storing ? binaryCompare : collate;
    cmp = (a, b) => strings(a.element, b.element);
  }
  return desc ? (a, b) => -cmp(a, b) : cmp;
}

function sort(c: Client, argv: string[]): Reply {
  return sortGeneric(c, argv, false);
}

function sortRo(c: Client, argv: string[]): Reply {
  return sortGeneric(c, argv, true);
}

export const sortCommands: Record<string, Handler> = {
  sort,
  sort_ro: sortRo,
};
