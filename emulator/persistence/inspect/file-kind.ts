import { hasRdbPreamble } from '../aof/reader.js';

/**
 * How a viewer should open a file: by its name first, as Redis names its
 * files (dump.rdb, appendonly.aof.1.base.rdb, appendonly.aof.2.incr.aof,
 * appendonly.aof.manifest), then by its first bytes.
 */
export type FileKind = 'rdb' | 'aof' | 'manifest' | 'text' | 'binary';

/** Bytes looked at to tell text from binary. */
const SNIFF_BYTES = 64 * 1024;

export function fileKind(name: string, bytes: Uint8Array): FileKind {
  const base = name.slice(name.lastIndexOf('/') + 1);
  if (base.endsWith('.manifest')) return 'manifest';
  // An old single-file AOF may start with an RDB preamble: it is still an AOF.
  if (base.endsWith('.aof') || /\.aof\.\d+\.incr\.aof$/.test(base) || base.startsWith('temp-rewriteaof')) return 'aof';
  if (hasRdbPreamble(bytes)) return 'rdb';
  if (base.endsWith('.rdb')) return 'rdb';
  if (bytes.length > 0 && bytes[0] === 0x2a /* '*' */ && /^\*\d+\r\n\$/.test(latin1(bytes, 0, 16))) return 'aof';
  return isText(bytes) ? 'text' : 'binary';
}

/** Whether the start of a file reads as text: no control bytes but tab, newline, carriage return and form feed. */
export function isText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) return false;
    if (b === 0x7f) return false;
  }
  return true;
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < Math.min(end, bytes.length); i++) s += String.fromCharCode(bytes[i]!);
  return s;
}
