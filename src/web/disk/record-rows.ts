import { AUX_FIELDS, quoteCut, type AofEntry, type RdbRecord } from '../../../emulator/persistence/inspect/index.js';
import { formatBytes } from './disk-view.js';

/**
 * A decoded record as one row of the viewer: every text already quoted as
 * redis-cli quotes it (keys, values, arguments, stray bytes), so a row is
 * shown as plain text and nothing a file holds can act as markup or as a
 * control sequence.
 */
export interface RecordRow {
  readonly offset: number;
  readonly end: number;
  /** A short tag for the record's kind: "aux", "key", "cmd", "torn"... */
  readonly tag: string;
  readonly text: string;
  readonly detail: string;
  readonly tone: 'normal' | 'muted' | 'ok' | 'bad';
  /** For a key: its parts, for columns. */
  readonly key?: { readonly type: string; readonly encoding: string; readonly rdbType: string; readonly ttl: string; readonly value: string };
}

/** Bytes of a stray run shown in a row. */
const STRAY_BYTES = 48;

export function rdbRow(rec: RdbRecord, nowMs: number): RecordRow {
  const at = { offset: rec.offset, end: rec.end };
  switch (rec.kind) {
    case 'header':
      return { ...at, tag: 'header', text: `REDIS${String(rec.version).padStart(4, '0')}`, detail: `RDB format version ${rec.version} (Redis 7.0 writes 10)`, tone: 'muted' };
    case 'aux':
      return { ...at, tag: 'aux', text: `${quoteCut(rec.key)} = ${quoteCut(rec.value)}`, detail: auxDetail(rec.key, rec.value), tone: 'muted' };
    case 'select-db':
      return { ...at, tag: 'db', text: `SELECTDB ${rec.db}`, detail: `the keys that follow are in database ${rec.db}`, tone: 'muted' };
    case 'resize-db':
      return {
        ...at,
        tag: 'db',
        text: `RESIZEDB ${rec.keys} key${rec.keys === 1 ? '' : 's'}, ${rec.expires} with a TTL`,
        detail: 'sizes for the tables the loader makes',
        tone: 'muted',
      };
    case 'function':
      return { ...at, tag: 'function', text: quoteCut(rec.code.split('\n')[0] ?? ''), detail: 'a function library (FUNCTION LOAD)', tone: 'normal' };
    case 'key': {
      const ttl = rec.expireAtMs === undefined ? '' : ttlText(rec.expireAtMs, nowMs);
      const value = rec.empty ? 'an empty collection: Redis skips it on load' : rec.value.preview;
      return {
        ...at,
        tag: 'key',
        text: quoteCut(rec.key),
        detail: [rec.type, rec.encoding, ttl, value].filter((s) => s !== '').join(' · '),
        tone: 'normal',
        key: { type: rec.type, encoding: rec.encoding, rdbType: rec.rdbType, ttl, value },
      };
    }
    case 'eof': {
      const c = rec.checksum;
      const sum =
        c.stored === null
          ? 'no checksum in this version'
          : c.disabled
            ? 'checksum 0: saved with rdbchecksum no, not checked'
            : c.computed === null
              ? `checksum ${hex64(c.stored)}`
              : `checksum ${hex64(c.stored)}: matches the bytes before it`;
      const trailing = rec.trailing > 0 ? `; ${formatBytes(rec.trailing)} follow the RDB data` : '';
      return { ...at, tag: 'eof', text: 'EOF', detail: sum + trailing, tone: 'ok' };
    }
    case 'error':
      return {
        ...at,
        tag: 'error',
        text: `decoding stopped at byte ${rec.error.offset >= 0 ? rec.error.offset : rec.offset}: ${rec.error.message.trim()}`,
        detail: rec.error.detail !== '' ? rec.error.detail : errorHelp(rec.error.code),
        tone: 'bad',
      };
  }
}

