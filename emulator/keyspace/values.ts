import { Deque } from './deque.js';
import { SkipList } from './skiplist.js';
import { bytesFromArray } from '../resp/bytes.js';

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
export type Value = string | StringObject | ListValue | HashValue | SetValue | ZSetValue | StreamValue;
export type ObjectValue = Exclude<Value, string>;

export type TypeName = 'string' | 'list' | 'hash' | 'set' | 'zset' | 'stream';

/** Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
export const EMBSTR_SIZE_LIMIT = 44;

/**
 * A string whose encoding is not the derived one, or that is edited in
 * place. Commands that overwrite a few bytes of a long string (SETRANGE,
 * SETBIT) use writeAt, which keeps a growable byte buffer so that each edit
 * costs what it writes, as on an sds; `s` turns the buffer back into a byte
 * string when read, and keeps that until the next edit.
 */
export class StringObject {
  readonly type = 'string';
  /** The bytes as a byte string, or null while `buf` is newer. */
  private text: string | null;
  /** The bytes after in-place edits: `used` of them are valid, the rest is spare room. */
  private buf: Uint8Array | null = null;
  private used = 0;

  constructor(
    s: string,
    public encoding: 'raw' | 'embstr' = 'raw',
  ) {
    this.text = s;
  }

  get s(): string {
    if (this.text === null) this.text = bytesFromArray(this.buf!, 0, this.used);
    return this.text;
  }

  set s(value: string) {
    this.text = value;
    this.buf = null;
    this.used = 0;
  }

  /** The length in bytes, without building the string. */
  get length(): number {
    return this.text !== null ? this.text.length : this.used;
  }

  /** Bytes [start, end), without building the whole string. */
  slice(start: number, end: number): string {
    if (this.text !== null) return this.text.slice(start, end);
    return bytesFromArray(this.buf!, start, Math.min(end, this.used));
  }

  /** Overwrites bytes from `offset`, growing with zero bytes as needed (sdsgrowzero and memcpy). */
  writeAt(offset: number, bytes: string): void {
    if (bytes.length === 0 && offset <= this.length) return;
    let buf = this.buf;
    if (buf === null) {
      const text = this.text!;
      buf = new Uint8Array(Math.max(text.length, offset + bytes.length));
      for (let i = 0; i < text.length; i++) buf[i] = text.charCodeAt(i);
      this.used = text.length;
    }
    const end = offset + bytes.length;
    if (end > buf.length) {
      // Room to spare, as sdsMakeRoomFor does, so a run of writes past the end stays linear.
      const grown = new Uint8Array(Math.max(end, Math.min(buf.length * 2, end + 1024 * 1024)));
      grown.set(buf.subarray(0, this.used));
      buf = grown;
    }
    if (offset > this.used) buf.fill(0, this.used, offset);
    for (let i = 0; i < bytes.length; i++) buf[offset + i] = bytes.charCodeAt(i);
    if (end > this.used) this.used = end;
    this.buf = buf;
    this.text = null;
  }
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

/**
 * A stream from a file or a DUMP payload: the emulator has no stream
 * commands, so it keeps the value exactly as the file described it, to
 * write it back (RDB files, AOF bases, DUMP) as Redis would, and treats
 * the key like any other (TYPE, DEL, RENAME, EXPIRE, COPY).
 *
 * `parts` is the RDB value in the order it is stored, each in the form
 * that writes it back: a bigint is a length (rdbSaveLen), a byte string a
 * string (rdbSaveRawString, compressed as the configuration says when
 * written), a Uint8Array raw bytes (stream IDs, millisecond times).
 */
export class StreamValue {
  readonly type = 'stream';
  constructor(
    /** The RDB type it was stored as (RDB_TYPE_STREAM_LISTPACKS or _2). */
    readonly rdbType: number,
    readonly parts: ReadonlyArray<bigint | string | Uint8Array>,
    /** Entries in the stream (XLEN). */
    readonly length: number,
    /** The bytes of its listpacks: most of its memory. */
    readonly listpackBytes: number,
  ) {}
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
    case 'stream':
      return 'stream';
  }
}
