import { parseInt64 } from '../../../numbers/int64.js';
import { decodeIntset } from '../../rdb/intset.js';
import { decodeListpack } from '../../../keyspace/encoding/listpack.js';
import { decodeZiplist } from '../../rdb/ziplist.js';
import { decodeZipmap } from '../../rdb/zipmap.js';
import { bytesFromArray } from '../../../resp/bytes.js';
import { corrupt } from './report.js';
import { LENERR, type Rio } from './rio.js';
import { checkStream } from './stream.js';
import { checkModuleValue, moduleTypeName } from './module.js';
import { cString } from '../../../numbers/c-string.js';

/**
 * One value read the way rdbLoadObject reads it under redis-check-rdb:
 * with sanitize-dump-payload yes (every listpack, ziplist and intset is
 * walked entry by entry) and the default thresholds, since the tool loads
 * no configuration. A read that fails, and an empty collection, make the
 * tool report an unexpected end of file (false); damage is reported with
 * the loader's own message and the line of rdb.c that prints it.
 */

/** rdb.c lines of the Debian 7.0.15 build for the messages below. */
const LINE = {
  oomSet: 1785,
  dupSetIntset: 1809,
  oomSetConvert: 1817,
  dupSetHashtable: 1829,
  oomZset: 1851,
  zsetNan: 1882,
  dupZset: 1894,
  hashDupElements: 1951,
  oomHash: 1996,
  dupHashTable: 2019,
  quicklistContainer: 2048,
  quicklistListpack: 2071,
  quicklistZiplist: 2081,
  zipmap: 2130,
  zipmapDup: 2154,
  listZiplist: 2189,
  intset: 2214,
  zsetZiplist: 2229,
  zsetListpack: 2255,
  hashZiplist: 2275,
  hashListpack: 2301,
  moduleShortRead: 2622,
  moduleNoType: 2636,
} as const;

/** Defaults of the thresholds the loader consults. */
const SET_MAX_INTSET_ENTRIES = 512;
const HASH_MAX_LISTPACK_ENTRIES = 512;
const HASH_MAX_LISTPACK_VALUE = 64;
const DICT_HT_INITIAL_SIZE = 4n;

/**
 * dictTryExpand's allocation: a table of the next power of two of
 * pointers. The tool's process asks the kernel for it lazily, which
 * overcommit grants until the size passes the 47-bit address space; a size
 * whose byte count overflows is refused without allocating, which
 * dictTryExpand does not count as a failure.
 */
function dictExpandFails(size: bigint): boolean {
  let exp = 2n;
  while ((1n << exp) < size && exp < 63n) exp++;
  const bytes = (1n << exp) * 8n;
  return bytes >= 1n << 47n && bytes < 1n << 64n;
}

function str(b: Uint8Array): string {
  return bytesFromArray(b);
}

/** Whether the even entries (field names, members) repeat or the count is odd. */
function pairsValid(entries: string[] | null): entries is string[] {
  if (entries === null || entries.length % 2 !== 0) return false;
  const seen = new Set<string>();
  for (let i = 0; i < entries.length; i += 2) {
    if (seen.has(entries[i]!)) return false;
    seen.add(entries[i]!);
  }
  return true;
}

/** rdbLoadDoubleValue's sscanf("%lg"): a length byte, then text that must start with a number. */
function textDoubleIsNan(text: string): boolean | null {
  const m = /^[ \t\n\v\f\r]*[+-]?(?:(nan)(?:\([0-9A-Za-z_]*\))?|inf(?:inity)?|0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)/i.exec(text);
  if (m === null) return null;
  return m[1] !== undefined;
}

/** Reads one value of `type`; false where the loader returns NULL. */
export function checkObject(r: Rio, type: number): boolean {
  switch (type) {
    case 0:
      return r.string() !== null;

    case 1: {
      const len = r.len();
      if (len === LENERR || len === 0n) return false;
      for (let i = 0n; i < len; i++) if (r.string() === null) return false;
      return true;
    }

    case 2:
      return checkSet(r);

    case 3:
    case 5:
      return checkZset(r, type === 5);

    case 4:
      return checkHash(r);

    case 14:
    case 18:
      return checkQuicklist(r, type === 18);

    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 16:
    case 17:
      return checkEncodedBlob(r, type);

    case 15:
    case 19:
      return checkStream(r, type === 19);

    case 6:
    case 7: {
      const id = r.len();
      if (r.readError) corrupt(LINE.moduleShortRead, 'Short read module id');
      const name = moduleTypeName(id);
      if (type === 7) return checkModuleValue(r, name);
      return corrupt(LINE.moduleNoType, `The RDB file contains module data I can't load: no matching module type '${name}'`);
    }

    default:
      // The checker only calls this for object types.
      throw new Error(`not an object type: ${type}`);
  }
}

function checkSet(r: Rio): boolean {
  const len = r.len();
  if (len === LENERR || len === 0n) return false;
  let intset = true;
  if (len > BigInt(SET_MAX_INTSET_ENTRIES)) {
    intset = false;
    if (len > DICT_HT_INITIAL_SIZE && dictExpandFails(len)) corrupt(LINE.oomSet, `OOM in dictTryExpand ${len}`);
  }
  const members = new Set<string>();
  for (let i = 0n; i < len; i++) {
    const b = r.string();
    if (b === null) return false;
    const m = str(b);
    if (intset) {
      if (parseInt64(m) !== null) {
        if (members.has(m)) corrupt(LINE.dupSetIntset, 'Duplicate set members detected');
        members.add(m);
        continue;
      }
      intset = false;
      if (dictExpandFails(len)) corrupt(LINE.oomSetConvert, `OOM in dictTryExpand ${len}`);
    }
    if (members.has(m)) corrupt(LINE.dupSetHashtable, 'Duplicate set members detected');
    members.add(m);
  }
  return true;
}

