import { ByteReader } from '../rdb/bytes.js';
import { Crc64 } from '../rdb/crc64.js';
import { RdbAbort, RdbError } from '../rdb/errors.js';
import { readLength, readLengthOrEncoding, readString } from '../rdb/string-encoding.js';
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
  TYPE_STRING,
} from '../rdb/types.js';
import { moduleTypeName, readModuleId, readObject, type ValueReadOptions } from '../rdb/value-reader.js';
import { rdbTypeInfo } from './rdb-type-names.js';
import { summarizeValue, type ValueSummary } from './value-summary.js';

/**
 * An RDB file as a list of records, each with the bytes it spans: the
 * header, aux fields, database selectors, keys, the end marker with its
 * checksum, or the point where the file cannot be read any further and
 * why. The records are read one at a time with the codec's own readers
 * (string-encoding.ts, value-reader.ts), so a viewer can show the first
 * keys of a file of millions at once, and carry on from any record it has
 * passed (`state()`, then a new reader from that state).
 *
 *   const reader = new RdbRecordReader(bytes);
 *   for (let rec = reader.next(); rec !== null; rec = reader.next()) show(rec);
 */

export interface RdbKeyRecord {
  readonly kind: 'key';
  readonly offset: number;
  readonly end: number;
  readonly db: number;
  /** The key as a byte string. */
  readonly key: string;
  /** The RDB type byte and its name in src/rdb.h ("RDB_TYPE_HASH_LISTPACK"). */
  readonly typeCode: number;
  readonly rdbType: string;
  /** The value's type as TYPE reports it. */
  readonly type: string;
  /** How the file stores the value: "listpack", "intset", "int", "lzf", "raw"... */
  readonly encoding: string;
  /** Absolute expiry in Unix ms, when the key has one. */
  readonly expireAtMs?: number;
  readonly idleSeconds?: number;
  readonly lfuFreq?: number;
  /** An empty collection, which Redis skips on load. */
  readonly empty: boolean;
  readonly value: ValueSummary;
}

export interface RdbChecksum {
  /** The eight bytes after the end marker, or null when the version has none (before 5). */
  readonly stored: bigint | null;
  /** The CRC64 of everything before them; null when the reader did not start at byte 0. */
  readonly computed: bigint | null;
  /** A stored checksum of 0 means the file was saved with rdbchecksum no. */
  readonly disabled: boolean;
}

export type RdbRecord =
  | { readonly kind: 'header'; readonly offset: number; readonly end: number; readonly version: number }
  | { readonly kind: 'aux'; readonly offset: number; readonly end: number; readonly key: string; readonly value: string }
  | { readonly kind: 'select-db'; readonly offset: number; readonly end: number; readonly db: number }
  | { readonly kind: 'resize-db'; readonly offset: number; readonly end: number; readonly keys: number; readonly expires: number }
  | { readonly kind: 'function'; readonly offset: number; readonly end: number; readonly code: string }
  | RdbKeyRecord
  | { readonly kind: 'eof'; readonly offset: number; readonly end: number; readonly checksum: RdbChecksum; /** Bytes after the RDB data (an AOF preamble's commands). */ readonly trailing: number }
  /** Reading stopped: the record starting at `offset` could not be read; error.offset is where. */
  | { readonly kind: 'error'; readonly offset: number; readonly end: number; readonly error: RdbError };

/** Where a reader stands between two records: enough to start another reader there. */
export interface RdbReaderState {
  readonly offset: number;
  /** The database selected by the last SELECTDB before this point. */
  readonly db: number;
  readonly version: number;
}

/**
 * The limits the loader compares values against. They only choose the
 * encoding a server would give a loaded value; the viewer shows the
 * encoding the file has, so Redis's defaults do. Deep checks are on, so
 * a damaged listpack or intset is reported where it is.
 */
const VALUE_OPTIONS: ValueReadOptions = {
  hashMaxListpackEntries: 512,
  hashMaxListpackValue: 64,
  setMaxIntsetEntries: 512,
  zsetMaxListpackEntries: 128,
  zsetMaxListpackValue: 64,
  deepSanitize: true,
};

/** The special string encodings (the low bits after 11 in a length byte). */
const STRING_ENCODINGS = ['int', 'int', 'int', 'lzf'];

export class RdbRecordReader {
  private readonly r: ByteReader;
  private db: number;
  private version: number;
  private finished = false;
  /** The running checksum, kept only by a reader that starts at the file's first byte. */
  private readonly crc: Crc64 | null;
  private crcPos = 0;

  constructor(
    readonly bytes: Uint8Array,
    from: RdbReaderState | null = null,
  ) {
    this.r = new ByteReader(bytes, from?.offset ?? 0);
    this.db = from?.db ?? 0;
    this.version = from?.version ?? 0;
    this.crc = from === null || from.offset === 0 ? new Crc64() : null;
  }

  /** The byte offset of the next record. */
  get offset(): number {
    return this.r.pos;
  }

  /** Whether the end marker or an error has been read. */
  get done(): boolean {
    return this.finished;
  }

  state(): RdbReaderState {
    return { offset: this.r.pos, db: this.db, version: this.version };
  }

  /** The next record, or null after the end marker or an error. */
  next(): RdbRecord | null {
    if (this.finished) return null;
    const start = this.r.pos;
    try {
      const rec = start === 0 ? this.header() : this.record(start);
      if (rec.kind === 'eof' || rec.kind === 'error') this.finished = true;
      return rec;
    } catch (e) {
      if (!(e instanceof RdbAbort)) throw e;
      this.finished = true;
      // A short read's record runs to the end of the file; other damage ends where reading stopped.
      const stop = e.error.code === 'short-read' ? this.bytes.length : Math.min(this.bytes.length, e.error.offset);
      return { kind: 'error', offset: start, end: Math.max(start, stop), error: e.error };
    }
  }

