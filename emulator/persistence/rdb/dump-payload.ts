import type { Value } from '../../keyspace/values.js';
import { ByteReader } from './bytes.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';
import { Crc64, crc64 } from './crc64.js';
import { RdbAbort, RdbError } from './errors.js';
import { OPCODE_FUNCTION, OPCODE_FUNCTION2, RDB_VERSION, isObjectType } from './types.js';
import { readString, writeString } from './string-encoding.js';
import { readOldFunction } from './file-reader.js';
import { readObject, type ValueReadOptions } from './value-reader.js';
import { writeTypedObject, type ValueWriteOptions } from './value-writer.js';

/**
 * DUMP and RESTORE payloads (src/cluster.c createDumpPayload,
 * verifyDumpPayload): the type byte and the value as an RDB file stores
 * them, the RDB version (2 bytes, little-endian), and the CRC64 of all
 * that (8 bytes, little-endian).
 */

const FOOTER_SIZE = 10;

/** The DUMP payload of a value in its current encoding. */
export function createDumpPayload(v: Value, opts: ValueWriteOptions): Uint8Array {
  const w = new ByteWriter(64);
  writeTypedObject(w, v, opts);
  w.u16le(RDB_VERSION);
  w.bytes(new Crc64().update(w.view()).bytesLE());
  return w.finish();
}

/**
 * Whether a payload has a version this server reads and, unless
 * `skipChecksum` (DEBUG SET-SKIP-CHECKSUM-VALIDATION), a matching checksum.
 */
export function verifyDumpPayload(p: Uint8Array, skipChecksum: boolean): boolean {
  if (p.length < FOOTER_SIZE) return false;
  const footer = p.length - FOOTER_SIZE;
  const version = p[footer]! | (p[footer + 1]! << 8);
  if (version > RDB_VERSION) return false;
  if (skipChecksum) return true;
  const expected = crc64(p, 0, p.length - 8);
  let stored = 0n;
  for (let i = 7; i >= 0; i--) stored = (stored << 8n) | BigInt(p[p.length - 8 + i]!);
  return stored === expected;
}

/**
 * The value a verified payload holds, or an error when it cannot be loaded
 * (RESTORE then answers "Bad data format"). An empty collection is an
 * error here too.
 */
export function loadDumpPayload(p: Uint8Array, opts: ValueReadOptions): Value | RdbError {
  const r = new ByteReader(p);
  try {
    const type = r.u8();
    if (!isObjectType(type)) return new RdbError('unknown-type', `Unknown RDB encoding type ${type}`, 0);
    const v = readObject(r, type, opts);
    return v ?? new RdbError('corrupt', 'Empty keys are not allowed', r.pos);
  } catch (e) {
    if (e instanceof RdbAbort) return e.error;
    throw e;
  }
}

/**
 * FUNCTION DUMP's payload (src/functions.c functionDumpCommand): each
 * library's source as a FUNCTION2 record, as an RDB file holds it, then
 * the RDB version and the CRC64, as a DUMP payload ends.
 */
export function createFunctionsPayload(codes: readonly string[], compression: boolean): Uint8Array {
  const w = new ByteWriter(64);
  for (const code of codes) {
    w.byte(OPCODE_FUNCTION2);
    writeString(w, code, compression);
  }
  w.u16le(RDB_VERSION);
  w.bytes(new Crc64().update(w.view()).bytesLE());
  return w.finish();
}

/**
 * The library sources in a verified FUNCTION RESTORE payload (records of
 * the 7.0 release candidates translated as loading a file does), or the
 * error FUNCTION RESTORE answers.
 */
export function readFunctionsPayload(p: Uint8Array): string[] | string {
  const r = new ByteReader(p);
  const out: string[] = [];
  try {
    while (p.length - r.pos > FOOTER_SIZE) {
      const type = r.u8();
      if (type === OPCODE_FUNCTION2) out.push(readString(r));
      else if (type === OPCODE_FUNCTION) out.push(readOldFunction(r));
      else return 'given type is not a function';
    }
  } catch (e) {
    if (e instanceof RdbAbort) return 'failed loading the given functions payload';
    throw e;
  }
  return out;
}
