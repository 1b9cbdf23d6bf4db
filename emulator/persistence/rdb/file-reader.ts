import type { Value } from '../../keyspace/values.js';
import type { Int64 } from '../../numbers/int64.js';
import { ByteReader } from './bytes.js';
import { crc64 } from './crc64.js';
import { RdbAbort, RdbError, abort } from './errors.js';
import { readLength, readString } from './string-encoding.js';
import {
  OPCODE_AUX,
  OPCODE_EOF,
  OPCODE_EXPIRETIME,
  OPCODE_EXPIRETIME_MS,
  OPCODE_FREQ,
  OPCODE_FUNCTION,
  OPCODE_FUNCTION2,
  OPCODE_IDLE,
  OPCODE_MODULE_AUX,
  OPCODE_RESIZEDB,
  OPCODE_SELECTDB,
  RDB_VERSION,
} from './types.js';
import { moduleTypeName, readModuleId, readObject, type ValueReadOptions } from './value-reader.js';

/**
 * Reads a whole RDB file as Redis 7.0's rdbLoadRio does. The result is a
 * description of the dataset; putting it into a server is the caller's job.
 */

export interface RdbReadOptions extends ValueReadOptions {
  /** The number of databases the server has (`databases`). */
  databases: number;
  /** Check the CRC64: rdbchecksum yes and no DEBUG SET-SKIP-CHECKSUM-VALIDATION. */
  verifyChecksum: boolean;
  /** The load time, against which expiry times are compared. */
  nowMs: number;
  /** Leave out keys already expired: a primary loading a snapshot, not an AOF preamble. */
  dropExpired: boolean;
  /** A key repeated later in the file replaces the earlier one (DEBUG RELOAD MERGE). */
  allowDuplicates: boolean;
  /** Told each aux field as it is read, before anything later in the file can fail (the loader logs some of them). */
  onAux?: (key: string, value: string) => void;
  /** Told each key left out as already expired (a primary feeds its DEL to the replication backlog). */
  onExpired?: (db: number, key: string) => void;
}

export interface LoadedKey {
  value: Value;
  expireAtMs?: Int64;
  /** IDLE: seconds since the last access when the file was written. */
  idleSeconds?: number;
  /** FREQ: the LFU counter when the file was written. */
  lfuFreq?: number;
}

/**
 * Where keys go as they are read, when the caller puts them straight into
 * a server rather than into the contents' maps (a large file's keys are
 * then stored once, not twice).
 */
export interface RdbKeySink {
  /**
   * Stores a key of database `db`, replacing one of the same name; returns
   * false when the name was already there (a key repeated in the file).
   */
  put(db: number, key: string, loaded: LoadedKey): boolean;
}

export interface RdbContents {
  version: number;
  aux: Array<[string, string]>;
  /** Function library sources (FUNCTION2 records; old FUNCTION records translated). */
  functions: string[];
  /** The keys of each database that has any, in file order. */
  databases: Map<number, Map<string, LoadedKey>>;
  keysLoaded: number;
  keysExpired: number;
  emptyKeysSkipped: number;
  /** Bytes the RDB took, checksum included; an AOF preamble continues after them. */
  length: number;
  /** What Redis would log as warnings while loading this file. */
  warnings: string[];
}

/**
 * A FUNCTION record of the 7.0 release candidates: name, engine, an
 * optional description and the code, joined into the shebang form of 7.0
 * (rdbFunctionLoad).
 */
export function readOldFunction(r: ByteReader): string {
  const name = readString(r);
  const engine = readString(r);
  if (readLength(r) !== 0) readString(r);
  const code = readString(r);
  return `#!${engine} name=${name}\n${code}`;
}

function shortRead(r: ByteReader): never {
  return abort('short-read', 'Unexpected EOF reading RDB file', r.pos);
}

/**
 * Loads an RDB file; returns its contents, or why it cannot be loaded.
 * With a sink, the keys go to it and the contents' databases stay empty;
 * a file that fails part way has then already given the keys before the
 * failure, as a real server that stops loading has.
 */
export function readRdb(bytes: Uint8Array, opts: RdbReadOptions, sink?: RdbKeySink): RdbContents | RdbError {
  try {
    return load(bytes, opts, sink);
  } catch (e) {
    if (e instanceof RdbAbort) return e.error;
    throw e;
  }
}

