import { StreamValue } from '../../keyspace/values.js';
import { bytesToArray } from '../../resp/bytes.js';
import { ByteReader } from './bytes.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';
import { abort } from './errors.js';
import { listpackHeaderValid } from '../../keyspace/encoding/listpack.js';
import { readLengthOrEncoding, readString, writeLength, writeString } from './string-encoding.js';
import { TYPE_STREAM_LISTPACKS_2 } from './types.js';

/**
 * A stream value read as its parts and written back from them (rdb.c:
 * rdbLoadObject and rdbSaveObject for RDB_TYPE_STREAM_LISTPACKS and _2).
 * The emulator keeps streams without modelling them (keyspace/values.ts
 * StreamValue): reading walks the structure only to find where the value
 * ends and to check what Redis checks on a light load; writing gives the
 * same bytes Redis's saving of the loaded stream would, lengths and
 * strings encoded as rdbSaveLen and rdbSaveRawString encode them.
 *
 * The stored order: listpack count, then per listpack a 16-byte master ID
 * and the listpack; length, last ID (ms, seq); for _2 also the first ID,
 * the largest deleted ID and entries added; the consumer groups: count,
 * then each one's name, last ID, (for _2) entries read, its pending
 * entries (16-byte ID, 8-byte delivery time, delivery count) and its
 * consumers (name, 8-byte seen time, pending IDs of 16 bytes).
 */

type Part = bigint | string | Uint8Array;

const STREAM_ID_BYTES = 16;
const MS_TIME_BYTES = 8;

/** rdbLoadLen with the full 64 bits kept: stream IDs and counters may need them. */
function readLength64(r: ByteReader): bigint {
  const at = r.pos;
  const first = r.u8();
  if (first === 0x81) return r.u64be();
  r.pos = at;
  const l = readLengthOrEncoding(r);
  if (l.encoded) abort('corrupt', `Unknown length encoding ${first >> 6} in rdbLoadLen()`, r.pos);
  return BigInt(l.value);
}

function writeLength64(w: ByteWriter, v: bigint): void {
  if (v <= 0xffffffffn) writeLength(w, Number(v));
  else {
    w.byte(0x81);
    w.u64be(v);
  }
}

/** A count of things that follow: each takes at least a byte, so more than the bytes left is a damaged file. */
function count(r: ByteReader, parts: Part[]): number {
  const n = readLength64(r);
  parts.push(n);
  if (n > BigInt(r.remaining)) abort('short-read', 'Unexpected EOF reading RDB file', r.pos);
  return Number(n);
}

export function readStreamValue(r: ByteReader, rdbType: number): StreamValue {
  const parts: Part[] = [];
  const v2 = rdbType === TYPE_STREAM_LISTPACKS_2;
  let listpackBytes = 0;
  const nodes = count(r, parts);
  for (let i = 0; i < nodes; i++) {
    const nodeKey = readString(r);
    if (nodeKey.length !== STREAM_ID_BYTES) abort('corrupt', 'Stream node key entry is not the size of a stream ID', r.pos);
    const lp = readString(r);
    const bytes = bytesToArray(lp);
    if (!listpackHeaderValid(bytes)) abort('corrupt', 'Stream listpack integrity check failed.', r.pos);
    // An empty listpack: its header and the end byte only.
    if (bytes.length <= 7) abort('corrupt', 'Empty listpack inside stream', r.pos);
    listpackBytes += bytes.length;
    parts.push(nodeKey, lp);
  }
  const length = readLength64(r);
  parts.push(length);
  for (let i = 0; i < (v2 ? 7 : 2); i++) parts.push(readLength64(r));
  if (length !== 0n && nodes === 0) abort('corrupt', 'Stream length inconsistent with rax entries', r.pos);
  const groups = count(r, parts);
  for (let g = 0; g < groups; g++) {
    parts.push(readString(r), readLength64(r), readLength64(r));
    if (v2) parts.push(readLength64(r));
    const pending = count(r, parts);
    for (let p = 0; p < pending; p++) {
      parts.push(r.take(STREAM_ID_BYTES).slice(), r.take(MS_TIME_BYTES).slice(), readLength64(r));
    }
    const consumers = count(r, parts);
    for (let k = 0; k < consumers; k++) {
      parts.push(readString(r), r.take(MS_TIME_BYTES).slice());
      const owned = count(r, parts);
      for (let p = 0; p < owned; p++) parts.push(r.take(STREAM_ID_BYTES).slice());
    }
  }
  return new StreamValue(rdbType, parts, Number(length), listpackBytes);
}

export function writeStreamValue(w: ByteWriter, v: StreamValue, compression: boolean): void {
  for (const p of v.parts) {
    if (typeof p === 'bigint') writeLength64(w, p);
    else if (typeof p === 'string') writeString(w, p, compression);
    else w.bytes(p);
  }
}
