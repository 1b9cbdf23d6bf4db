import { Deque } from './deque.js';
import { SkipList } from './skiplist.js';

/**
 * The values a key can hold.
 *
 * A string value is stored as a bare byte string: most keys in most datasets
 * are strings, and a bare string costs nothing beyond its bytes. Its
 * encoding is then what Redis's tryObjectEncoding would pick (int, embstr or
 * raw by length). A string whose encoding Redis did not pick that way (raw
 * after APPEND or SETRANGE, embstr for an INCRBYFLOAT result that looks like
 * an integer) is wrapped in StringObject so that OBJECT ENCODING stays true.
 * Everything else is a small class with a `type` tag.
 */
export type Value = string | StringObject | ListValue | HashValue | SetValue | ZSetValue;
export type ObjectValue = Exclude<Value, string>;

export type TypeName = 'string' | 'list' | 'hash' | 'set' | 'zset';

/** Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
export const EMBSTR_SIZE_LIMIT = 44;

export class StringObject {
  readonly type = 'string';
  constructor(
    public s: string,
    public encoding: 'raw' | 'embstr' = 'raw',
  ) {}
}

export class ListValue {
  readonly type = 'list';
  readonly items: Deque<string>;
  constructor(items?: Deque<string>) {
    this.items = items ?? new Deque<string>();
  }
}

export type HashEncoding = 'listpack' | 'hashtable';
export class HashValue {
  readonly type = 'hash';
  /** Insertion order is the listpack order while the encoding is listpack. */
  readonly map = new Map<string, string>();
  constructor(public encoding: HashEncoding = 'listpack') {}
}

export type SetEncoding = 'intset' | 'hashtable';
export class SetValue {
  readonly type = 'set';
  readonly set = new Set<string>();
  constructor(public encoding: SetEncoding = 'hashtable') {}
}

export type ZSetEncoding = 'listpack' | 'skiplist';
export class ZSetValue {
  readonly type = 'zset';
  readonly dict = new Map<string, number>();
  readonly list = new SkipList();
  constructor(public encoding: ZSetEncoding = 'listpack') {}

  /** Adds or rescores a member. */
  set(member: string, score: number): void {
    const cur = this.dict.get(member);
    if (cur === undefined) {
      this.list.insert(score, member);
    } else if (cur !== score) {
      this.list.updateScore(cur, member, score);
    } else {
      return;
    }
    this.dict.set(member, score);
  }

  /** Removes a member; returns whether it was there. */
  delete(member: string): boolean {
    const cur = this.dict.get(member);
    if (cur === undefined) return false;
    this.dict.delete(member);
    this.list.delete(cur, member);
    return true;
  }

  get size(): number {
    return this.dict.size;
  }
}

export function typeOf(v: Value): TypeName {
  return typeof v === 'string' ? 'string' : v.type;
}

/** The string held by a string value. */
export function stringOf(v: string | StringObject): string {
  return typeof v === 'string' ? v : v.s;
}

/**
 * Whether a string would be stored as an integer by Redis's
 * tryObjectEncoding: at most 20 bytes and a canonical int64.
 */
export function isIntEncodable(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 20) return false;
  let i = 0;
  if (s.charCodeAt(0) === 45) {
    if (n === 1) return false;
    i = 1;
  }
  const first = s.charCodeAt(i);
  if (first === 48) return n === 1;
  if (first < 49 || first > 57) return false;
  for (let k = i + 1; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  if (n - i < 19) return true;
  const big = BigInt(s);
  return big <= 9223372036854775807n && big >= -9223372036854775808n;
}

/** OBJECT ENCODING of a value, as Redis 7.0 names it. */
export function encodingOf(v: Value): string {
  if (typeof v === 'string') {
    if (isIntEncodable(v)) return 'int';
    return v.length <= EMBSTR_SIZE_LIMIT ? 'embstr' : 'raw';
  }
  switch (v.type) {
    case 'string':
      return v.encoding;
    case 'list':
      return 'quicklist';
    case 'hash':
    case 'set':
    case 'zset':
      return v.encoding;
  }
}
