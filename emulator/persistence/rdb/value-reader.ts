import { Deque } from '../../keyspace/deque.js';
import { HashValue, ListValue, SetValue, ZSetValue, isIntEncodable, type Value } from '../../keyspace/values.js';
import { bytesFromArray } from '../../resp/bytes.js';
import { ByteReader } from './bytes.js';
import { abort } from './errors.js';
import { decodeIntset } from './intset.js';
import { decodeListpack, listpackHeaderValid } from '../../keyspace/encoding/listpack.js';
import { CONTAINER_PACKED, CONTAINER_PLAIN } from '../../keyspace/encoding/quicklist.js';
import { readBlob, readLength, readString, readTextDouble } from './string-encoding.js';
import {
  TYPE_HASH,
  TYPE_HASH_LISTPACK,
  TYPE_HASH_ZIPLIST,
  TYPE_HASH_ZIPMAP,
  TYPE_LIST,
  TYPE_LIST_QUICKLIST,
  TYPE_LIST_QUICKLIST_2,
  TYPE_LIST_ZIPLIST,
  TYPE_MODULE,
  TYPE_MODULE_2,
  TYPE_SET,
  TYPE_SET_INTSET,
  TYPE_STREAM_LISTPACKS,
  TYPE_STREAM_LISTPACKS_2,
  TYPE_STRING,
  TYPE_ZSET,
  TYPE_ZSET_2,
  TYPE_ZSET_LISTPACK,
  TYPE_ZSET_ZIPLIST,
} from './types.js';
import { decodeZiplist } from './ziplist.js';
import { readStreamValue } from './stream-value.js';
import { decodeZipmap } from './zipmap.js';

/**
 * Loads one value the way Redis 7.0's rdbLoadObject does, including the
 * encoding it picks for what it loaded under the current configuration:
 * a small hash or sorted set written as a hash table or skip list becomes
 * a listpack again, a set of few integers an intset, a listpack that holds
 * too many entries a hash table.
 */

export interface ValueReadOptions {
  hashMaxListpackEntries: number;
  hashMaxListpackValue: number;
  setMaxIntsetEntries: number;
  zsetMaxListpackEntries: number;
  zsetMaxListpackValue: number;
  /**
   * sanitize-dump-payload yes: listpacks and intsets are checked entry by
   * entry, and hashes for repeated fields, as they load.
   */
  deepSanitize: boolean;
  /** Called for each deep check made (INFO stats dump_payload_sanitizations). */
  onDeepCheck?: () => void;
}

/** Redis never lets an intset grow past 2^30 entries. */
const INTSET_HARD_LIMIT = 1 << 30;
/** A listpack may not grow past 1 GB (lpSafeToAdd). */
const LISTPACK_MAX_SAFETY_SIZE = 1 << 30;

function corrupt(r: ByteReader, message: string): never {
  return abort('corrupt', message, r.pos);
}

/** A load that failed without a message of its own goes through Redis's end-of-file path. */
function shortRead(r: ByteReader): never {
  return abort('short-read', 'Unexpected EOF reading RDB file', r.pos);
}

function countSanitization(opts: ValueReadOptions): void {
  if (opts.deepSanitize && opts.onDeepCheck) opts.onDeepCheck();
}

/** A score as a listpack stores it: an integer or strtod's reading of the text. */
function scoreOf(text: string): number {
  const v = Number(text);
  if (!Number.isNaN(v) || text === 'nan') return v;
  const lead = Number.parseFloat(text);
  if (!Number.isNaN(lead)) return lead;
  if (/^\s*[+-]?inf/i.test(text)) return text.trimStart().startsWith('-') ? -Infinity : Infinity;
  return 0;
}

function zsetFromPairs(entries: string[], opts: ValueReadOptions): ZSetValue {
  const z = new ZSetValue('listpack');
  for (let i = 0; i < entries.length; i += 2) z.set(entries[i]!, scoreOf(entries[i + 1]!));
  if (z.size > opts.zsetMaxListpackEntries) z.encoding = 'skiplist';
  return z;
}

function hashFromPairs(entries: string[], opts: ValueReadOptions): HashValue {
  const h = new HashValue('listpack');
  for (let i = 0; i < entries.length; i += 2) h.map.set(entries[i]!, entries[i + 1]!);
  if (h.map.size > opts.hashMaxListpackEntries) h.encoding = 'hashtable';
  return h;
}

