import { bytesFromArray } from './bytes.js';
import {
  AttributeReply,
  BigNumberReply,
  BoolReply,
  DoubleReply,
  ErrorReply,
  MapReply,
  NULL_ARRAY,
  PushReply,
  SetReply,
  StatusReply,
  VerbatimReply,
  type Reply,
} from './reply.js';
import { normalize } from '../numbers/int64.js';

/** Thrown for bytes that are not a RESP reply. */
export class ReplyProtocolError extends Error {
  readonly code = 'EPROTO';
}

const NEED_MORE = Symbol('need more');

/**
 * An incremental parser for server replies, RESP2 and RESP3. Used by clients
 * of the emulator and by the differential tests to read the real server.
 * Raw-bytes mode (`raw()`) returns each reply's exact bytes instead.
 */
export class ReplyParser {
  private buf = '';
  private pos = 0;

  /** Appends bytes (a byte string or an array of bytes). */
  feed(chunk: string | Uint8Array): void {
    const s = typeof chunk === 'string' ? chunk : bytesFromArray(chunk);
    this.buf = this.pos === this.buf.length ? s : this.buf.slice(this.pos) + s;
    this.pos = 0;
  }

  /** The next complete reply, or undefined when more bytes are needed. */
  next(): Reply | undefined {
    const start = this.pos;
    const r = this.parse();
    if (r === NEED_MORE) {
      this.pos = start;
      return undefined;
    }
    return r;
  }

  /** The exact bytes of the next complete reply, or undefined. */
  nextRaw(): string | undefined {
    const start = this.pos;
    const r = this.parse();
    if (r === NEED_MORE) {
      this.pos = start;
      return undefined;
    }
    return this.buf.slice(start, this.pos);
  }

  get buffered(): number {
    return this.buf.length - this.pos;
  }

  private line(): string | typeof NEED_MORE {
    const i = this.buf.indexOf('\r\n', this.pos);
    if (i < 0) return NEED_MORE;
    const s = this.buf.slice(this.pos, i);
    this.pos = i + 2;
    return s;
  }

  private parse(): Reply | typeof NEED_MORE {
    if (this.pos >= this.buf.length) return NEED_MORE;
    const type = this.buf[this.pos++];
    const line = this.line();
    if (line === NEED_MORE) return NEED_MORE;
    switch (type) {
      case '+':
        return new StatusReply(line);
      case '-':
        return new ErrorReply(line);
      case ':': {
        const n = Number(line);
        return Number.isSafeInteger(n) ? n : normalize(BigInt(line));
      }
      case '$':
      case '=':
      case '!': {
        if (line === '-1') return null;
        const len = Number(line);
        if (!Number.isInteger(len) || len < 0) throw new ReplyProtocolError(`bad bulk length ${line}`);
        if (this.buf.length - this.pos < len + 2) return NEED_MORE;
        const s = this.buf.slice(this.pos, this.pos + len);
        this.pos += len + 2;
        if (type === '=') return new VerbatimReply(s.slice(4), s.slice(0, 3));
        if (type === '!') return new ErrorReply(s);
        return s;
      }
      case '*':
      case '~':
      case '>':
      case '%': {
        if (line === '-1') return NULL_ARRAY;
        const n = Number(line);
        if (!Number.isInteger(n) || n < 0) throw new ReplyProtocolError(`bad aggregate length ${line}`);
        const count = type === '%' ? n * 2 : n;
        const items: Reply[] = [];
        for (let i = 0; i < count; i++) {
          const item = this.parse();
          if (item === NEED_MORE) return NEED_MORE;
          items.push(item);
        }
        if (type === '~') return new SetReply(items);
        if (type === '>') return new PushReply(items);
        if (type === '%') return new MapReply(items);
        return items;
      }
      case '|': {
        const n = Number(line);
        if (!Number.isInteger(n) || n < 0) throw new ReplyProtocolError(`bad attribute length ${line}`);
        const attributes: Reply[] = [];
        for (let i = 0; i < n * 2; i++) {
          const item = this.parse();
          if (item === NEED_MORE) return NEED_MORE;
          attributes.push(item);
        }
        const reply = this.parse();
        if (reply === NEED_MORE) return NEED_MORE;
        return new AttributeReply(attributes, reply);
      }
      case '_':
        return null;
      case ',':
        return new DoubleReply(line === 'inf' ? Infinity : line === '-inf' ? -Infinity : line === 'nan' ? NaN : Number(line));
      case '#':
        return line === 't' ? BoolReply.TRUE : BoolReply.FALSE;
      case '(':
        return new BigNumberReply(line);
      default:
        throw new ReplyProtocolError(`unexpected reply type ${JSON.stringify(type)}`);
    }
  }
}
