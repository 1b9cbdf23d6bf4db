import { int64Arg } from './args.js';

/**
 * Count arguments of the list commands, parsed like Redis's
 * getRangeLongFromObjectOrReply with a lower bound and LONG_MAX above. A
 * count beyond the safe-integer range is clamped: no list is that long, so
 * the answer is the same.
 */
export function rangeLongArg(arg: string, min: number): number | null {
  const v = int64Arg(arg);
  if (v === null) return null;
  if (typeof v === 'bigint') return v > 0n ? Number.MAX_SAFE_INTEGER : null;
  return v < min ? null : v;
}

/** getPositiveLongFromObjectOrReply: an integer from 0 to LONG_MAX. */
export function positiveLongArg(arg: string): number | null {
  return rangeLongArg(arg, 0);
}
