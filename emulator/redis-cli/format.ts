import { repr } from '../resp/bytes.js';
import { formatDouble } from '../numbers/double.js';
import {
  AttributeReply,
  BigNumberReply,
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
import { cString } from '../numbers/c-string.js';

/** sdscatrepr lives with the other byte-string helpers; the formatter's users import it from here. */
export { repr };

/**
 * redis-cli 7.0's reply formatting (src/redis-cli.c cliFormatReplyTTY and
 * cliFormatReplyRaw). Input is a reply as a client parsed it; output is a
 * byte string, the exact bytes redis-cli writes to its standard output.
 *
 *   formatReplyTTY(['a', 1])   // '1) "a"\n2) (integer) 1\n'
 *   formatReplyRaw(['a', 1])   // 'a\n1'
 *
 * The replies are formatted as their types say: give a RESP2 client's reply
 * as a RESP2 client sees it (a double is then a bulk string), for instance by
 * parsing the bytes the server wrote.
 */

/** How redis-cli prints replies: TTY ("standard") or --raw. */
export type OutputMode = 'tty' | 'raw';

/**
 * A reply type redis-cli has no format for: 7.0 prints
 * "Unknown reply type: N" to standard error and exits with status 1.
 * A RESP3 big number is one (hiredis type 13).
 */
export class UnknownReplyTypeError extends Error {
  readonly code = 'EUNKNOWNREPLY';
  constructor(readonly hiredisType: number) {
    super(`Unknown reply type: ${hiredisType}`);
  }
}

/**
 * RESP3 attributes: the hiredis in redis-cli 7.0 does not know the '|' type
 * and gives up on the connection with this protocol error.
 */
export class AttributeNotSupportedError extends UnknownReplyTypeError {
  constructor() {
    super(0);
    this.message = 'Error: Protocol error, got "|" as reply type byte';
  }
}

/** hiredis's REDIS_REPLY_BIGNUM. */
const HIREDIS_BIGNUM = 13;


/** An aggregate's elements as hiredis lists them (a map's keys and values interleaved). */
function aggregateItems(r: Reply): Reply[] | null {
  if (Array.isArray(r)) return r;
  if (r instanceof MapReply) return r.flat;
  if (r instanceof SetReply || r instanceof PushReply) return r.items;
  return null;
}

/** Whether the TTY format of a reply takes more than one line (cliIsMultilineValueTTY). */
function isMultiline(r: Reply): boolean {
  const items = aggregateItems(r);
  if (items === null || items.length === 0) return false;
  if (r instanceof MapReply) return items.length > 2 || isMultiline(items[1]!);
  return items.length > 1 || isMultiline(items[0]!);
}

function emptyAggregateText(r: Reply): string {
  if (r instanceof MapReply) return '(empty hash)\n';
  if (r instanceof SetReply) return '(empty set)\n';
  if (r instanceof PushReply) return '(empty push)\n';
  return '(empty array)\n';
}

/** The TTY (standard output mode) format of a reply, ending with a newline. */
export function formatReplyTTY(r: Reply, prefix = ''): string {
  if (typeof r === 'string') return repr(r) + '\n';
  if (typeof r === 'number' || typeof r === 'bigint') return '(integer) ' + String(r) + '\n';
  if (r === null || r instanceof NullArrayReply) return '(nil)\n';
  if (r instanceof StatusReply) return cString(r.text) + '\n';
  if (r instanceof ErrorReply) return '(error) ' + cString(r.message) + '\n';
  if (r instanceof DoubleReply) return '(double) ' + formatDouble(r.value) + '\n';
  if (r instanceof VerbatimReply) return r.text + '\n';
  if (r instanceof BoolReply) return r.value ? '(true)\n' : '(false)\n';
  if (r instanceof BigNumberReply) throw new UnknownReplyTypeError(HIREDIS_BIGNUM);
  if (r instanceof AttributeReply) throw new AttributeNotSupportedError();
  const items = aggregateItems(r);
  if (items === null) throw new TypeError('not a reply: ' + String(r));
  if (items.length === 0) return emptyAggregateText(r);

  const isMap = r instanceof MapReply;
  const count = isMap ? items.length / 2 : items.length;
  const width = String(count).length;
  const childPrefix = prefix + ' '.repeat(width + 2);
  const sep = r instanceof SetReply ? '~ ' : isMap ? '# ' : ') ';
  let out = '';
  for (let i = 0, n = 1; i < items.length; i++, n++) {
    // The first line's number follows whatever the caller already wrote.
    out += (i === 0 ? '' : prefix) + String(n).padStart(width) + sep;
    out += formatReplyTTY(items[i]!, childPrefix);
    if (isMap) {
      const value = items[++i]!;
      out = out.slice(0, -1) + ' => ';
      if (isMultiline(value)) out += '\n' + childPrefix;
      out += formatReplyTTY(value, childPrefix);
    }
  }
  return out;
}

/** The --raw format of a reply (cliFormatReplyRaw), without the final delimiter. */
export function formatReplyRaw(r: Reply): string {
  if (typeof r === 'string') return r;
  if (typeof r === 'number' || typeof r === 'bigint') return String(r);
  if (r === null || r instanceof NullArrayReply) return '';
  if (r instanceof StatusReply) return r.text;
  if (r instanceof ErrorReply) return r.message + '\n';
  if (r instanceof DoubleReply) return formatDouble(r.value);
  if (r instanceof VerbatimReply) return r.text;
  if (r instanceof BoolReply) return r.value ? '(true)' : '(false)';
  if (r instanceof BigNumberReply) throw new UnknownReplyTypeError(HIREDIS_BIGNUM);
  if (r instanceof AttributeReply) throw new AttributeNotSupportedError();
  const items = aggregateItems(r);
  if (items === null) throw new TypeError('not a reply: ' + String(r));
  let out = '';
  if (r instanceof MapReply) {
    for (let i = 0; i < items.length; i += 2) {
      if (i > 0) out += '\n';
      out += formatReplyRaw(items[i]!) + ' ' + formatReplyRaw(items[i + 1]!);
    }
    return out;
  }
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += '\n';
    out += formatReplyRaw(items[i]!);
  }
  return out;
}

/**
 * What redis-cli prints for one reply (cliFormatReply): the TTY format, or
 * the raw format followed by a newline. `verbatim` is for the commands whose
 * text redis-cli always shows as is (see printsVerbatim).
 */
export function formatReply(r: Reply, mode: OutputMode, verbatim = false): string {
  if (verbatim) return formatReplyRaw(r);
  if (mode === 'tty') return formatReplyTTY(r);
  return formatReplyRaw(r) + '\n';
}
