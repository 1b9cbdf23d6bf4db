import type { ZNode } from '../keyspace/skiplist.js';
import type { ZSetValue } from '../keyspace/values.js';
import { DoubleReply, EMPTY_ARRAY, ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { int64Arg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { readTyped } from './lookup.js';
import type { Handler } from '../server/command-table.js';

/**
 * ZRANDMEMBER (zrandmemberCommand, zrandmemberWithCountCommand). Random
 * picks come from the server's seeded generator and are uniform over ranks,
 * which the skip list reaches in O(log n).
 */

const COUNT_RANGE = errorReply('value is out of range, value must between -9223372036854775807 and 9223372036854775807');
const OUT_OF_RANGE = errorReply('value is out of range');

/** Beyond this many times the requested count, the set is sampled rather than whittled down. */
const SUB_STRATEGY_MUL = 3;

function randomNode(c: Client, z: ZSetValue): ZNode {
  return z.list.byRank(1 + c.server.random.below(z.size))!;
}

function withCount(c: Client, key: string, l: number, withScores: boolean): Reply {
  const z = readTyped(c, key, 'zset');
  if (z === undefined) return EMPTY_ARRAY;
  if (z instanceof ErrorReply) return z;
  const size = z.size;
  const unique = l >= 0;
  let count = unique ? l : -l;
  if (count === 0) return EMPTY_ARRAY;
  const nested = withScores && c.resp === 3;
  const out: Reply[] = [];
  const emit = (member: string, score: number): void => {
    if (!withScores) out.push(member);
    else if (nested) out.push([member, new DoubleReply(score)]);
    else out.push(member, new DoubleReply(score));
  };

  // Repeats allowed (a negative count), or a single member: independent picks.
  if (!unique || count === 1) {
    while (count-- > 0) {
      const n = randomNode(c, z);
      emit(n.member, n.score);
    }
    return out;
  }

  // Asked for at least the whole set: all of it, highest first, the way
  // Redis's set-operation iterator walks a sorted set.
  if (count >= size) {
    for (let n = z.list.tail; n !== null; n = n.backward) emit(n.member, n.score);
    return out;
  }

  // Asked for most of the set: drop random members until count remain.
  if (count * SUB_STRATEGY_MUL > size) {
    const nodes: ZNode[] = [];
    for (const n of z.list) nodes.push(n);
    let left = size;
    while (left > count) {
      const i = c.server.random.below(left);
      nodes[i] = nodes[left - 1]!;
      left--;
    }
    for (let i = 0; i < count; i++) emit(nodes[i]!.member, nodes[i]!.score);
    return out;
  }

  // Asked for a few: pick until that many distinct members came up.
  const seen = new Set<string>();
  while (seen.size < count) {
    const n = randomNode(c, z);
    if (seen.has(n.member)) continue;
    seen.add(n.member);
    emit(n.member, n.score);
  }
  return out;
}

function zrandmember(c: Client, argv: string[]): Reply {
  if (argv.length >= 3) {
    const v = int64Arg(argv[2]!);
    if (v === null) return NOT_INTEGER;
    if (v === -9223372036854775808n) return COUNT_RANGE;
    if (argv.length > 4 || (argv.length === 4 && opt(argv[3]!) !== 'withscores')) return SYNTAX_ERROR;
    const withScores = argv.length === 4;
    if (withScores && (BigInt(v) < -4611686018427387903n || BigInt(v) > 4611686018427387903n)) return OUT_OF_RANGE;
    const l = typeof v === 'bigint' ? (v > 0n ? Number.MAX_SAFE_INTEGER : -Number.MAX_SAFE_INTEGER) : v;
    return withCount(c, argv[1]!, l, withScores);
  }
  const z = readTyped(c, argv[1]!, 'zset');
  if (z === undefined) return null;
  if (z instanceof ErrorReply) return z;
  return randomNode(c, z).member;
}

export const sortedSetRandomCommands: Record<string, Handler> = {
  zrandmember,
};
