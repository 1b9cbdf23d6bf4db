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

/** Where encoded reply bytes go, a fragment at a time, in order. */
export interface ReplySink {
  add(bytes: string): void;
}

/**
 * A bulk string at least this long goes out as three fragments (header,
 * body, CRLF), as Redis's addReplyBulk adds them, so the body is never
 * copied into a bigger string and a sink counting memory sees what Redis
 * sees; a shorter one is one fragment.
 */
const BIG_BULK_BYTES = 16 * 1024;

function bulk(out: ReplySink, prefix: string, s: string): void {
  if (s.length < BIG_BULK_BYTES) {
    out.add(prefix + s.length + '\r\n' + s + '\r\n');
    return;
  }
  out.add(prefix + s.length + '\r\n');
  out.add(s);
  out.add('\r\n');
}

/**
 * Encodes a reply as RESP bytes into a sink, fragment by fragment, so a
 * reply of any size (an EXEC of hundreds of large values) is never one
 * string. RESP2 folds the RESP3 types into its five, the way Redis does for
 * a client that has not sent HELLO 3.
 */
export function encodeReplyTo(out: ReplySink, r: Reply, proto: Protocol): void {
  if (typeof r === 'string') return bulk(out, '$', r);
  if (typeof r === 'number') return out.add(':' + r + '\r\n');
  if (r === null) return out.add(proto === 3 ? '_\r\n' : '$-1\r\n');
  if (Array.isArray(r)) {
    out.add('*' + r.length + '\r\n');
    for (let i = 0; i < r.length; i++) encodeReplyTo(out, r[i]!, proto);
    return;
  }
  if (typeof r === 'bigint') return out.add(':' + r.toString() + '\r\n');
  if (r instanceof StatusReply) return out.add('+' + r.text + '\r\n');
  if (r instanceof ErrorReply) return out.add('-' + r.message + '\r\n');
  if (r instanceof DoubleReply) {
    const text = formatDouble(r.value);
    return out.add(proto === 3 ? ',' + text + '\r\n' : '$' + text.length + '\r\n' + text + '\r\n');
  }
  if (r instanceof MapReply) {
    const n = r.flat.length;
    out.add(proto === 3 ? '%' + n / 2 + '\r\n' : '*' + n + '\r\n');
    for (let i = 0; i < n; i++) encodeReplyTo(out, r.flat[i]!, proto);
    return;
  }
  if (r instanceof SetReply) {
    out.add((proto === 3 ? '~' : '*') + r.items.length + '\r\n');
    for (const item of r.items) encodeReplyTo(out, item, proto);
    return;
  }
  if (r instanceof NullArrayReply) return out.add(proto === 3 ? '_\r\n' : '*-1\r\n');
  if (r instanceof VerbatimReply) {
    if (proto === 2) return bulk(out, '$', r.text);
    return out.add('=' + (r.text.length + 4) + '\r\n' + r.format + ':' + r.text + '\r\n');
  }
  if (r instanceof BoolReply) {
    if (proto === 3) return out.add(r.value ? '#t\r\n' : '#f\r\n');
    return out.add(r.value ? ':1\r\n' : ':0\r\n');
  }
  if (r instanceof BigNumberReply) {
    return out.add(proto === 3 ? '(' + r.digits + '\r\n' : '$' + r.digits.length + '\r\n' + r.digits + '\r\n');
  }
  if (r instanceof AttributeReply) {
    if (proto === 3) {
      out.add('|' + r.attributes.length / 2 + '\r\n');
      for (const a of r.attributes) encodeReplyTo(out, a, proto);
    }
    return encodeReplyTo(out, r.reply, proto);
  }
  if (r instanceof FramesReply) {
    for (const f of r.frames) encodeReplyTo(out, f, proto);
    return;
  }
  if (r instanceof PushReply) {
    out.add((proto === 3 ? '>' : '*') + r.items.length + '\r\n');
    for (const item of r.items) encodeReplyTo(out, item, proto);
    return;
  }
  throw new TypeError('not a reply: ' + String(r));
}

/** Gathers a reply's fragments into one string. */
class StringSink implements ReplySink {
  text = '';
  add(bytes: string): void {
    this.text += bytes;
  }
}

/**
 * Encodes a reply as RESP bytes (a byte string): for replies known to be
 * small (a MONITOR line, a test's expectation). What a server sends a
 * client goes through encodeReplyTo.
 */
export function encodeReply(r: Reply, proto: Protocol): string {
  if (typeof r === 'string') return '$' + r.length + '\r\n' + r + '\r\n';
  const sink = new StringSink();
  encodeReplyTo(sink, r, proto);
  return sink.text;
}

