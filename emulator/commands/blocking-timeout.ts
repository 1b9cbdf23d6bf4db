import { ceilToInt64, multiplyLongDouble, parseLongDouble } from '../numbers/long-double.js';
import { errorReply, type ErrorReply } from '../resp/reply.js';
import type { Client } from '../server/client.js';

const NOT_A_FLOAT = errorReply('timeout is not a float or out of range');
const NEGATIVE = errorReply('timeout is negative');
const INT64_MAX = 9223372036854775807n;

/**
 * A blocking command's timeout in seconds (getTimeoutFromObjectOrReply in
 * src/timeout.c): a long double, converted to whole milliseconds rounded
 * up, made absolute. 0 means forever. Returns the absolute unix ms, 0,
 * Infinity (counted as timed but never due), or an error.
 */
export function parseBlockTimeout(c: Client, arg: string): number | ErrorReply {
  const ld = parseLongDouble(arg);
  if (ld === null) return NOT_A_FLOAT;
  const ms = ceilToInt64(multiplyLongDouble(ld, 1000));
  if (ms < 0n) return NEGATIVE;
  if (ms === 0n) return 0;
  const at = ms + BigInt(c.server.nowMs);
  // Past the int64 range the sum wraps in C to a negative deadline. It is
  // not 0, so the client still enters the timeout table (INFO counts it in
  // clients_in_timeout_table), but read as unsigned it sorts after every
  // real time and never fires: the client waits for data only.
  return at > INT64_MAX ? Infinity : Number(at);
}
