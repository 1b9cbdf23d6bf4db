import { StringObject, isIntEncodable, type Value } from '../keyspace/values.js';
import type { ErrorReply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { STRING_TOO_LONG, WRONGTYPE } from '../server/errors.js';

/**
 * What the string command files share: typed lookups of string values, the
 * size limit on strings a command grows, and how a freshly made string is
 * stored so that OBJECT ENCODING tells the truth.
 */

export function isStringValue(v: Value): v is string | StringObject {
  return typeof v === 'string' || v.type === 'string';
}

/** The string at key for reading: its bytes, null when missing, or WRONGTYPE. Counts a hit or miss. */
export function readString(c: Client, key: string): string | null | ErrorReply {
  const v = c.db.lookupRead(key);
  if (v === undefined) return null;
  if (typeof v === 'string') return v;
  return v.type === 'string' ? v.s : WRONGTYPE;
}

/** The string value at key for reading, unconverted (for commands that only need a length or a slice). */
export function readStringValue(c: Client, key: string): string | StringObject | null | ErrorReply {
  const v = c.db.lookupRead(key);
  if (v === undefined) return null;
  return isStringValue(v) ? v : WRONGTYPE;
}

/** The string value at key for writing: the value, undefined when missing, or WRONGTYPE. */
export function writeString(c: Client, key: string): string | StringObject | undefined | ErrorReply {
  const v = c.db.lookupWrite(key);
  if (v === undefined || isStringValue(v)) return v;
  return WRONGTYPE;
}

/**
 * The longest string a JavaScript engine can hold (V8's limit on 64-bit
 * hosts), 24 bytes short of proto-max-bulk-len's default of 512 MiB. A
 * command that would cross it gets the proto-max-bulk-len error rather
 * than crashing the emulator.
 */
const MAX_JS_STRING_LENGTH = 2 ** 29 - 24;

/**
 * Redis's checkStringLength (src/t_string.c): whether a string of `size`
 * bytes may grow by `append` bytes. `size` may be a huge offset (SETRANGE),
 * hence the bigint.
 */
export function checkStringLength(c: Client, size: number | bigint, append: number): ErrorReply | null {
  const total = typeof size === 'bigint' ? size + BigInt(append) : size + append;
  const limit = c.server.config.getNumber('proto-max-bulk-len');
  if (total > limit || total > MAX_JS_STRING_LENGTH) return STRING_TOO_LONG;
  return null;
}

/**
 * A string created with createStringObject (embstr up to 44 bytes, raw
 * beyond), as INCRBYFLOAT makes its result: only a value that looks like an
 * integer needs a wrapper, since a bare string of it would report "int".
 */
export function embstrOrRaw(s: string): string | StringObject {
  return isIntEncodable(s) ? new StringObject(s, 'embstr') : s;
}