function checkZset(r: Rio, binaryScores: boolean): boolean {
  const len = r.len();
  if (len === LENERR || len === 0n) return false;
  if (len > DICT_HT_INITIAL_SIZE && dictExpandFails(len)) corrupt(LINE.oomZset, `OOM in dictTryExpand ${len}`);
  const members = new Set<string>();
  for (let i = 0n; i < len; i++) {
    const b = r.string();
    if (b === null) return false;
    let nan: boolean;
    if (binaryScores) {
      const d = r.read(8);
      if (d === null) return false;
      nan = Number.isNaN(new DataView(d.buffer, d.byteOffset, 8).getFloat64(0, true));
    } else {
      const lenByte = r.read(1);
      if (lenByte === null) return false;
      const n = lenByte[0]!;
      if (n >= 253) {
        nan = n === 253;
      } else {
        const text = r.read(n);
        if (text === null) return false;
        const parsed = textDoubleIsNan(cString(str(text)));
        if (parsed === null) return false;
        nan = parsed;
      }
    }
    if (nan) corrupt(LINE.zsetNan, 'Zset with NAN score detected');
    const m = str(b);
    if (members.has(m)) corrupt(LINE.dupZset, 'Duplicate zset fields detected');
    members.add(m);
  }
  return true;
}

function checkHash(r: Rio): boolean {
  let len = r.len();
  if (len === LENERR || len === 0n) return false;
  let listpack = len <= BigInt(HASH_MAX_LISTPACK_ENTRIES);
  const fields = new Set<string>();
  while (listpack && len > 0n) {
    len--;
    const f = r.string();
    if (f === null) return false;
    const v = r.string();
    if (v === null) return false;
    const field = str(f);
    if (fields.has(field)) corrupt(LINE.hashDupElements, 'Hash with dup elements');
    fields.add(field);
    if (f.length > HASH_MAX_LISTPACK_VALUE || v.length > HASH_MAX_LISTPACK_VALUE) {
      // Converted to a hash table, which already holds every field read.
      listpack = false;
    }
  }
  if (!listpack && len > DICT_HT_INITIAL_SIZE && dictExpandFails(len)) corrupt(LINE.oomHash, `OOM in dictTryExpand ${len}`);
  while (!listpack && len > 0n) {
    len--;
    const f = r.string();
    if (f === null) return false;
    if (r.string() === null) return false;
    const field = str(f);
    if (fields.has(field)) corrupt(LINE.dupHashTable, 'Duplicate hash fields detected');
    fields.add(field);
  }
  return true;
}

function checkQuicklist(r: Rio, v2: boolean): boolean {
  const len = r.len();
  if (len === LENERR || len === 0n) return false;
  let items = 0;
  for (let n = 0n; n < len; n++) {
    let container = 2n;
    if (v2) {
      container = r.len();
      if (container === LENERR) return false;
      if (container !== 1n && container !== 2n) corrupt(LINE.quicklistContainer, 'Quicklist integrity check failed.');
    }
    const blob = r.string();
    if (blob === null || blob.length === 0) return false;
    if (container === 1n) {
      items++;
      continue;
    }
    const entries = v2 ? decodeListpack(blob) : decodeZiplist(blob);
    if (entries === null) {
      if (v2) corrupt(LINE.quicklistListpack, 'Listpack integrity check failed.');
      corrupt(LINE.quicklistZiplist, 'Ziplist integrity check failed.');
    }
    items += entries.length;
  }
  // A list whose nodes were all empty is an empty key.
  return items > 0;
}

function checkEncodedBlob(r: Rio, type: number): boolean {
  const blob = r.string();
  if (blob === null) return false;
  switch (type) {
    case 9: {
      const pairs = decodeZipmap(blob);
      if (pairs === null) corrupt(LINE.zipmap, 'Zipmap integrity check failed.');
      const seen = new Set<string>();
      for (const [f] of pairs) {
        if (seen.has(f)) corrupt(LINE.zipmapDup, `Hash zipmap with dup elements, or big length (${f.length})`);
        seen.add(f);
      }
      return true;
    }
    case 10: {
      const entries = decodeZiplist(blob);
      if (entries === null) corrupt(LINE.listZiplist, 'List ziplist integrity check failed.');
      return entries.length > 0;
    }
    case 11:
      if (decodeIntset(blob, true) === null) corrupt(LINE.intset, 'Intset integrity check failed.');
      return true;
    case 12: {
      const entries = decodeZiplist(blob);
      if (!pairsValid(entries)) corrupt(LINE.zsetZiplist, 'Zset ziplist integrity check failed.');
      return entries.length > 0;
    }
    case 13: {
      const entries = decodeZiplist(blob);
      if (!pairsValid(entries)) corrupt(LINE.hashZiplist, 'Hash ziplist integrity check failed.');
      return entries.length > 0;
    }
    case 16: {
      const entries = decodeListpack(blob);
      if (!pairsValid(entries)) corrupt(LINE.hashListpack, 'Hash listpack integrity check failed.');
      return entries.length > 0;
    }
    default: {
      const entries = decodeListpack(blob);
      if (!pairsValid(entries)) corrupt(LINE.zsetListpack, 'Zset listpack integrity check failed.');
      return entries.length > 0;
    }
  }
}