export function aofRow(e: AofEntry, bytes: Uint8Array, nowMs: number): RecordRow {
  const at = { offset: e.offset, end: e.end };
  switch (e.kind) {
    case 'rdb':
      return { ...rdbRow(e.record, nowMs), tag: `rdb ${rdbRow(e.record, nowMs).tag}` };
    case 'bad-preamble':
      return { ...rdbRow(e.record, nowMs), tag: 'error', detail: 'the RDB preamble is damaged: Redis stops loading the AOF here' };
    case 'command':
      return { ...at, tag: 'cmd', text: commandText(e.argv), detail: '', tone: 'normal' };
    case 'annotation': {
      const m = /^#TS:(\d+)/.exec(e.text);
      return { ...at, tag: 'note', text: quoteCut(e.text), detail: m ? `written at ${new Date(Number(m[1]) * 1000).toISOString().replace('.000Z', 'Z')}` : 'an annotation: the loader skips it', tone: 'muted' };
    }
    case 'torn':
      return {
        ...at,
        tag: 'torn',
        text: `torn command: the file ends ${e.end - e.offset} byte${e.end - e.offset === 1 ? '' : 's'} into it: ${stray(bytes, e.offset, e.end)}`,
        detail: 'Redis cuts it off at start (aof-load-truncated yes, the default) and logs the offset; with no, it refuses to start',
        tone: 'bad',
      };
    case 'bad-format':
      return {
        ...at,
        tag: 'error',
        text: `not a command: ${stray(bytes, e.offset, e.end)}`,
        detail: 'Redis stops with "Bad file format reading the append only file"; redis-check-aof --fix can cut the file here',
        tone: 'bad',
      };
  }
}

/**
 * A command as a line: each argument as it is when it is a plain word,
 * quoted as redis-cli quotes it otherwise (spaces, quotes, control bytes,
 * anything not printable ASCII), long ones cut.
 */
export function commandText(argv: readonly string[]): string {
  return argv.map((a) => (/^[\x21-\x7e]{1,64}$/.test(a) && !/["'\\]/.test(a) ? a : quoteCut(a))).join(' ');
}

/** A TTL against the virtual clock: "expires in 59 s (2026-01-01T00:01:00Z)". */
export function ttlText(expireAtMs: number, nowMs: number): string {
  const when = Number.isFinite(expireAtMs) && Math.abs(expireAtMs) < 8.64e15 ? new Date(expireAtMs).toISOString().replace('.000Z', 'Z') : String(expireAtMs);
  const s = Math.round((expireAtMs - nowMs) / 1000);
  return s >= 0 ? `expires in ${duration(s)} (${when})` : `expired ${duration(-s)} ago (${when})`;
}

function duration(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

function auxDetail(key: string, value: string): string {
  const what = AUX_FIELDS[key] ?? 'an aux field';
  if (key === 'ctime' && /^\d+$/.test(value)) return `${what}: ${new Date(Number(value) * 1000).toISOString().replace('.000Z', 'Z')}`;
  if (key === 'used-mem' && /^\d+$/.test(value)) return `${what}: ${formatBytes(Number(value))}`;
  return what;
}

function errorHelp(code: string): string {
  switch (code) {
    case 'short-read':
      return 'the file ends in the middle of this record: it was cut short (a crash while writing, or a partial copy)';
    case 'checksum':
      return 'the bytes were changed after the file was written';
    case 'bad-magic':
      return 'an RDB file starts with "REDIS" and its version';
    case 'unsupported':
      return 'the workbook cannot decode this kind of value; the bytes are in the hex view';
    default:
      return 'the bytes here do not follow the RDB format';
  }
}

function stray(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < Math.min(end, start + STRAY_BYTES); i++) s += String.fromCharCode(bytes[i]!);
  return quoteCut(s, STRAY_BYTES) + (end - start > STRAY_BYTES ? '…' : '');
}

function hex64(v: bigint): string {
  return '0x' + v.toString(16).padStart(16, '0');
}
