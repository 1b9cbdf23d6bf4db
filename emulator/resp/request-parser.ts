import { bytesFromArray } from './bytes.js';
import { parseInt64 } from '../numbers/int64.js';
import { splitArgs } from './split-args.js';
import { ErrorReply } from './reply.js';

/** Redis's PROTO_INLINE_MAX_SIZE: the longest inline line or header line. */
export const PROTO_INLINE_MAX_SIZE = 64 * 1024;
const INT_MAX = 2147483647;
/** The most arguments, and the longest argument, a request may have before its client authenticates. */
const UNAUTHENTICATED_MAX_ARGS = 10;
const UNAUTHENTICATED_MAX_BULK = 16384;

/** PROTO_MBULK_BIG_ARG. */
const BIG_ARG_BYTES = 32 * 1024;

/**
 * Told of a large argument (32 KB or more) that starts with nothing after
 * it in the buffer, as Redis then reads it into a buffer of its own
 * (processMultibulkBuffer): the query buffer's accounting follows.
 */
export interface BigArgObserver {
  /** Its header is read; `have` of its bytes (CRLF included) are here. */
  bigArgStarts(length: number, have: number): void;
  /** It is whole and taken as an argument. */
  bigArgTaken(length: number): void;
}

/** Turns a byte range into a byte string; the Node server passes Buffer.latin1Slice. */
export type ByteDecoder = (buf: Uint8Array, start: number, end: number) => string;

/**
 * A protocol error: the server replies with `reply` (an error message,
 * without the leading dash) and closes the connection after it.
 */
export class ProtocolError {
  constructor(readonly reply: string) {}

  /** The error reply the client gets before the connection closes. */
  get error(): ErrorReply {
    return new ErrorReply('ERR ' + this.reply);
  }
}

/**
 * An incremental parser for what clients send: RESP multibulk requests and
 * inline commands, with Redis's own limits and error messages
 * (src/networking.c processMultibulkBuffer / processInlineBuffer).
 *
 *   const p = new RequestParser();
 *   p.feed(bytes);
 *   for (let cmd; (cmd = p.next()); ) ...
 *
 * next() returns an argv (never empty), a ProtocolError (after which the
 * parser is dead), or null when it needs more bytes.
 */
export class RequestParser {
  /** Empty inline lines seen: a replica's newlines refresh its ACK time. */
  emptyLines = 0;
  private buf: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private end = 0;
  // Multibulk state, kept across feeds like Redis's client fields.
  private multibulkLen = 0;
  private bulkLen = -1;
  private argv: string[] = [];
  // A large bulk argument is assembled in its own buffer to avoid copying the
  // whole input again for every chunk.
  private big: Uint8Array | null = null;
  private bigFill = 0;
  private failed = false;
  private readonly decode: ByteDecoder;
  maxBulkLen: number;
  /**
   * Whether the client has yet to authenticate: until it does, a request
   * may have at most 10 arguments of at most 16 KB each (authRequired in
   * processMultibulkBuffer), so that a stranger cannot make the server
   * hold large buffers.
   */
  private readonly authRequired: () => boolean;
  /** Told when a large argument starts and ends, which is when Redis gives it a buffer of its own. */
  private readonly observer: BigArgObserver | null;
  /** A large argument is being read into a buffer of its own (Redis's view, see BigArgObserver). */
  private ownBuffer = false;

  constructor(opts: { decode?: ByteDecoder; maxBulkLen?: number; authRequired?: () => boolean; observer?: BigArgObserver } = {}) {
    this.decode = opts.decode ?? bytesFromArray;
    this.maxBulkLen = opts.maxBulkLen ?? 512 * 1024 * 1024;
    this.authRequired = opts.authRequired ?? (() => false);
    this.observer = opts.observer ?? null;
  }

  /** The first `n` bytes not yet parsed, as a byte string. */
  peek(n: number): string {
    if (this.big) return this.decode(this.big, 0, Math.min(n, this.bigFill));
    return this.decode(this.buf, this.pos, Math.min(this.end, this.pos + n));
  }

  /** Bytes the large argument being read still lacks (its CRLF included), or 0. */
  get bigArgMissing(): number {
    return this.big ? this.big.length - this.bigFill : 0;
  }

  /** Bytes received but not parsed yet (Redis's qbuf). */
  get pendingBytes(): number {
    return this.end - this.pos + (this.big ? this.bigFill : 0);
  }

  /** Whether a command has been started but not completed. */
  get midCommand(): boolean {
    return this.multibulkLen > 0 || this.end > this.pos;
  }

  feed(chunk: Uint8Array): void {
    if (this.failed || chunk.length === 0) return;
    if (this.big) {
      const room = this.big.length - this.bigFill;
      const take = Math.min(room, chunk.length);
      this.big.set(chunk.subarray(0, take), this.bigFill);
      this.bigFill += take;
      if (take === chunk.length) return;
      chunk = chunk.subarray(take);
    }
    if (this.pos === this.end) {
      this.buf = chunk;
      this.pos = 0;
      this.end = chunk.length;
      return;
    }
    const rest = this.end - this.pos;
    const merged = new Uint8Array(rest + chunk.length);
    merged.set(this.buf.subarray(this.pos, this.end), 0);
    merged.set(chunk, rest);
    this.buf = merged;
    this.pos = 0;
    this.end = merged.length;
  }

