import { parseInt64, type Int64 } from '../numbers/int64.js';
import { parseDouble } from '../numbers/double.js';
import { asciiLower } from '../resp/bytes.js';

/**
 * Argument helpers shared by command handlers. Redis compares option names
 * with strcasecmp on C strings, so an argument is cut at its first NUL byte
 * and lower-cased (ASCII only) before comparing.
 */
export function opt(arg: string): string {
  const nul = arg.indexOf('\0');
  return asciiLower(nul < 0 ? arg : arg.slice(0, nul));
}

/** getLongLongFromObject: a canonical int64, or null. */
export function int64Arg(arg: string): Int64 | null {
  return parseInt64(arg);
}

/** getLongFromObject limited to the safe-integer range used for counts and indexes. */
export function intArg(arg: string): number | null {
  const v = parseInt64(arg);
  if (v === null) return null;
  return typeof v === 'number' ? v : v > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
}

/** getDoubleFromObject: a strtod number, or null. */
export function doubleArg(arg: string): number | null {
  return parseDouble(arg);
}
