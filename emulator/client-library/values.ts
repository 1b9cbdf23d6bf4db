import { bytesToUtf8, utf8ToBytes, bytesFromArray } from '../resp/bytes.js';
import { formatDouble } from '../numbers/double.js';
import {
  AttributeReply,
  BigNumberReply,
  FramesReply,
  BoolReply,
  DoubleReply,
  ErrorReply,
  MapReply,
  NullArrayReply,
  PushReply,
  SetReply,
  StatusReply,
  VerbatimReply,
  type Reply,
} from '../resp/reply.js';
import { ReplyError } from './reply-error.js';

/** What a client may pass as an argument. */
export type Arg = string | number | bigint | Uint8Array;

/** What a command resolves to, shaped like ioredis results. */
export type ClientValue = string | number | bigint | null | ClientValue[] | ReplyError | Uint8Array;

/** Converts a client argument to the byte string the server sees (text as UTF-8). */
export function argToBytes(a: Arg): string {
  if (typeof a === 'string') return utf8ToBytes(a);
  if (typeof a === 'number' || typeof a === 'bigint') return String(a);
  return bytesFromArray(a);
}

/**
 * Converts a reply to the value a client sees: bulk and status strings as
 * text (UTF-8 decoded), integers as numbers (bigint beyond 2^53), doubles as
 * their reply text, maps and sets flattened like RESP2, errors as ReplyError
 * values (thrown at top level, kept in place inside EXEC arrays).
 */
export function replyToValue(r: Reply): ClientValue {
  if (typeof r === 'string') return bytesToUtf8(r);
  if (typeof r === 'number' || typeof r === 'bigint' || r === null) return r;
  if (Array.isArray(r)) return r.map(replyToValue);
  if (r instanceof StatusReply) return r.text;
  if (r instanceof ErrorReply) return new ReplyError(r.message);
  if (r instanceof NullArrayReply) return null;
  if (r instanceof DoubleReply) return formatDouble(r.value);
  if (r instanceof MapReply) return r.flat.map(replyToValue);
  if (r instanceof SetReply || r instanceof PushReply) return r.items.map(replyToValue);
  if (r instanceof VerbatimReply) return bytesToUtf8(r.text);
  if (r instanceof BoolReply) return r.value ? 1 : 0;
  if (r instanceof BigNumberReply) return r.digits;
  // Attributes describe the reply; the value is the reply itself.
  if (r instanceof AttributeReply) return replyToValue(r.reply);
  // Several messages for one command: the last one is the reply. None at
  // all (CLIENT REPLY OFF) reads as null.
  if (r instanceof FramesReply) return r.frames.length === 0 ? null : replyToValue(r.frames[r.frames.length - 1]!);
  throw new TypeError('unknown reply');
}
