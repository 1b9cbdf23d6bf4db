import { parseInt64 } from '../../../numbers/int64.js';
import { decodeListpack } from '../../../keyspace/encoding/listpack.js';
import { bytesFromArray } from '../../../resp/bytes.js';
import { corrupt } from './report.js';
import { LENERR, type Rio } from './rio.js';
import { cString } from '../../../numbers/c-string.js';

/**
 * Stream values under redis-check-rdb (the stream part of rdbLoadObject,
 * and streamValidateListpackIntegrity in src/t_stream.c): the listpacks of
 * the radix tree with their master entries, the stream's metadata, and the
 * consumer groups with their pending entries and consumers. In check mode
 * every problem, a short read included, is reported with the loader's
 * message and line.
 */

/** rdb.c lines of the Debian 7.0.15 build, whose security fixes moved them and added a check. */
const LINE = {
  listpacksLen: 2327,
  masterId: 2338,
  nodeKeySize: 2343,
  listpacks: 2355,
  listpackIntegrity: 2362,
  listpackDup: 2386,
  metadata: 2424,
  lengthWithoutNodes: 2430,
  cgroupCount: 2438,
  cgroupName: 2449,
  cgroupId: 2458,
  cgroupOffset: 2469,
  cgroupDup: 2480,
  pelSize: 2495,
  pelId: 2502,
  pelNack: 2510,
  pelDup: 2516,
  consumersNum: 2527,
  consumerName: 2534,
  consumerDup: 2543,
  seenTime: 2549,
  consumerPelNum: 2558,
  consumerPelId: 2566,
  consumerPelNotFound: 2573,
  consumerPelTaken: 2583,
  pelWithoutConsumer: 2611,
} as const;

const STREAM_ID_BYTES = 16;
const ITEM_FLAG_SAMEFIELDS = 2n;
/** What reading the listpack terminator as an entry yields (lpGet's fallback for an unknown encoding). */
const EOF_AS_INTEGER = 12345678900000000n + 255n;

/**
 * streamValidateListpackIntegrity with deep checks: the header, then a
 * walk over the master entry and every item, which must end exactly at the
 * terminator. The element count in the header is not consulted.
 */
function streamListpackValid(blob: Uint8Array): boolean {
  const size = blob.length;
  if (size < 7) return false;
  const total = (blob[0]! | (blob[1]! << 8) | (blob[2]! << 16) | (blob[3]! << 24)) >>> 0;
  if (total !== size || blob[size - 1] !== 0xff) return false;
  const copy = blob.slice();
  copy[4] = 0xff;
  copy[5] = 0xff;
  const entries = decodeListpack(copy);
  if (entries === null) return false;

  // Positions are entry indexes; n is the terminator and -1 is NULL.
  const n = entries.length;
  let p = n > 0 ? 0 : -1;
  let next = p;
  const step = (): boolean => {
    if (next === -1) return false;
    next = next === n ? -1 : next + 1;
    return true;
  };
  const int = (at: number): bigint | null => {
    if (at === n) return EOF_AS_INTEGER;
    const v = parseInt64(entries[at]!);
    return v === null ? null : BigInt(v);
  };
  const move = (): boolean => {
    p = next;
    return step();
  };

  if (!step() || p === -1) return false;
  let entryCount = int(p);
  if (entryCount === null || !move()) return false;
  const deleted = int(p);
  if (deleted === null || !move()) return false;
  const masterFields = int(p);
  if (masterFields === null || !move()) return false;
  for (let j = 0n; j < masterFields; j++) if (!move()) return false;
  if (int(p) !== 0n || !move()) return false;

  entryCount = BigInt.asIntN(64, entryCount + deleted);
  while (entryCount !== 0n) {
    entryCount = BigInt.asIntN(64, entryCount - 1n);
    if (p === -1) return false;
    let fields = masterFields;
    let extra = 3n;
    const flags = int(p);
    if (flags === null || !move()) return false;
    if (int(p) === null || !move()) return false;
    if (int(p) === null || !move()) return false;
    if ((flags & ITEM_FLAG_SAMEFIELDS) === 0n) {
      const own = int(p);
      if (own === null || !move()) return false;
      fields = own;
      for (let j = 0n; j < fields; j++) if (!move()) return false;
      extra = BigInt.asIntN(64, extra + fields + 1n);
    }
    for (let j = 0n; j < fields; j++) if (!move()) return false;
    const lpCount = int(p);
    if (lpCount === null || lpCount !== BigInt.asIntN(64, fields + extra)) return false;
    if (!move()) return false;
  }
  return next === -1;
}

function key(b: Uint8Array): string {
  return bytesFromArray(b);
}

