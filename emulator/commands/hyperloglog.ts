import { StringObject, isIntEncodable, type Value } from '../keyspace/values.js';
import {
  HLL_REGISTERS,
  cachedCardinality,
  decodeSparse,
  denseRegistersFault,
  denseRegisters,
  emptyHll,
  hllAdd,
  hllCount,
  hllMerge,
  hllWriteRegisters,
  invalidateCache,
  isHll,
  rawCount,
  setCachedCardinality,
  sparseToDense,
} from '../keyspace/hyperloglog.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import { ErrorReply, OK, StatusReply, errorReply, type Reply } from '../resp/reply.js';
import { cString } from '../numbers/c-string.js';
import { PROPAGATE, type Client } from '../server/client.js';
import { WRONGTYPE } from '../server/errors.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import type { Handler } from '../server/command-table.js';
import { modified } from './lookup.js';
import { isStringValue } from './string-access.js';

/**
 * PFADD, PFCOUNT, PFMERGE and PFDEBUG (src/hyperloglog.c) over the byte format of
 * keyspace/hyperloglog.ts. An HLL is an ordinary string, raw encoded
 * (dbUnshareStringValue), so every change rewrites the key's value.
 */

const NOT_HLL = new ErrorReply('WRONGTYPE Key is not a valid HyperLogLog string value.');
const CORRUPT = new ErrorReply('INVALIDOBJ Corrupted HLL object detected');

/** isHLLObjectOrReply: the value's bytes when it holds an HLL, or the error to reply. */
function hllBytes(v: Value): Uint8Array | ErrorReply {
  if (!isStringValue(v)) return WRONGTYPE;
  const s = typeof v === 'string' ? v : v.s;
  // An int-encoded string is not an sds, so never an HLL.
  if (typeof v === 'string' && isIntEncodable(v)) return NOT_HLL;
  const b = bytesToArray(s);
  return isHll(b) ? b : NOT_HLL;
}

function raw(b: Uint8Array): StringObject {
  return new StringObject(bytesFromArray(b), 'raw');
}

function sparseMaxBytes(c: Client): number {
  return c.server.config.getNumber('hll-sparse-max-bytes');
}

function pfadd(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const v = c.db.lookupWrite(key);
  let b: Uint8Array;
  let updated = 0;
  if (v === undefined) {
    b = emptyHll();
    updated++;
  } else {
    const found = hllBytes(v);
    if (found instanceof ErrorReply) return found;
    b = found;
  }
  for (let j = 2; j < argv.length; j++) {
    const r = hllAdd(b, argv[j]!, sparseMaxBytes(c));
    if (r === null) return CORRUPT;
    b = r.bytes;
    if (r.changed) updated++;
  }
  if (updated !== 0) invalidateCache(b);
  if (v === undefined) c.db.add(key, raw(b));
  else if (updated !== 0 || !(v instanceof StringObject && v.encoding === 'raw')) c.db.overwrite(key, raw(b));
  if (updated !== 0) {
    modified(c, key, updated);
    notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'pfadd', key, c.db.id);
  }
  return updated !== 0 ? 1 : 0;
}

function pfcount(c: Client, argv: string[]): Reply {
  if (argv.length > 2) {
    const max = new Uint8Array(HLL_REGISTERS);
    for (let j = 1; j < argv.length; j++) {
      const v = c.db.lookupRead(argv[j]!);
      if (v === undefined) continue;
      const b = hllBytes(v);
      if (b instanceof ErrorReply) return b;
      if (!hllMerge(max, b)) return CORRUPT;
    }
    return rawCount(max);
  }
  const key = argv[1]!;
  // A read lookup even though the cache may be written: on a replica a
  // logically expired key then counts as missing without being deleted.
  const v = c.db.lookupRead(key);
  if (v === undefined) return 0;
  const b = hllBytes(v);
  if (b instanceof ErrorReply) return b;
  const cached = cachedCardinality(b);
  if (cached !== null) {
    if (!(v instanceof StringObject && v.encoding === 'raw')) c.db.overwrite(key, raw(b));
    return cached;
  }
  const card = hllCount(b);
  if (card === null) return CORRUPT;
  setCachedCardinality(b, card);
  c.db.overwrite(key, raw(b));
  // The value changed though the command only reads: the new cache goes
  // to the AOF and to replicas like a write (call() propagates when dirty).
  modified(c, key);
  c.forcePropagation = PROPAGATE.ALL;
  return card;
}

function pfmerge(c: Client, argv: string[]): Reply {
  const max = new Uint8Array(HLL_REGISTERS);
  let useDense = false;
  for (let j = 1; j < argv.length; j++) {
    const v = c.db.lookupRead(argv[j]!);
    if (v === undefined) continue;
    const b = hllBytes(v);
    if (b instanceof ErrorReply) return b;
    if (b[4] === 0) useDense = true;
    if (!hllMerge(max, b)) return CORRUPT;
  }
  const key = argv[1]!;
  const v = c.db.lookupWrite(key);
  // The destination was checked among the sources when it exists.
  const target = v === undefined ? emptyHll() : (hllBytes(v) as Uint8Array);
  if (useDense && sparseToDense(target) === null) return CORRUPT;
  const b = hllWriteRegisters(target, max, useDense, sparseMaxBytes(c));
  if (b === null) return CORRUPT;
  if (v === undefined) c.db.add(key, raw(b));
  else c.db.overwrite(key, raw(b));
  modified(c, key);
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'pfadd', key, c.db.id);
  return OK;
}