  private header(): RdbRecord {
    const r = this.r;
    if (this.bytes.length < 9) throw new RdbAbort(new RdbError('short-read', 'Unexpected EOF reading RDB file', this.bytes.length));
    const magic = r.strBytes(9);
    if (magic.slice(0, 5) !== 'REDIS') throw new RdbAbort(new RdbError('bad-magic', 'Wrong signature trying to load DB from file', 0));
    const m = /^\s*[+-]?\d+/.exec(magic.slice(5));
    const version = m ? Number.parseInt(m[0], 10) : 0;
    if (version < 1 || version > RDB_VERSION) throw new RdbAbort(new RdbError('bad-version', `Can't handle RDB format version ${version}`, 5));
    this.version = version;
    this.sum();
    return { kind: 'header', offset: 0, end: 9, version };
  }

  /** Adds the bytes read since the last record to the running checksum. */
  private sum(): void {
    if (this.crc === null) return;
    this.crc.update(this.bytes, this.crcPos, this.r.pos);
    this.crcPos = this.r.pos;
  }

  private record(start: number): RdbRecord {
    const r = this.r;
    let expireAtMs: number | undefined;
    let idleSeconds: number | undefined;
    let lfuFreq: number | undefined;
    for (;;) {
      const type = r.u8();
      if (type === OPCODE_EXPIRETIME) {
        expireAtMs = r.i32le() * 1000;
        continue;
      }
      if (type === OPCODE_EXPIRETIME_MS) {
        expireAtMs = Number(r.i64le());
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
      if (type === OPCODE_EOF) return this.eof(start);
      if (type === OPCODE_SELECTDB) {
        this.db = readLength(r);
        this.sum();
        return { kind: 'select-db', offset: start, end: r.pos, db: this.db };
      }
      if (type === OPCODE_RESIZEDB) {
        const keys = readLength(r);
        const expires = readLength(r);
        this.sum();
        return { kind: 'resize-db', offset: start, end: r.pos, keys, expires };
      }
      if (type === OPCODE_AUX) {
        const key = readString(r);
        const value = readString(r);
        this.sum();
        return { kind: 'aux', offset: start, end: r.pos, key, value };
      }
      if (type === OPCODE_MODULE_AUX) {
        const name = moduleTypeName(readModuleId(r));
        throw new RdbAbort(new RdbError('unsupported', `The RDB file contains AUX module data I can't load: no matching module '${name}'`, r.pos));
      }
      if (type === OPCODE_FUNCTION2) {
        const code = readString(r);
        this.sum();
        return { kind: 'function', offset: start, end: r.pos, code };
      }
      if (type === OPCODE_FUNCTION) {
        // The format of 7.0's release candidates: name, engine, an optional description, the code.
        const name = readString(r);
        const engine = readString(r);
        if (readLength(r) !== 0) readString(r);
        const code = readString(r);
        this.sum();
        return { kind: 'function', offset: start, end: r.pos, code: `#!${engine} name=${name}\n${code}` };
      }
      return this.key(start, type, { expireAtMs, idleSeconds, lfuFreq });
    }
  }

  private key(start: number, typeCode: number, extra: { expireAtMs?: number; idleSeconds?: number; lfuFreq?: number }): RdbKeyRecord {
    const r = this.r;
    const key = readString(r);
    const valueAt = r.pos;
    const info = rdbTypeInfo(typeCode);
    let encoding = info.encoding;
    if (typeCode === TYPE_STRING) {
      const l = readLengthOrEncoding(r);
      encoding = l.encoded ? (STRING_ENCODINGS[l.value] ?? 'raw') : 'raw';
      r.pos = valueAt;
    }
    const value = readObject(r, typeCode, VALUE_OPTIONS);
    this.sum();
    const rec: RdbKeyRecord = {
      kind: 'key',
      offset: start,
      end: r.pos,
      db: this.db,
      key,
      typeCode,
      rdbType: info.name,
      type: info.type,
      encoding,
      empty: value === null,
      value: value === null ? { size: 0, preview: '(empty)' } : summarizeValue(value),
      ...(extra.expireAtMs !== undefined ? { expireAtMs: extra.expireAtMs } : {}),
      ...(extra.idleSeconds !== undefined ? { idleSeconds: extra.idleSeconds } : {}),
      ...(extra.lfuFreq !== undefined ? { lfuFreq: extra.lfuFreq } : {}),
    };
    return rec;
  }

  private eof(start: number): RdbRecord {
    const r = this.r;
    let stored: bigint | null = null;
    let computed: bigint | null = null;
    if (this.version >= 5) {
      this.sum();
      if (this.crc !== null) computed = this.crc.value;
      const b = r.take(8);
      stored = 0n;
      for (let i = 7; i >= 0; i--) stored = (stored << 8n) | BigInt(b[i]!);
      if (stored !== 0n && computed !== null && stored !== computed) {
        // The whole end marker is what is wrong: the stored sum does not match the bytes before it.
        const detail = `Wrong RDB checksum expected: (${computed.toString(16)}) but got (${stored.toString(16)}). Aborting now.`;
        return { kind: 'error', offset: start, end: r.pos, error: new RdbError('checksum', 'RDB CRC error', start + 1, detail) };
      }
    }
    return {
      kind: 'eof',
      offset: start,
      end: r.pos,
      checksum: { stored, computed, disabled: stored === 0n },
      trailing: this.bytes.length - r.pos,
    };
  }
}