function load(bytes: Uint8Array, opts: RdbReadOptions, sink: RdbKeySink | undefined): RdbContents {
  const r = new ByteReader(bytes);
  if (bytes.length < 9) shortRead(r);
  const magic = r.strBytes(9);
  if (magic.slice(0, 5) !== 'REDIS') abort('bad-magic', 'Wrong signature trying to load DB from file', 0);
  const m = /^\s*[+-]?\d+/.exec(magic.slice(5));
  const version = m ? Number.parseInt(m[0], 10) : 0;
  if (version < 1 || version > RDB_VERSION) abort('bad-version', `Can't handle RDB format version ${version}`, 5);

  const out: RdbContents = {
    version,
    aux: [],
    functions: [],
    databases: new Map(),
    keysLoaded: 0,
    keysExpired: 0,
    emptyKeysSkipped: 0,
    length: 0,
    warnings: [],
  };
  let db = dbKeys(out, 0);
  let dbId = 0;
  let expireAtMs: Int64 | undefined;
  let idleSeconds: number | undefined;
  let lfuFreq: number | undefined;

  for (;;) {
    const type = r.u8();
    if (type === OPCODE_EXPIRETIME) {
      expireAtMs = r.i32le() * 1000;
      continue;
    }
    if (type === OPCODE_EXPIRETIME_MS) {
      expireAtMs = r.i64le();
      continue;
    }
    if (type === OPCODE_FREQ) {
      lfuFreq = r.u8();
      continue;
    }
    if (type === OPCODE_IDLE) {
      idleSeconds = readLength(r);
      continue;
    }
    if (type === OPCODE_EOF) break;
    if (type === OPCODE_SELECTDB) {
      dbId = readLength(r);
      if (dbId >= opts.databases) {
        abort('db-out-of-range', `FATAL: Data file was created with a Redis server configured to handle more than ${opts.databases} databases. Exiting\n`, r.pos);
      }
      db = dbKeys(out, dbId);
      continue;
    }
    if (type === OPCODE_RESIZEDB) {
      readLength(r);
      readLength(r);
      continue;
    }
    if (type === OPCODE_AUX) {
      const key = readString(r);
      const value = readString(r);
      out.aux.push([key, value]);
      opts.onAux?.(key, value);
      continue;
    }
    if (type === OPCODE_MODULE_AUX) {
      // No module is ever loaded: Redis exits at the first module's data.
      const name = moduleTypeName(readModuleId(r));
      return abort('unsupported', `The RDB file contains AUX module data I can't load: no matching module '${name}'`, r.pos);
    }
    if (type === OPCODE_FUNCTION2) {
      out.functions.push(readString(r));
      continue;
    }
    if (type === OPCODE_FUNCTION) {
      out.functions.push(readOldFunction(r));
      continue;
    }

    const key = readString(r);
    const value = readObject(r, type, opts);
    if (value === null) {
      out.emptyKeysSkipped++;
      if (out.emptyKeysSkipped <= 10) out.warnings.push(`rdbLoadObject skipping empty key: ${key}`);
    } else if (opts.dropExpired && expireAtMs !== undefined && expireAtMs < opts.nowMs) {
      out.keysExpired++;
      opts.onExpired?.(dbId, key);
    } else {
      const loaded: LoadedKey = { value };
      if (expireAtMs !== undefined) loaded.expireAtMs = expireAtMs;
      if (idleSeconds !== undefined) loaded.idleSeconds = idleSeconds;
      if (lfuFreq !== undefined) loaded.lfuFreq = lfuFreq;
      if (!(sink === undefined ? putKey(db, key, loaded) : sink.put(dbId, key, loaded)) && !opts.allowDuplicates) {
        abort('duplicate-key', `RDB has duplicated key '${key}' in DB ${dbId}`, r.pos);
      }
      out.keysLoaded++;
    }
    expireAtMs = undefined;
    idleSeconds = undefined;
    lfuFreq = undefined;
  }

  if (version >= 5) {
    const covered = r.pos;
    const stored = r.take(8);
    if (opts.verifyChecksum) {
      let got = 0n;
      for (let i = 7; i >= 0; i--) got = (got << 8n) | BigInt(stored[i]!);
      if (got === 0n) {
        out.warnings.push('RDB file was saved with checksum disabled: no check performed.');
      } else {
        const expected = crc64(bytes, 0, covered);
        if (got !== expected) {
          abort('checksum', 'RDB CRC error', covered, `Wrong RDB checksum expected: (${expected.toString(16)}) but got (${got.toString(16)}). Aborting now.`);
        }
      }
    }
  }
  for (const [id, keys] of out.databases) if (keys.size === 0) out.databases.delete(id);
  out.length = r.pos;
  return out;
}

/**
 * Stores a key in the contents' map with one map operation (a repeated key
 * shows as a map that did not grow); a repeated key moves to the end, as
 * the later copy in the file.
 */
function putKey(db: Map<string, LoadedKey>, key: string, loaded: LoadedKey): boolean {
  const sizeBefore = db.size;
  db.set(key, loaded);
  if (db.size !== sizeBefore) return true;
  db.delete(key);
  db.set(key, loaded);
  return false;
}

function dbKeys(out: RdbContents, id: number): Map<string, LoadedKey> {
  let keys = out.databases.get(id);
  if (keys === undefined) {
    keys = new Map();
    out.databases.set(id, keys);
  }
  return keys;
}
