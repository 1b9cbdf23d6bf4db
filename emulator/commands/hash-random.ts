import type { HashValue } from '../keyspace/values.js';
import type { Random } from '../sim/random.js';
import { EMPTY_ARRAY, ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { int64Arg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { readTyped } from './lookup.js';

/**
 * HRANDFIELD key [count [WITHVALUES]] (src/t_hash.c hrandfieldCommand).
 *
 * A positive count asks for distinct fields: the whole hash in its own order
 * when the count covers it, otherwise a random sample in random order. A
 * negative count asks for that many independent picks, repeats allowed.
 * With WITHVALUES a RESP2 reply is flat (field, value, ...) and a RESP3
 * reply is an array of [field, value] pairs. Randomness is the server's
 * seeded PRNG, so the choices differ from the real server's; only their
 * distribution and shape match.
 */

const LONG_MIN = -9223372036854775808n;
/** WITHVALUES doubles the reply, so the count must stay within LONG_MAX / 2. */
const HALF_LONG_MAX = 4611686018427387903n;
/**
 * Redis would keep building a reply of any size until memory ran out; the
 * emulator refuses more picks than this instead.
 */
export const MAX_RANDOM_PICKS = 1 << 24;
const REPLY_TOO_LARGE = errorReply(`reply too large: the emulator returns at most ${MAX_RANDOM_PICKS} random elements`);

export function hrandfield(c: Client, argv: string[]): Reply {
  if (argv.length >= 3) {
    const l = int64Arg(argv[2]!);
    if (l === null) return NOT_INTEGER;
    if (l === LONG_MIN) return errorReply('value is out of range, value must between -9223372036854775807 and 9223372036854775807');
    if (argv.length > 4 || (argv.length === 4 && opt(argv[3]!) !== 'withvalues')) return SYNTAX_ERROR;
    const withValues = argv.length === 4;
    if (withValues && (BigInt(l) < -HALF_LONG_MAX || BigInt(l) > HALF_LONG_MAX)) return errorReply('value is out of range');
    return withCount(c, argv[1]!, l, withValues);
  }
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return null;
  if (h instanceof ErrorReply) return h;
  return fieldAt(h, c.server.random.below(h.map.size));
}

/** The field at a position of the hash's order. O(n), like a listpack seek. */
function fieldAt(h: HashValue, index: number): string {
  let i = 0;
  for (const field of h.map.keys()) if (i++ === index) return field;
  throw new Error('hash index out of range');
}

function withCount(c: Client, key: string, l: number | bigint, withValues: boolean): Reply {
  const h = readTyped(c, key, 'hash');
  if (h === undefined) return EMPTY_ARRAY;
  if (h instanceof ErrorReply) return h;
  const unique = l >= 0;
  const count = Number(unique ? l : -l);
  if (count === 0) return EMPTY_ARRAY;
  const size = h.map.size;
  const entries = Array.from(h.map);
  const resp3 = c.resp === 3;
  if (!unique || count === 1) {
    if (count > MAX_RANDOM_PICKS) return REPLY_TOO_LARGE;
    const random = c.server.random;
    const picks = new Array<[string, string]>(count);
    for (let i = 0; i < count; i++) picks[i] = entries[random.below(size)]!;
    return fieldsReply(picks, count, withValues, resp3);
  }
  if (count >= size) return fieldsReply(entries, size, withValues, resp3);
  sampleInPlace(entries, count, c.server.random);
  return fieldsReply(entries, count, withValues, resp3);
}

/** Moves a uniform random sample of n items, in random order, to the front (partial Fisher-Yates). */
function sampleInPlace<T>(items: T[], n: number, random: Random): void {
  for (let i = 0; i < n; i++) {
    const j = i + random.below(items.length - i);
    const t = items[i]!;
    items[i] = items[j]!;
    items[j] = t;
  }
}

/** The first n entries as HRANDFIELD replies them in the client's protocol. */
function fieldsReply(entries: Array<[string, string]>, n: number, withValues: boolean, resp3: boolean): Reply {
  if (!withValues) {
    const out = new Array<Reply>(n);
    for (let i = 0; i < n; i++) out[i] = entries[i]![0];
    return out;
  }
  if (resp3) {
    const out = new Array<Reply>(n);
    for (let i = 0; i < n; i++) out[i] = [entries[i]![0], entries[i]![1]];
    return out;
  }
  const out = new Array<Reply>(n * 2);
  for (let i = 0; i < n; i++) {
    out[2 * i] = entries[i]![0];
    out[2 * i + 1] = entries[i]![1];
  }
  return out;
}
