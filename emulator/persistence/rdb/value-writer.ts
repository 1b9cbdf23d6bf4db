import { writeStreamValue } from './stream-value.js';
import { formatDouble } from '../../numbers/double.js';
import { stringOf, type Value } from '../../keyspace/values.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';
import { encodeIntset } from './intset.js';
import { encodeListpack } from '../../keyspace/encoding/listpack.js';
import { quicklistNodes, type QuicklistOptions } from '../../keyspace/encoding/quicklist.js';
import { writeBlob, writeLength, writeLzfBlob, writeString } from './string-encoding.js';
import {
  TYPE_HASH,
  TYPE_HASH_LISTPACK,
  TYPE_LIST_QUICKLIST_2,
  TYPE_SET,
  TYPE_SET_INTSET,
  TYPE_STRING,
  TYPE_ZSET_2,
  TYPE_ZSET_LISTPACK,
} from './types.js';

/**
 * Serializes one value the way Redis 7.0's rdbSaveObjectType and
 * rdbSaveObject do, in the encoding the value has now.
 */

export interface ValueWriteOptions extends QuicklistOptions {
  /** rdbcompression: LZF for strings longer than 20 bytes. */
  compression: boolean;
}

/** The type byte for a value in its current encoding. */
export function objectType(v: Value): number {
  if (typeof v === 'string') return TYPE_STRING;
  switch (v.type) {
    case 'string':
      return TYPE_STRING;
    case 'list':
      return TYPE_LIST_QUICKLIST_2;
    case 'set':
      return v.encoding === 'intset' ? TYPE_SET_INTSET : TYPE_SET;
    case 'zset':
      return v.encoding === 'listpack' ? TYPE_ZSET_LISTPACK : TYPE_ZSET_2;
    case 'hash':
      return v.encoding === 'listpack' ? TYPE_HASH_LISTPACK : TYPE_HASH;
    case 'stream':
      return v.rdbType;
  }
}

/**
 * The text a listpack keeps for a score (zzlInsertAt): an integral score
 * within +-2^62 as an integer, anything else as d2string prints it.
 */
function listpackScore(score: number): string {
  if (Number.isInteger(score) && score >= -4611686018427387904 && score <= 4611686018427387904) {
    return Number.isSafeInteger(score) ? String(score) : BigInt(score).toString();
  }
  return formatDouble(score);
}

export function writeObject(w: ByteWriter, v: Value, opts: ValueWriteOptions): void {
  const compress = opts.compression;
  if (typeof v === 'string' || v.type === 'string') {
    writeString(w, stringOf(v), compress);
    return;
  }
  switch (v.type) {
    case 'list': {
      const nodes = quicklistNodes(v.items.toArray(), opts);
      writeLength(w, nodes.length);
      for (const node of nodes) {
        writeLength(w, node.container);
        if (node.compressed !== null) writeLzfBlob(w, node.compressed, node.blob.length);
        else writeBlob(w, node.blob, compress);
      }
      return;
    }
    case 'set': {
      if (v.encoding === 'intset') {
        writeBlob(w, encodeIntset(v.set), compress);
        return;
      }
      writeLength(w, v.set.size);
      for (const m of v.set) writeString(w, m, compress);
      return;
    }
    case 'zset': {
      if (v.encoding === 'listpack') {
        const entries: string[] = [];
        for (const node of v.list) entries.push(node.member, listpackScore(node.score));
        writeBlob(w, encodeListpack(entries), compress);
        return;
      }
      // From the greatest to the smallest, so that loading inserts each
      // member at the head of the skip list (rdbSaveObject).
      writeLength(w, v.list.length);
      for (let node = v.list.tail; node !== null; node = node.backward) {
        writeString(w, node.member, compress);
        w.f64le(node.score);
      }
      return;
    }
    case 'hash': {
      if (v.encoding === 'listpack') {
        const entries: string[] = [];
        for (const [f, val] of v.map) entries.push(f, val);
        writeBlob(w, encodeListpack(entries), compress);
        return;
      }
      writeLength(w, v.map.size);
      for (const [f, val] of v.map) {
        writeString(w, f, compress);
        writeString(w, val, compress);
      }
      return;
    }
    case 'stream':
      writeStreamValue(w, v, compress);
      return;
  }
}

/** The value's type byte and serialization. */
export function writeTypedObject(w: ByteWriter, v: Value, opts: ValueWriteOptions): void {
  w.byte(objectType(v));
  writeObject(w, v, opts);
}

/** rdbSavedObjectLen: the bytes the value takes in an RDB file, type byte excluded. */
export function serializedObjectLength(v: Value, opts: ValueWriteOptions): number {
  const w = new ByteWriter();
  writeObject(w, v, opts);
  return w.length;
}