/**
 * PFDEBUG GETREG|DECODE|ENCODING|TODENSE key: the key is looked up (and
 * its value made a raw string) before the subcommand is read; GETREG and
 * TODENSE turn a sparse HLL dense and count that as a change to
 * propagate, without touching WATCH (Redis only bumps server.dirty).
 */
function pfdebug(c: Client, argv: string[]): Reply {
  const key = argv[2]!;
  const v = c.db.lookupWrite(key);
  if (v === undefined) return errorReply('The specified key does not exist');
  let b = hllBytes(v);
  if (b instanceof ErrorReply) return b;
  if (!(v instanceof StringObject && v.encoding === 'raw')) c.db.overwrite(key, raw(b));
  const sub = argv[1]!;
  const arity = (): Reply => errorReply(`Wrong number of arguments for the '${cString(sub)}' subcommand`);
  const toDense = (): boolean | ErrorReply => {
    if (b instanceof ErrorReply || b[4] !== 1) return false;
    const dense = sparseToDense(b);
    if (dense === null) return CORRUPT;
    b = dense;
    c.db.overwrite(key, raw(dense));
    c.server.dirty++;
    return true;
  };
  switch (sub.toLowerCase()) {
    case 'getreg': {
      if (argv.length !== 3) return arity();
      const converted = toDense();
      if (converted instanceof ErrorReply) return converted;
      return denseRegisters(b);
    }
    case 'decode':
      if (argv.length !== 3) return arity();
      if (b[4] !== 1) return errorReply('HLL encoding is not sparse');
      return decodeSparse(b);
    case 'encoding':
      if (argv.length !== 3) return arity();
      return new StatusReply(b[4] === 1 ? 'sparse' : 'dense');
    case 'todense': {
      if (argv.length !== 3) return arity();
      const converted = toDense();
      if (converted instanceof ErrorReply) return converted;
      return converted ? 1 : 0;
    }
    default:
      return errorReply(`Unknown PFDEBUG subcommand '${cString(sub)}'`);
  }
}

/** Rounds of the register test (Redis: HLL_TEST_CYCLES, 1000). */
const TEST_CYCLES = 100;
/** The last cardinality checked; Redis goes to 10,000,000, too slow for an emulator in a page. */
const TEST_MAX_CARDINALITY = 10_000;

/**
 * PFSELFTEST: Redis's two self-tests run on this implementation: dense
 * registers keep the values set, and unique elements added to a sparse
 * and a dense HLL give the same estimate, within six standard errors of
 * the true count at each power of ten (one at 10), the sparse one staying
 * sparse while small. TESTFAILED says what failed.
 */
function pfselftest(c: Client): Reply {
  const rand = (): number => c.server.random.nextU32() >>> 1;
  for (let j = 0; j < TEST_CYCLES; j++) {
    const fault = denseRegistersFault(rand);
    if (fault !== null) return errorReply(`TESTFAILED Register ${fault.register} should be ${fault.want} but is ${fault.got}`);
  }
  const sparseMax = sparseMaxBytes(c);
  let dense = sparseToDense(emptyHll())!;
  let sparse = emptyHll();
  const relerr = 1.04 / Math.sqrt(HLL_REGISTERS);
  const seed = (BigInt(rand()) | (BigInt(rand()) << 32n)) & 0xffffffffffffffffn;
  let checkpoint = 1;
  for (let j = 1; j <= TEST_MAX_CARDINALITY; j++) {
    // The element is the 8 bytes of j ^ seed, little endian, as on the x86 Redis runs on.
    let ele = BigInt(j) ^ seed;
    let bytes = '';
    for (let k = 0; k < 8; k++, ele >>= 8n) bytes += String.fromCharCode(Number(ele & 0xffn));
    dense = hllAdd(dense, bytes, sparseMax)!.bytes;
    const added = hllAdd(sparse, bytes, sparseMax);
    if (added === null) return CORRUPT;
    sparse = added.bytes;
    if (j !== checkpoint) continue;
    if (j < sparseMax / 2 && sparse[4] !== 1) return errorReply('TESTFAILED sparse encoding not used');
    const card = hllCount(dense);
    if (card === null || card !== hllCount(sparse)) return errorReply('TESTFAILED dense/sparse disagree');
    const abserr = Math.abs(checkpoint - card);
    const maxerr = j === 10 ? 1 : Math.ceil(relerr * 6 * checkpoint);
    if (abserr > maxerr) return errorReply(`TESTFAILED Too big error. card:${checkpoint} abserr:${abserr}`);
    checkpoint *= 10;
  }
  return OK;
}

export const hyperLogLogCommands: Record<string, Handler> = { pfadd, pfcount, pfmerge, pfdebug, pfselftest };