export function checkStream(r: Rio, v2: boolean): boolean {
  const listpacks = r.len();
  if (listpacks === LENERR) corrupt(LINE.listpacksLen, 'Stream listpacks len loading failed.');
  const nodes = new Set<string>();
  for (let i = 0n; i < listpacks; i++) {
    const nodeKey = r.string();
    if (nodeKey === null) corrupt(LINE.masterId, 'Stream master ID loading failed: invalid encoding or I/O error.');
    if (nodeKey.length !== STREAM_ID_BYTES) corrupt(LINE.nodeKeySize, 'Stream node key entry is not the size of a stream ID');
    const lp = r.string();
    if (lp === null) corrupt(LINE.listpacks, 'Stream listpacks loading failed.');
    if (!streamListpackValid(lp)) corrupt(LINE.listpackIntegrity, 'Stream listpack integrity check failed.');
    const k = key(nodeKey);
    if (nodes.has(k)) corrupt(LINE.listpackDup, 'Listpack re-added with existing key');
    nodes.add(k);
  }

  // Length, last ID; version 2 adds the first ID, the largest deleted ID and the entries added.
  const length = r.len();
  for (let i = 0; i < (v2 ? 7 : 2); i++) r.len();
  if (r.readError) corrupt(LINE.metadata, 'Stream object metadata loading failed.');
  if (length !== 0n && nodes.size === 0) corrupt(LINE.lengthWithoutNodes, 'Stream length inconsistent with rax entries');

  const groups = r.len();
  if (groups === LENERR) corrupt(LINE.cgroupCount, 'Stream cgroup count loading failed.');
  const groupNames = new Set<string>();
  for (let g = 0n; g < groups; g++) {
    const name = r.string();
    if (name === null) corrupt(LINE.cgroupName, 'Error reading the consumer group name from Stream');
    r.len();
    r.len();
    if (r.readError) corrupt(LINE.cgroupId, 'Stream cgroup ID loading failed.');
    if (v2) {
      r.len();
      if (r.readError) corrupt(LINE.cgroupOffset, 'Stream cgroup offset loading failed.');
    }
    const groupName = key(name);
    if (groupNames.has(groupName)) corrupt(LINE.cgroupDup, `Duplicated consumer group name ${cString(groupName)}`);
    groupNames.add(groupName);

    // The group's pending entries, each owned by a consumer read later.
    const owned = new Map<string, boolean>();
    const pelSize = r.len();
    if (pelSize === LENERR) corrupt(LINE.pelSize, 'Stream PEL size loading failed.');
    for (let i = 0n; i < pelSize; i++) {
      const id = r.read(STREAM_ID_BYTES);
      if (id === null) corrupt(LINE.pelId, 'Stream PEL ID loading failed.');
      r.i64();
      r.len();
      if (r.readError) corrupt(LINE.pelNack, 'Stream PEL NACK loading failed.');
      const k = key(id);
      if (owned.has(k)) corrupt(LINE.pelDup, 'Duplicated global PEL entry loading stream consumer group');
      owned.set(k, false);
    }

    const consumers = r.len();
    if (consumers === LENERR) corrupt(LINE.consumersNum, 'Stream consumers num loading failed.');
    const consumerNames = new Set<string>();
    for (let c = 0n; c < consumers; c++) {
      const cname = r.string();
      if (cname === null) corrupt(LINE.consumerName, 'Error reading the consumer name from Stream group.');
      const consumerName = key(cname);
      if (consumerNames.has(consumerName)) corrupt(LINE.consumerDup, 'Duplicate stream consumer detected.');
      consumerNames.add(consumerName);
      r.i64();
      if (r.readError) corrupt(LINE.seenTime, 'Stream short read reading seen time.');
      const pel = r.len();
      if (pel === LENERR) corrupt(LINE.consumerPelNum, 'Stream consumer PEL num loading failed.');
      for (let i = 0n; i < pel; i++) {
        const id = r.read(STREAM_ID_BYTES);
        if (id === null) corrupt(LINE.consumerPelId, 'Stream short read reading PEL streamID.');
        const k = key(id);
        const taken = owned.get(k);
        if (taken === undefined) corrupt(LINE.consumerPelNotFound, 'Consumer entry not found in group global PEL');
        if (taken) corrupt(LINE.consumerPelTaken, 'Stream consumer PEL entry already has a consumer assigned');
        owned.set(k, true);
      }
    }
    for (const taken of owned.values()) {
      if (!taken) corrupt(LINE.pelWithoutConsumer, 'Stream CG PEL entry without consumer');
    }
  }
  return true;
}

