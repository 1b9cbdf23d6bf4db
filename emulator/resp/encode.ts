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
} from './reply.js';

export type Protocol = 2 | 3;

/**
 * Encodes a reply as RESP bytes (a byte string). RESP2 folds the RESP3 types
 * into its five, the way Redis does for a client that has not sent HELLO 3.
 */
export function encodeReply(r: Reply, proto: Protocol): string {
  if (typeof r === 'string') return '$' + r.length + '\r\n' + r + '\r\n';
  if (typeof r === 'number') return ':' + r + '\r\n';
  if (r === null) return proto === 3 ? '_\r\n' : '$-1\r\n';
  if (Array.isArray(r)) {
    if (r.length === 0) return '*0\r\n';
    let out = '*' + r.length + '\r\n';
    for (let i = 0; i < r.length; i++) out += encodeReply(r[i]!, proto);
    return out;
  }
  if (typeof r === 'bigint') return ':' + r.toString() + '\r\n';
  if (r instanceof StatusReply) return '+' + r.text + '\r\n';
  if (r instanceof ErrorReply) return '-' + r.message + '\r\n';
  if (r instanceof DoubleReply) {
    const text = formatDouble(r.value);
    return proto === 3 ? ',' + text + '\r\n' : '$' + text.length + '\r\n' + text + '\r\n';
  }
  if (r instanceof MapReply) {
    const n = r.flat.length;
    let out = proto === 3 ? '%' + n / 2 + '\r\n' : '*' + n + '\r\n';
    for (let i = 0; i < n; i++) out += encodeReply(r.flat[i]!, proto);
    return out;
  }
  if (r instanceof SetReply) {
    let out = (proto === 3 ? '~' : '*') + r.items.length + '\r\n';
    for (const item of r.items) out += encodeReply(item, proto);
    return out;
  }
  if (r instanceof NullArrayReply) return proto === 3 ? '_\r\n' : '*-1\r\n';
  if (r instanceof VerbatimReply) {
    if (proto === 2) return '$' + r.text.length + '\r\n' + r.text + '\r\n';
    return '=' + (r.text.length + 4) + '\r\n' + r.format + ':' + r.text + '\r\n';
  }
  if (r instanceof BoolReply) {
    if (proto === 3) return r.value ? '#t\r\n' : '#f\r\n';
    return r.value ? ':1\r\n' : ':0\r\n';
  }
  if (r instanceof BigNumberReply) {
    return proto === 3 ? '(' + r.digits + '\r\n' : '$' + r.digits.length + '\r\n' + r.digits + '\r\n';
  }
  if (r instanceof AttributeReply) {
    if (proto === 2) return encodeReply(r.reply, proto);
    let out = '|' + r.attributes.length / 2 + '\r\n';
    for (const a of r.attributes) out += encodeReply(a, proto);
    return out + encodeReply(r.reply, proto);
  }
  if (r instanceof FramesReply) {
    let out = '';
    for (const f of r.frames) out += encodeReply(f, proto);
    return out;
  }
  if (r instanceof PushReply) {
    let out = (proto === 3 ? '>' : '*') + r.items.length + '\r\n';
    for (const item of r.items) out += encodeReply(item, proto);
    return out;
  }
  throw new TypeError('not a reply: ' + String(r));
}

/** Encodes a command (an array of byte strings) the way clients send it. */
export function encodeCommand(argv: readonly string[]): string {
  let out = '*' + argv.length + '\r\n';
  for (const a of argv) out += '$' + a.length + '\r\n' + a + '\r\n';
  return out;
}