/**
 * The headers of the arrays and bulk strings most commands are made of
 * (`*3\r\n`, `$5\r\n`), made once: every write fed to the AOF and the
 * replicas is framed with them, and building each one anew made two
 * short-lived strings per argument.
 */
const ARRAY_HEADERS = Array.from({ length: 16 }, (_, n) => `*${n}\r\n`);
const BULK_HEADERS = Array.from({ length: 256 }, (_, n) => `$${n}\r\n`);

/** `*<n>\r\n`, made once for the common counts. */
function arrayHeader(n: number): string {
  return n < ARRAY_HEADERS.length ? ARRAY_HEADERS[n]! : '*' + n + '\r\n';
}

/** `$<n>\r\n`, made once for the common lengths. */
function bulkHeader(n: number): string {
  return n < BULK_HEADERS.length ? BULK_HEADERS[n]! : '$' + n + '\r\n';
}

/** Encodes a command (an array of byte strings) the way clients send it. */
export function encodeCommand(argv: readonly string[]): string {
  let out = arrayHeader(argv.length);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    out += bulkHeader(a.length) + a + '\r\n';
  }
  return out;
}

/** The length of encodeCommand(argv), without making it. */
export function encodedCommandLength(argv: readonly string[]): number {
  let n = argv.length < ARRAY_HEADERS.length ? ARRAY_HEADERS[argv.length]!.length : String(argv.length).length + 3;
  for (let i = 0; i < argv.length; i++) {
    const len = argv[i]!.length;
    n += (len < BULK_HEADERS.length ? BULK_HEADERS[len]!.length : String(len).length + 3) + len + 2;
  }
  return n;
}

/** `\r\n$<n>\r\n`: an argument's end and the next one's header in one piece, made once. */
const CRLF_BULK_HEADERS = BULK_HEADERS.map((h) => '\r\n' + h);

/**
 * The last command's beginning (`*3\r\n$3\r\nSET`, up to its name's end)
 * and what it was made of: a stream of writes repeats the same few.
 */
let prefixName = '';
let prefixArgc = -1;
let prefix = '';

/** How many pieces putEncodedCommand makes of a command. */
export function encodedCommandPieces(argv: readonly string[]): number {
  return 2 * argv.length;
}

/**
 * Puts the pieces of encodeCommand(argv) into `parts` from index `at` and
 * returns the index after them, for many commands made into one string by
 * a single join: the command's beginning (the same string for the same
 * name and count), then for each further argument its header joined to the
 * end of the one before (made once) and the argument itself, then the last
 * CRLF. No string is made per command.
 */
export function putEncodedCommand(argv: readonly string[], parts: string[], at: number): number {
  const argc = argv.length;
  const name = argv[0]!;
  if (argc !== prefixArgc || name !== prefixName) {
    prefix = (argc < ARRAY_HEADERS.length ? ARRAY_HEADERS[argc]! : '*' + argc + '\r\n') + (name.length < BULK_HEADERS.length ? BULK_HEADERS[name.length]! : '$' + name.length + '\r\n') + name;
    prefixName = name;
    prefixArgc = argc;
  }
  let k = at;
  parts[k++] = prefix;
  for (let i = 1; i < argc; i++) {
    const a = argv[i]!;
    parts[k++] = a.length < CRLF_BULK_HEADERS.length ? CRLF_BULK_HEADERS[a.length]! : '\r\n$' + a.length + '\r\n';
    parts[k++] = a;
  }
  parts[k++] = '\r\n';
  return k;
}

/**
 * Commands encoded as encodeCommand would, straight into the bytes a
 * client writes to its socket: a library connection sends every command
 * this way, and joining the frames into a string only to copy it into
 * bytes again cost more than the encoding itself.
 */
export function encodeCommandsToArray(argvs: readonly (readonly string[])[]): Uint8Array {
  let n = 0;
  for (const argv of argvs) {
    n += arrayHeader(argv.length).length;
    for (let i = 0; i < argv.length; i++) n += bulkHeader(argv[i]!.length).length + argv[i]!.length + 2;
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const argv of argvs) {
    at = copyChars(arrayHeader(argv.length), out, at);
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      at = copyChars(a, out, copyChars(bulkHeader(a.length), out, at));
      out[at++] = 0x0d;
      out[at++] = 0x0a;
    }
  }
  return out;
}

/** Writes the byte string `s` at `at`; returns where it ends. */
function copyChars(s: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i);
  return at;
}

/**
 * `SELECT <db>` as a command, the one framing the AOF's records and the
 * replication stream both write before a command for another database.
 */
export function encodeSelect(db: number): string {
  return encodeCommand(['SELECT', String(db)]);
}