  next(): string[] | ProtocolError | null {
    if (this.failed) return null;
    for (;;) {
      if (this.big) {
        if (this.bigFill < this.big.length) return null;
        this.argv.push(this.decode(this.big, 0, this.big.length - 2));
        if (this.ownBuffer) {
          this.ownBuffer = false;
          this.observer?.bigArgTaken(this.big.length - 2);
        }
        this.big = null;
        this.bigFill = 0;
        this.bulkLen = -1;
        this.multibulkLen--;
        if (this.multibulkLen === 0) return this.finish();
      }
      if (this.multibulkLen === 0) {
        if (this.pos >= this.end) return null;
        if (this.buf[this.pos] !== 42 /* * */) {
          const r = this.inline();
          if (r === 'again') continue;
          return r;
        }
        const nl = this.find(13 /* \r */);
        if (nl < 0) {
          if (this.end - this.pos > PROTO_INLINE_MAX_SIZE) return this.fail('Protocol error: too big mbulk count string');
          return null;
        }
        if (nl > this.end - 2) return null;
        const count = this.fastInt(this.pos + 1, nl);
        if (count === null || count > INT_MAX) return this.fail('Protocol error: invalid multibulk length');
        if (count > UNAUTHENTICATED_MAX_ARGS && this.authRequired()) return this.fail('Protocol error: unauthenticated multibulk length');
        this.pos = nl + 2;
        if (count <= 0) continue;
        this.multibulkLen = count;
        this.argv = [];
      }
      const r = this.bulks();
      if (r !== 'again') return r;
    }
  }

  private bulks(): string[] | ProtocolError | null | 'again' {
    const buf = this.buf;
    while (this.multibulkLen > 0) {
      if (this.bulkLen === -1) {
        const nl = this.find(13);
        if (nl < 0) {
          if (this.end - this.pos > PROTO_INLINE_MAX_SIZE) return this.fail('Protocol error: too big bulk count string');
          return null;
        }
        if (nl > this.end - 2) return null;
        const first = buf[this.pos]!;
        if (first !== 36 /* $ */) {
          const shown = first === 13 || first === 10 ? ' ' : String.fromCharCode(first);
          return this.fail(`Protocol error: expected '$', got '${shown}'`);
        }
        const len = this.fastInt(this.pos + 1, nl);
        if (len === null || len < 0 || len > this.maxBulkLen) return this.fail('Protocol error: invalid bulk length');
        if (len > UNAUTHENTICATED_MAX_BULK && this.authRequired()) return this.fail('Protocol error: unauthenticated bulk length');
        this.pos = nl + 2;
        this.bulkLen = len;
        // A large argument with nothing after it in the buffer: Redis cuts
        // the buffer to start at it and sizes it for the argument.
        if (len >= BIG_ARG_BYTES && this.end - this.pos <= len + 2) {
          this.ownBuffer = true;
          this.observer?.bigArgStarts(len, this.end - this.pos);
        }
        if (len >= BIG_ARG_BYTES && this.end - this.pos < len + 2) {
          // Start a dedicated buffer and move what we have into it.
          this.big = new Uint8Array(len + 2);
          const have = this.end - this.pos;
          this.big.set(buf.subarray(this.pos, this.end), 0);
          this.bigFill = have;
          this.pos = this.end;
          return 'again';
        }
      }
      if (this.end - this.pos < this.bulkLen + 2) return null;
      this.argv.push(this.decode(buf, this.pos, this.pos + this.bulkLen));
      this.pos += this.bulkLen + 2;
      if (this.ownBuffer) {
        this.ownBuffer = false;
        this.observer?.bigArgTaken(this.bulkLen);
      }
      this.bulkLen = -1;
      this.multibulkLen--;
    }
    return this.finish();
  }

  private finish(): string[] {
    const argv = this.argv;
    this.argv = [];
    return argv;
  }

  private inline(): string[] | ProtocolError | null | 'again' {
    const nl = this.find(10 /* \n */);
    if (nl < 0) {
      if (this.end - this.pos > PROTO_INLINE_MAX_SIZE) return this.fail('Protocol error: too big inline request');
      return null;
    }
    let lineEnd = nl;
    if (lineEnd > this.pos && this.buf[lineEnd - 1] === 13) lineEnd--;
    // A bare newline: a replica's keep-alive while it loads (processInlineBuffer).
    if (lineEnd === this.pos) this.emptyLines++;
    const line = this.decode(this.buf, this.pos, lineEnd);
    const argv = splitArgs(line);
    if (argv === null) return this.fail('Protocol error: unbalanced quotes in request');
    this.pos = nl + 1;
    return argv.length > 0 ? argv : 'again';
  }

  /**
   * The index of the first `byte` at or after pos, or -1. Like the strchr
   * Redis uses, the search stops at a NUL byte.
   */
  private find(byte: number): number {
    const buf = this.buf;
    for (let i = this.pos; i < this.end; i++) {
      const c = buf[i]!;
      if (c === byte) return i;
      if (c === 0) return -1;
    }
    return -1;
  }

  /** string2ll over a header's digits, without building a string for short ones. */
  private fastInt(start: number, end: number): number | null {
    const len = end - start;
    if (len > 0 && len <= 9) {
      const buf = this.buf;
      const first = buf[start]!;
      if (first >= 49 && first <= 57) {
        let v = first - 48;
        for (let i = start + 1; i < end; i++) {
          const d = buf[i]! - 48;
          if (d < 0 || d > 9) return null;
          v = v * 10 + d;
        }
        return v;
      }
    }
    const v = parseInt64(this.decode(this.buf, start, end));
    return v === null ? null : Number(v);
  }

  private fail(message: string): ProtocolError {
    this.failed = true;
    return new ProtocolError(message);
  }
}