/** Whether field names (the even entries) repeat. */
function hasDuplicateFields(entries: string[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < entries.length; i += 2) {
    if (seen.has(entries[i]!)) return true;
    seen.add(entries[i]!);
  }
  return false;
}

/** The nine-character name a module type id encodes (moduleTypeNameByID). */
export function moduleTypeName(id: bigint): string {
  const charset = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let rest = id >> 10n;
  let name = '';
  for (let j = 0; j < 9; j++) {
    name = charset[Number(rest & 63n)] + name;
    rest >>= 6n;
  }
  return name;
}

export function readModuleId(r: ByteReader): bigint {
  const first = r.buf[r.pos];
  if (first === 0x81) {
    r.pos++;
    return r.u64be();
  }
  return BigInt(readLength(r));
}

/**
 * Reads a value of the given type. Returns null for an empty collection,
 * which Redis skips with a warning; aborts on anything malformed.
 */
export function readObject(r: ByteReader, type: number, opts: ValueReadOptions): Value | null {
  switch (type) {
    case TYPE_STRING:
      return readString(r);

    case TYPE_LIST: {
      const len = readLength(r);
      if (len === 0) return null;
      const items = new Deque<string>(len);
      for (let i = 0; i < len; i++) items.pushTail(readString(r));
      return new ListValue(items);
    }

    case TYPE_SET: {
      const len = readLength(r);
      if (len === 0) return null;
      const maxIntset = Math.min(opts.setMaxIntsetEntries, INTSET_HARD_LIMIT);
      const s = new SetValue(len > maxIntset ? 'hashtable' : 'intset');
      for (let i = 0; i < len; i++) {
        const m = readString(r);
        if (s.encoding === 'intset' && !isIntEncodable(m)) s.encoding = 'hashtable';
        if (s.set.has(m)) corrupt(r, 'Duplicate set members detected');
        s.set.add(m);
      }
      return s;
    }

    case TYPE_ZSET:
    case TYPE_ZSET_2: {
      const len = readLength(r);
      if (len === 0) return null;
      const z = new ZSetValue('skiplist');
      let maxLen = 0;
      let totalLen = 0;
      for (let i = 0; i < len; i++) {
        const m = readString(r);
        const score = type === TYPE_ZSET_2 ? r.f64le() : readTextDouble(r);
        if (Number.isNaN(score)) corrupt(r, 'Zset with NAN score detected');
        if (m.length > maxLen) maxLen = m.length;
        totalLen += m.length;
        if (z.dict.has(m)) corrupt(r, 'Duplicate zset fields detected');
        z.set(m, score);
      }
      if (z.size <= opts.zsetMaxListpackEntries && maxLen <= opts.zsetMaxListpackValue && totalLen <= LISTPACK_MAX_SAFETY_SIZE) {
        z.encoding = 'listpack';
        // A listpack keeps an integral score as an integer, so -0 becomes 0.
        for (const node of z.list) {
          if (Object.is(node.score, -0)) {
            node.score = 0;
            z.dict.set(node.member, 0);
          }
        }
      }
      return z;
    }

    case TYPE_HASH: {
      const len = readLength(r);
      if (len === 0) return null;
      const h = new HashValue(len > opts.hashMaxListpackEntries ? 'hashtable' : 'listpack');
      let listpackBytes = 0;
      for (let i = 0; i < len; i++) {
        const f = readString(r);
        const v = readString(r);
        if (h.map.has(f)) corrupt(r, h.encoding === 'listpack' && opts.deepSanitize ? 'Hash with dup elements' : 'Duplicate hash fields detected');
        if (h.encoding === 'listpack') {
          listpackBytes += f.length + v.length;
          if (f.length > opts.hashMaxListpackValue || v.length > opts.hashMaxListpackValue || listpackBytes > LISTPACK_MAX_SAFETY_SIZE) {
            h.encoding = 'hashtable';
          }
        }
        h.map.set(f, v);
      }
      return h;
    }

    case TYPE_LIST_QUICKLIST:
    case TYPE_LIST_QUICKLIST_2: {
      const nodes = readLength(r);
      if (nodes === 0) return null;
      const items = new Deque<string>();
      for (let n = 0; n < nodes; n++) {
        let container = CONTAINER_PACKED;
        if (type === TYPE_LIST_QUICKLIST_2) {
          container = readLength(r);
          if (container !== CONTAINER_PACKED && container !== CONTAINER_PLAIN) corrupt(r, 'Quicklist integrity check failed.');
        }
        const blob = readBlob(r);
        if (blob.length === 0) shortRead(r);
        if (container === CONTAINER_PLAIN) {
          items.pushTail(bytesFromArray(blob));
          continue;
        }
        let entries: string[] | null;
        if (type === TYPE_LIST_QUICKLIST_2) {
          countSanitization(opts);
          entries = listpackHeaderValid(blob) ? decodeListpack(blob) : null;
          if (entries === null) corrupt(r, 'Listpack integrity check failed.');
        } else {
          entries = decodeZiplist(blob);
          if (entries === null) corrupt(r, 'Ziplist integrity check failed.');
        }
        // Empty nodes are skipped; an empty list as a whole is an empty key.
        for (const e of entries) items.pushTail(e);
      }
      return items.length === 0 ? null : new ListValue(items);
    }

    case TYPE_HASH_ZIPMAP: {
      const pairs = decodeZipmap(readBlob(r));
      if (pairs === null) corrupt(r, 'Zipmap integrity check failed.');
      const h = new HashValue('listpack');
      let maxLen = 0;
      for (const [f, v] of pairs) {
        if (h.map.has(f)) corrupt(r, `Hash zipmap with dup elements, or big length (${f.length})`);
        if (f.length > maxLen) maxLen = f.length;
        if (v.length > maxLen) maxLen = v.length;
        h.map.set(f, v);
      }
      if (h.map.size > opts.hashMaxListpackEntries || maxLen > opts.hashMaxListpackValue) h.encoding = 'hashtable';
      return h;
    }

    case TYPE_LIST_ZIPLIST: {
      const entries = decodeZiplist(readBlob(r));
      if (entries === null) corrupt(r, 'List ziplist integrity check failed.');
      if (entries.length === 0) return null;
      return new ListValue(Deque.from(entries));
    }

    case TYPE_SET_INTSET: {
      const blob = readBlob(r);
      countSanitization(opts);
      // The emulator's sets cannot hold a repeated member, so the order is
      // always checked, not only under deep sanitization.
      const members = decodeIntset(blob, true);
      if (members === null) corrupt(r, 'Intset integrity check failed.');
      const s = new SetValue(members.length > opts.setMaxIntsetEntries ? 'hashtable' : 'intset');
      for (const m of members) s.set.add(m);
      return s;
    }

    case TYPE_ZSET_ZIPLIST: {
      const entries = decodeZiplist(readBlob(r));
      if (entries === null || entries.length % 2 !== 0 || hasDuplicateFields(entries)) corrupt(r, 'Zset ziplist integrity check failed.');
      if (entries.length === 0) return null;
      return zsetFromPairs(entries, opts);
    }

    case TYPE_ZSET_LISTPACK: {
      const blob = readBlob(r);
      countSanitization(opts);
      const entries = listpackHeaderValid(blob) ? decodeListpack(blob) : null;
      if (entries === null || entries.length % 2 !== 0 || hasDuplicateFields(entries)) corrupt(r, 'Zset listpack integrity check failed.');
      if (entries.length === 0) return null;
      return zsetFromPairs(entries, opts);
    }

    case TYPE_HASH_ZIPLIST: {
      const entries = decodeZiplist(readBlob(r));
      if (entries === null || entries.length % 2 !== 0 || hasDuplicateFields(entries)) corrupt(r, 'Hash ziplist integrity check failed.');
      if (entries.length === 0) return null;
      return hashFromPairs(entries, opts);
    }

    case TYPE_HASH_LISTPACK: {
      const blob = readBlob(r);
      countSanitization(opts);
      const entries = listpackHeaderValid(blob) ? decodeListpack(blob) : null;
      if (entries === null || entries.length % 2 !== 0 || hasDuplicateFields(entries)) corrupt(r, 'Hash listpack integrity check failed.');
      if (entries.length === 0) return null;
      return hashFromPairs(entries, opts);
    }

    case TYPE_STREAM_LISTPACKS:
    case TYPE_STREAM_LISTPACKS_2:
      return readStreamValue(r, type);

    case TYPE_MODULE:
    case TYPE_MODULE_2: {
      const name = moduleTypeName(readModuleId(r));
      return corrupt(r, `The RDB file contains module data I can't load: no matching module type '${name}'`);
    }

    default:
      return abort('unknown-type', `Unknown RDB encoding type ${type}`, r.pos);
  }
}
