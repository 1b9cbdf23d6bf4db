import { bytesToArray } from '../resp/bytes.js';
import type { FileSystem } from '../sim/disk-api.js';
import { cString } from '../numbers/c-string.js';

/**
 * The RDB a replica receives in a full synchronization (readSyncBulkPayload
 * in src/replication.c): after any keep-alive newlines, a header that is
 * either `$<size>` or, for a diskless transfer whose size the primary does
 * not know, `$EOF:<40 bytes>` followed by the file and the same 40 bytes.
 * The payload goes to a temporary file on disk, or (repl-diskless-load) is
 * kept in memory for the loader.
 */

/** CONFIG_RUN_ID_SIZE: the length of the EOF mark. */
export const EOF_MARK_BYTES = 40;

/** What one read of the transfer came to. */
export type TransferStep =
  /** More bytes are needed. */
  | { kind: 'more' }
  /** A newline the primary sends while it prepares the file: the link is alive. */
  | { kind: 'keepalive' }
  /** The header was read; whether the size is known ahead. */
  | { kind: 'header'; streamed: boolean }
  /** A line that is neither a newline nor a header. */
  | { kind: 'error'; log: string }
  /** The whole file arrived; `rest` are the bytes after it (the stream). */
  | { kind: 'done'; rest: string };

export class SyncTransfer {
  /** repl_transfer_size: -1 until the header is read, 0 for a streamed transfer. */
  size = -1;
  /** repl_transfer_read. */
  read = 0;
  /** The transfer ends with an EOF mark rather than at a known size. */
  usemark = false;
  private eofmark = '';
  /** The last 40 bytes received, to find the mark. */
  private lastbytes = '';
  /** Memory target: the pieces of the payload. */
  private readonly pieces: string[] = [];
  private inbuf = '';

  constructor(
    /** The temporary file and its descriptor, or null to keep the payload in memory. */
    readonly file: { disk: FileSystem; fd: number; path: string } | null,
  ) {}

  /**
   * Takes bytes from the primary. Returns what they came to; bytes not
   * yet used stay queued for the next call, so a caller loops while it
   * gets anything but 'more'.
   */
  feed(bytes: string): TransferStep {
    if (bytes.length !== 0) this.inbuf += bytes;
    if (this.size === -1) return this.readHeader();
    if (this.inbuf.length === 0) return { kind: 'more' };
    let take: string;
    if (this.usemark) {
      // A streamed transfer is followed by nothing until the replica's
      // first ACK, so everything read belongs to it up to the mark.
      const end = this.inbuf.indexOf(this.eofmark);
      take = end < 0 ? this.inbuf : this.inbuf.slice(0, end + EOF_MARK_BYTES);
    } else {
      take = this.inbuf.slice(0, this.size - this.read);
    }
    this.inbuf = this.inbuf.slice(take.length);
    this.store(take);
    this.read += take.length;
    if (this.usemark) {
      this.lastbytes = (this.lastbytes + take).slice(-EOF_MARK_BYTES);
      if (this.lastbytes !== this.eofmark) return { kind: 'more' };
    } else if (this.read !== this.size) {
      return { kind: 'more' };
    }
    const rest = this.inbuf;
    this.inbuf = '';
    return { kind: 'done', rest };
  }

  /** The bulk count line: `$<size>`, `$EOF:<mark>`, a keep-alive newline, or an error. */
  private readHeader(): TransferStep {
    const nl = this.inbuf.indexOf('\n');
    if (nl < 0) return { kind: 'more' };
    const line = this.inbuf.slice(0, nl).replace(/\r$/, '');
    this.inbuf = this.inbuf.slice(nl + 1);
    const text = cString(line);
    if (text.startsWith('-')) return { kind: 'error', log: `MASTER aborted replication with an error: ${text.slice(1)}` };
    if (text === '') return { kind: 'keepalive' };
    if (!text.startsWith('$')) {
      return { kind: 'error', log: `Bad protocol from MASTER, the first byte is not '$' (we received '${text}'), are you sure the host and port are right?` };
    }
    if (text.startsWith('$EOF:') && text.length - 5 >= EOF_MARK_BYTES) {
      this.usemark = true;
      this.eofmark = text.slice(5, 5 + EOF_MARK_BYTES);
      this.size = 0;
      return { kind: 'header', streamed: true };
    }
    this.size = strtol(text.slice(1));
    return { kind: 'header', streamed: false };
  }

  /** The payload's bytes so far to their target. */
  private store(bytes: string): void {
    if (bytes.length === 0) return;
    if (this.file === null) {
      this.pieces.push(bytes);
      return;
    }
    this.file.disk.write(this.file.fd, bytesToArray(bytes));
  }

  /** The whole file received in memory, without the EOF mark. */
  payload(): Uint8Array {
    const all = this.pieces.join('');
    return bytesToArray(this.usemark ? all.slice(0, all.length - EOF_MARK_BYTES) : all);
  }

  /** The file's length on disk once received: what was read, less the mark. */
  get fileBytes(): number {
    return this.usemark ? this.read - EOF_MARK_BYTES : this.read;
  }
}

/** strtol(s, NULL, 10): the leading integer, 0 when there is none. */
function strtol(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m === null ? 0 : Number(m[1]);
}
