import { AofCommandReader, hasRdbPreamble } from '../aof/reader.js';
import { RdbRecordReader, type RdbReaderState, type RdbRecord } from './rdb-records.js';

/**
 * An AOF file as a list of entries, each with the bytes it spans: the
 * records of an RDB preamble when the file starts with one, then the
 * commands as Redis's loader reads them (AofCommandReader), timestamp
 * annotations, and how the file ends: cleanly, in the middle of a command
 * (a torn write, which Redis truncates with aof-load-truncated yes), or
 * on bytes that cannot be a command.
 *
 *   const reader = new AofEntryReader(bytes);
 *   for (let e = reader.next(); e !== null; e = reader.next()) show(e);
 */
export type AofEntry =
  | { readonly kind: 'rdb'; readonly offset: number; readonly end: number; readonly record: RdbRecord }
  | { readonly kind: 'command'; readonly offset: number; readonly end: number; readonly argv: readonly string[] }
  /** A `#TS:<unix time>` line (aof-timestamp-enabled), which the loader skips. */
  | { readonly kind: 'annotation'; readonly offset: number; readonly end: number; readonly text: string }
  /** The file ends inside the command that starts at `offset`. */
  | { readonly kind: 'torn'; readonly offset: number; readonly end: number }
  /** Bytes at `offset` are not a command ("Bad file format"). */
  | { readonly kind: 'bad-format'; readonly offset: number; readonly end: number }
  /** The RDB preamble cannot be read; its record says why. */
  | { readonly kind: 'bad-preamble'; readonly offset: number; readonly end: number; readonly record: RdbRecord };

/** Where a reader stands between two entries. */
export interface AofReaderState {
  readonly offset: number;
  /** Inside the RDB preamble: where its reader stands. */
  readonly rdb: RdbReaderState | null;
}

/** Redis reads annotation lines with a buffer of this size. */
const LINE_BUFFER = 1024;

export class AofEntryReader {
  private rdb: RdbRecordReader | null = null;
  private commands: AofCommandReader | null = null;
  private pos: number;
  private finished = false;

  constructor(
    readonly bytes: Uint8Array,
    from: AofReaderState | null = null,
  ) {
    this.pos = from?.offset ?? 0;
    if (from === null ? hasRdbPreamble(bytes) : from.rdb !== null) this.rdb = new RdbRecordReader(bytes, from?.rdb ?? null);
  }

  get done(): boolean {
    return this.finished;
  }

  /** Whether the reader is still inside the RDB preamble. */
  get inPreamble(): boolean {
    return this.rdb !== null;
  }

  state(): AofReaderState {
    return this.rdb !== null ? { offset: this.rdb.offset, rdb: this.rdb.state() } : { offset: this.pos, rdb: null };
  }

  next(): AofEntry | null {
    if (this.finished) return null;
    if (this.rdb !== null) return this.preamble(this.rdb);
    const data = this.bytes;
    const start = this.pos;
    if (start >= data.length) {
      this.finished = true;
      return null;
    }
    if (data[start] === 0x23 /* '#' */) {
      let end = start;
      const limit = Math.min(data.length, start + LINE_BUFFER - 1);
      while (end < limit && data[end++] !== 0x0a);
      this.pos = end;
      this.commands = null;
      let text = '';
      for (let i = start; i < end; i++) text += String.fromCharCode(data[i]!);
      return { kind: 'annotation', offset: start, end, text: text.replace(/\r?\n$/, '') };
    }
    this.commands ??= new AofCommandReader(data, start);
    const r = this.commands.next();
    switch (r.kind) {
      case 'command':
        this.pos = r.end;
        return { kind: 'command', offset: start, end: r.end, argv: r.argv };
      case 'end':
        this.finished = true;
        return null;
      case 'short-read':
        this.finished = true;
        return { kind: 'torn', offset: start, end: data.length };
      case 'format-error':
      case 'read-error':
        this.finished = true;
        return { kind: 'bad-format', offset: start, end: data.length };
    }
  }

  private preamble(rdb: RdbRecordReader): AofEntry | null {
    const record = rdb.next();
    if (record === null || record.kind === 'error') {
      this.finished = true;
      return record === null ? null : { kind: 'bad-preamble', offset: record.offset, end: record.end, record };
    }
    if (record.kind === 'eof') {
      this.rdb = null;
      this.pos = record.end;
    }
    return { kind: 'rdb', offset: record.offset, end: record.end, record };
  }
}
