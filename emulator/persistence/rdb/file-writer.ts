import type { Value } from '../../keyspace/values.js';
import type { Int64 } from '../../numbers/int64.js';
import { ByteWriter } from '../../keyspace/encoding/byte-writer.js';
import { Crc64 } from './crc64.js';
import { writeLength, writeString } from './string-encoding.js';
import {
  OPCODE_AUX,
  OPCODE_EOF,
  OPCODE_EXPIRETIME_MS,
  OPCODE_FREQ,
  OPCODE_FUNCTION2,
  OPCODE_IDLE,
  OPCODE_RESIZEDB,
  OPCODE_SELECTDB,
  RDB_VERSION,
} from './types.js';
import { objectType, writeObject, type ValueWriteOptions } from './value-writer.js';

/**
 * Writes a whole RDB file as Redis 7.0's rdbSaveRio does: the magic, the
 * aux fields, function libraries, then each non-empty database (SELECTDB,
 * RESIZEDB, its keys), EOF and the CRC64 of everything before it.
 */

/** One key as the file stores it. */
export interface RdbKey {
  key: string;
  value: Value;
  /** Absolute expiry in unix ms, if the key has one. */
  expireAtMs?: Int64;
  /** Seconds since the last access, written as IDLE under an LRU maxmemory-policy. */
  idleSeconds?: number;
  /** The LFU counter, written as FREQ under an LFU maxmemory-policy. */
  lfuFreq?: number;
}

/** One database: its sizes for RESIZEDB and its keys in iteration order. */
export interface RdbDatabase {
  id: number;
  size: number;
  expiresSize: number;
  keys: Iterable<RdbKey>;
}

/** What goes in the aux fields. ctime and used-mem are given, so that a test can pin them. */
export interface RdbAux {
  redisVersion: string;
  ctimeSeconds: number;
  usedMemoryBytes: number;
  /** Whether the file is the base of a multi-part AOF. */
  aofBase: boolean;
  /** Written only by a primary with a backlog, or by a replica (rdbPopulateSaveInfo). */
  replication?: { streamDb: number; replId: string; offset: Int64 };
}

export interface RdbWriteOptions extends ValueWriteOptions {
  /** rdbchecksum: without it the trailing checksum is 0. */
  checksum: boolean;
  aux: RdbAux;
  /** Library sources saved as FUNCTION2 records. */
  functions?: readonly string[];
}

function writeAux(w: ByteWriter, key: string, value: string, compression: boolean): void {
  w.byte(OPCODE_AUX);
  writeString(w, key, compression);
  writeString(w, value, compression);
}

/**
 * An RDB file written piece by piece, as a forked child writes it through
 * its buffered rio: the header, then databases and their keys in any
 * number of steps, then EOF and the checksum of everything. `take()`
 * hands over what was written since the last call.
 *
 *   const s = new RdbStreamWriter(opts);
 *   s.header();
 *   s.selectDb({ id: 0, size: 2, expiresSize: 0 });
 *   s.key({ key: 'a', value: '1' });
 *   out.push(s.take());            // ...while keys remain
 *   out.push(s.end());
 */
export class RdbStreamWriter {
  private w = new ByteWriter(32 * 1024);
  private readonly crc: Crc64 | null;

  constructor(private readonly opts: RdbWriteOptions) {
    this.crc = opts.checksum ? new Crc64() : null;
  }

  /** Bytes written and not yet taken. */
  get pending(): number {
    return this.w.length;
  }

  /** The magic, the aux fields and the function libraries. */
  header(): void {
    const w = this.w;
    const opts = this.opts;
    const z = opts.compression;
    w.str(`REDIS${String(RDB_VERSION).padStart(4, '0')}`);
    const aux = opts.aux;
    writeAux(w, 'redis-ver', aux.redisVersion, z);
    writeAux(w, 'redis-bits', '64', z);
    writeAux(w, 'ctime', String(aux.ctimeSeconds), z);
    writeAux(w, 'used-mem', String(aux.usedMemoryBytes), z);
    if (aux.replication) {
      writeAux(w, 'repl-stream-db', String(aux.replication.streamDb), z);
      writeAux(w, 'repl-id', aux.replication.replId, z);
      writeAux(w, 'repl-offset', String(aux.replication.offset), z);
    }
    writeAux(w, 'aof-base', aux.aofBase ? '1' : '0', z);
    for (const code of opts.functions ?? []) {
      w.byte(OPCODE_FUNCTION2);
      writeString(w, code, z);
    }
  }

  /** SELECTDB and RESIZEDB: the keys that follow belong to this database. */
  selectDb(db: { id: number; size: number; expiresSize: number }): void {
    const w = this.w;
    w.byte(OPCODE_SELECTDB);
    writeLength(w, db.id);
    w.byte(OPCODE_RESIZEDB);
    writeLength(w, db.size);
    writeLength(w, db.expiresSize);
  }

  key(k: RdbKey): void {
    writeKey(this.w, k, this.opts);
  }

  /** A key serialized earlier by keyRecord (a value saved before a write changed it). */
  record(bytes: Uint8Array): void {
    this.w.bytes(bytes);
  }

  take(): Uint8Array {
    const out = this.w.finish();
    this.crc?.update(out);
    this.w = new ByteWriter(32 * 1024);
    return out;
  }

  /** EOF and the CRC64 (0 without rdbchecksum): the last bytes of the file, with whatever was not taken yet. */
  end(): Uint8Array {
    const w = this.w;
    w.byte(OPCODE_EOF);
    this.crc?.update(w.view());
    w.bytes(this.crc === null ? new Uint8Array(8) : this.crc.bytesLE());
    return w.finish();
  }
}

function writeKey(w: ByteWriter, k: RdbKey, opts: ValueWriteOptions): void {
  if (k.expireAtMs !== undefined) {
    w.byte(OPCODE_EXPIRETIME_MS);
    w.i64le(k.expireAtMs);
  }
  if (k.idleSeconds !== undefined) {
    w.byte(OPCODE_IDLE);
    writeLength(w, k.idleSeconds);
  }
  if (k.lfuFreq !== undefined) {
    w.byte(OPCODE_FREQ);
    w.byte(k.lfuFreq);
  }
  w.byte(objectType(k.value));
  writeString(w, k.key, opts.compression);
  writeObject(w, k.value, opts);
}

/** One key as the file stores it (its expiry, access data, type, name and value), on its own. */
export function keyRecord(k: RdbKey, opts: ValueWriteOptions): Uint8Array {
  const w = new ByteWriter(64);
  writeKey(w, k, opts);
  return w.finish();
}

/** Serializes the databases (only those with keys are written). */
export function writeRdb(databases: Iterable<RdbDatabase>, opts: RdbWriteOptions): Uint8Array {
  const s = new RdbStreamWriter(opts);
  s.header();
  for (const db of databases) {
    if (db.size === 0) continue;
    s.selectDb(db);
    for (const k of db.keys) s.key(k);
  }
  return s.end();
}
