import { bytesFromArray } from '../../../resp/bytes.js';
import { CFile, strtol } from '../../aof/c-stdio.js';
import { MAX_ALLOCATION_BYTES, OutOfMemory } from './crash-report.js';

/**
 * How redis-check-aof walks the commands of an AOF (processRESP and its
 * helpers in src/redis-check-aof.c). Unlike the server's loader it checks
 * every CRLF, counts lines as it consumes them, and describes the first
 * problem with the file offset where the failing read started:
 *
 *   0x              21: Expected \r\n, got: 0000
 *
 * The state lives for the whole run: the line count and the error carry
 * over from one file of a multi-part AOF to the next, as the tool's
 * globals do.
 */

const LONG_MAX = (1n << 63n) - 1n;

/** The tool reads `*<n>` and `$<n>` lines with a 128-byte fgets buffer. */
const LINE_BUFFER = 128;

/** printf("%02x") of a char, which is signed: bytes from 0x80 print as ffffff80. */
function hexChar(b: number): string {
  return b >= 0x80 ? `ffffff${b.toString(16)}` : b.toString(16).padStart(2, '0');
}

export class RespScan {
  /** The first problem found, formatted; empty when none. */
  error = '';
  /** Where the read that failed started (the tool's epos). */
  epos = 0;
  /** Lines consumed so far, starting at 1. */
  line = 1;
  /**
   * The stack buffer `*` lines are read into. fgets only writes the line
   * and its NUL, so when a message shows the byte after a short line's
   * NUL, it shows what an earlier `*` line left there. `$` lines are read
   * in a frame the data reads have since overwritten: that byte reads as 0.
   */
  private readonly starBuffer = new Uint8Array(LINE_BUFFER);
  private readonly dollarBuffer = new Uint8Array(LINE_BUFFER);

  setError(message: string): void {
    const inner = message.length > 1023 ? message.slice(0, 1023) : message;
    const text = `0x${this.epos.toString(16).padStart(16, ' ')}: ${inner}`;
    this.error = text.length > 1043 ? text.slice(0, 1043) : text;
  }

  /** consumeNewline: the two bytes at `at` must be CRLF. */
  private consumeNewline(buf: Uint8Array, at: number): boolean {
    if (buf[at] !== 0x0d || buf[at + 1] !== 0x0a) {
      this.setError(`Expected \\r\\n, got: ${hexChar(buf[at] ?? 0)}${hexChar(buf[at + 1] ?? 0)}`);
      return false;
    }
    this.line++;
    return true;
  }

  /** readLong: a `<prefix><number>\r\n` line; null when it is not one. */
  private readLong(f: CFile, prefix: number): bigint | null {
    this.epos = f.tell();
    const got = f.fgets(LINE_BUFFER);
    if (got === null) return null;
    let buf: Uint8Array;
    if (prefix === 0x2a) {
      buf = this.starBuffer;
    } else {
      buf = this.dollarBuffer;
      buf.fill(0);
    }
    buf.set(got);
    buf[got.length] = 0;
    if (buf[0] !== prefix) {
      this.setError(`Expected prefix '${String.fromCharCode(prefix)}', got: '${String.fromCharCode(buf[0]!)}'`);
      return null;
    }
    // strtol reads the C string, which ends at the first NUL.
    const nul = buf.indexOf(0, 1);
    const n = strtol(buf.subarray(0, nul < 0 ? buf.length : nul), 1);
    return this.consumeNewline(buf, n.end) ? n.value : null;
  }

  /** readString: `$<len>\r\n<bytes>\r\n`; the argument as a C string would see it, or null. */
  private readString(f: CFile): string | null {
    const len = this.readLong(f, 0x24);
    if (len === null) return null;
    if (len < 0n || len > LONG_MAX - 2n) {
      this.setError(`Expected to read string of ${len} bytes, which is not in the suitable range`);
      return null;
    }
    const want = len + 2n;
    if (want > BigInt(MAX_ALLOCATION_BYTES)) throw new OutOfMemory(want);
    this.epos = f.tell();
    const data = want > BigInt(f.size) ? f.fread(f.size + 1) : f.fread(Number(want));
    if (BigInt(data.length) !== want) {
      this.setError(`Expected to read ${want} bytes, got ${data.length} bytes`);
      return null;
    }
    if (!this.consumeNewline(data, data.length - 2)) return null;
    const nul = data.indexOf(0);
    return bytesFromArray(data, 0, nul < 0 || nul > data.length - 2 ? data.length - 2 : nul);
  }

  /**
   * processRESP: one command. `multi` is the count of open MULTIs (a
   * MULTI inside MULTI, or an EXEC without one, is an error); `path` is
   * what the error messages name.
   */
  command(f: CFile, path: string, multi: { depth: number }): boolean {
    const argc = this.readLong(f, 0x2a);
    if (argc === null) return false;
    for (let i = 0n; i < argc; i++) {
      const s = this.readString(f);
      if (s === null) return false;
      if (i !== 0n) continue;
      const name = s.toLowerCase();
      if (name === 'multi') {
        if (multi.depth++ !== 0) {
          this.setError(`Unexpected MULTI in AOF ${path}`);
          return false;
        }
      } else if (name === 'exec') {
        if (--multi.depth !== 0) {
          this.setError(`Unexpected EXEC in AOF ${path}`);
          return false;
        }
      }
    }
    return true;
  }
}
