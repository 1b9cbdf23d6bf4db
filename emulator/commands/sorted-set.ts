import { lexLteMax, type ZNode } from '../keyspace/skiplist.js';
import type { ZSetValue } from '../keyspace/values.js';
import { parseScanCursor } from '../keyspace/scan.js';
import { globMatch } from '../keyspace/glob.js';
import { formatDouble, parseDouble } from '../numbers/double.js';
import { DoubleReply, EMPTY_ARRAY, ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { intArg, opt } from './args.js';
import { NOT_FLOAT, NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { modified, readTyped, writeTyped } from './lookup.js';
import {
  ZADD_ADDED,
  ZADD_GT,
  ZADD_INCR,
  ZADD_LT,
  ZADD_NAN,
  ZADD_NOP,
  ZADD_NX,
  ZADD_UPDATED,
  ZADD_XX,
  createZset,
  listpackScoreText,
  zaddResult,
  zsetAdd,
} from './sorted-set-object.js';
import { sortedSetPopCommands } from './sorted-set-pop.js';
import { NOT_FLOAT_RANGE, NOT_LEX_RANGE, firstInLexRange, lastInLexRange, parseLexRange, parseScoreRange } from './sorted-set-ranges.js';
import { sortedSetRangeCommands } from './sorted-set-range.js';
import type { Handler } from '../server/command-table.js';

/**
 * The sorted-set commands (src/t_zset.c): adding, removing, scores, ranks,
 * counts and ZSCAN here; ranges, set operations, pops and random members in
 * the sorted-set-*.ts files beside this one.
 */

const NAN_SCORE = errorReply('resulting score is not a number (NaN)');
const XX_NX = errorReply('XX and NX options at the same time are not compatible');
const GT_LT_NX = errorReply('GT, LT, and/or NX options at the same time are not compatible');
const INCR_PAIRS = errorReply('INCR option supports a single increment-element pair');

/** ZADD and ZINCRBY (zaddGenericCommand). */
function zaddGeneric(c: Client, argv: string[], initialFlags: number): Reply {
  let flags = initialFlags;
  let ch = false;
  let scoreIdx = 2;
  for (; scoreIdx < argv.length; scoreIdx++) {
    // Every option starts with a letter; most arguments here are scores.
    const arg = argv[scoreIdx]!;
    if (!isAsciiLetter(arg.charCodeAt(0))) break;
    const o = opt(arg);
    if (o === 'nx') flags |= ZADD_NX;
    else if (o === 'xx') flags |= ZADD_XX;
    else if (o === 'ch') ch = true;
    else if (o === 'incr') flags |= ZADD_INCR;
    else if (o === 'gt') flags |= ZADD_GT;
    else if (o === 'lt') flags |= ZADD_LT;
    else break;
  }
  const incr = (flags & ZADD_INCR) !== 0;
  const nx = (flags & ZADD_NX) !== 0;
  const gt = (flags & ZADD_GT) !== 0;
  const lt = (flags & ZADD_LT) !== 0;
  const args = argv.length - scoreIdx;
  if (args === 0 || args % 2 !== 0) return SYNTAX_ERROR;
  const pairs = args / 2;
  if (nx && flags & ZADD_XX) return XX_NX;
  if ((gt && nx) || (lt && nx) || (gt && lt)) return GT_LT_NX;
  if (incr && pairs > 1) return INCR_PAIRS;

  // Every score is checked before anything changes: the command applies
  // whole or not at all.
  const scores = new Array<number>(pairs);
  for (let j = 0; j < pairs; j++) {
    const s = parseDouble(argv[scoreIdx + j * 2]!);
    if (s === null) return NOT_FLOAT;
    scores[j] = s;
  }

  const key = argv[1]!;
  let z = writeTyped(c, key, 'zset');
  if (z instanceof ErrorReply) return z;
  let added = 0;
  let updated = 0;
  let processed = 0;
  let score = 0;
  if (z === undefined) {
    if (flags & ZADD_XX) return incr ? null : 0;
    z = createZset(c, argv[scoreIdx + 1]!.length);
    c.db.add(key, z);
  }
  for (let j = 0; j < pairs; j++) {
    const out = zsetAdd(c, z, scores[j]!, argv[scoreIdx + 1 + j * 2]!, flags);
    // Only INCR, with its single pair, can meet a NaN, so nothing has changed yet.
    if (out & ZADD_NAN) return NAN_SCORE;
    if (out & ZADD_ADDED) added++;
    if (out & ZADD_UPDATED) updated++;
    if (!(out & ZADD_NOP)) {
      processed++;
      score = zaddResult.score;
    }
  }
  if (added + updated !== 0) {
    modified(c, key, added + updated);
    notifyKeyspaceEvent(c.server, NOTIFY.ZSET, incr ? 'zincr' : 'zadd', key, c.db.id);
  }
  if (incr) return processed ? new DoubleReply(score) : null;
  return ch ? added + updated : added;
}

function isAsciiLetter(ch: number): boolean {
  return (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122);
}

function zadd(c: Client, argv: string[]): Reply {
  return zaddGeneric(c, argv, 0);
}

function zincrby(c: Client, argv: string[]): Reply {
  return zaddGeneric(c, argv, ZADD_INCR);
}

function zrem(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const z = writeTyped(c, key, 'zset');
  if (z === undefined) return 0;
  if (z instanceof ErrorReply) return z;
  let deleted = 0;
  let keyRemoved = false;
  for (let j = 2; j < argv.length; j++) {
    if (z.delete(argv[j]!)) deleted++;
    if (z.size === 0) {
      c.db.delete(key);
      keyRemoved = true;
      break;
    }
  }
  if (deleted) {
    notifyKeyspaceEvent(c.server, NOTIFY.ZSET, 'zrem', key, c.db.id);
    if (keyRemoved) notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
    modified(c, key, deleted);
  }
  return deleted;
}

/** ZREMRANGEBYRANK, ZREMRANGEBYSCORE and ZREMRANGEBYLEX (zremrangeGenericCommand). */
function zremrangeByRank(c: Client, argv: string[]): Reply {
  const s = intArg(argv[2]!);
  if (s === null) return NOT_INTEGER;
  const e = intArg(argv[3]!);
  if (e === null) return NOT_INTEGER;
  const key = argv[1]!;
  const z = writeTyped(c, key, 'zset');
  if (z === undefined) return 0;
  if (z instanceof ErrorReply) return z;
  const llen = z.size;
  let start = s < 0 ? llen + s : s;
  let end = e < 0 ? llen + e : e;
  if (start < 0) start = 0;
  if (start > end || start >= llen) return 0;
  if (end >= llen) end = llen - 1;
  const deleted = z.list.deleteRangeByRank(start + 1, end + 1, (n) => z.dict.delete(n.member));
  return afterRangeRemoval(c, key, z, deleted, 'zremrangebyrank');
}

function zremrangeByScore(c: Client, argv: string[]): Reply {
  const range = parseScoreRange(argv[2]!, argv[3]!);
  if (range === null) return NOT_FLOAT_RANGE;
  const key = argv[1]!;
  const z = writeTyped(c, key, 'zset');
  if (z === undefined) return 0;
  if (z instanceof ErrorReply) return z;
  const deleted = z.list.deleteRangeByScore(range, (n) => z.dict.delete(n.member));
  return afterRangeRemoval(c, key, z, deleted, 'zremrangebyscore');
}

function zremrangeByLex(c: Client, argv: string[]): Reply {
  const range = parseLexRange(argv[2]!, argv[3]!);
  if (range === null) return NOT_LEX_RANGE;
  const key = argv[1]!;
  const z = writeTyped(c, key, 'zset');
  if (z === undefined) return 0;
  if (z instanceof ErrorReply) return z;
  let deleted: number;
  if (z.encoding === 'skiplist') {
    deleted = z.list.deleteRangeByLex(range, (n) => z.dict.delete(n.member));
  } else {
    // A listpack deletes from its first member in range while members stay
    // <= max (zzlDeleteRangeByLex).
    deleted = 0;
    let n = firstInLexRange(z, range);
    while (n !== null && lexLteMax(n.member, range)) {
      const next = n.next[0]!;
      z.delete(n.member);
      deleted++;
      n = next;
    }
  }
  return afterRangeRemoval(c, key, z, deleted, 'zremrangebylex');
}

function afterRangeRemoval(c: Client, key: string, z: ZSetValue, deleted: number, event: string): Reply {
  const keyRemoved = z.size === 0;
  if (keyRemoved) c.db.delete(key);
  if (deleted) {
    modified(c, key, deleted);
    notifyKeyspaceEvent(c.server, NOTIFY.ZSET, event, key, c.db.id);
    if (keyRemoved) notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  }
  return deleted;
}

function zcard(c: Client, argv: string[]): Reply {
  const z = readTyped(c, argv[1]!, 'zset');
  if (z === undefined) return 0;
  if (z instanceof ErrorReply) return z;
  return z.size;
}

function zscore(c: Client, argv: string[]): Reply {
  const z = readTyped(c, argv[1]!, 'zset');
  if (z === undefined) return null;
  if (z instanceof ErrorReply) return z;
  const s = z.dict.get(argv[2]!);
  return s === undefined ? null : new DoubleReply(s);
}

function zmscore(c: Client, argv: string[]): Reply {
  const z = readTyped(c, argv[1]!, 'zset');
  if (z instanceof ErrorReply) return z;
  const out: Reply[] = new Array<Reply>(argv.length - 2);
  for (let j = 2; j < argv.length; j++) {
    const s = z === undefined ? undefined : z.dict.get(argv[j]!);
    out[j - 2] = s === undefined ? null : new DoubleReply(s);
  }
  return out;
}

function rankGeneric(c: Client, argv: string[], reverse: boolean): Reply {
  const z = readTyped(c, argv[1]!, 'zset');
  if (z === undefined) return null;
  if (z instanceof ErrorReply) return z;
  const member = argv[2]!;
  const s = z.dict.get(member);
  if (s === undefined) return null;
  const r = z.list.rank(s, member);
  return reverse ? z.size - r : r - 1;
}

function zrank(c: Client, argv: string[]): Reply {
  return rankGeneric(c, argv, false);
}

function zrevrank(c: Client, argv: string[]): Reply {
  return rankGeneric(c, argv, true);
}

function zcount(c: Client, argv: string[]): Reply {
  const range = parseScoreRange(argv[2]!, argv[3]!);
  if (range === null) return NOT_FLOAT_RANGE;
  const z = readTyped(c, argv[1]!, 'zset');
  if (z === undefined) return 0;
  if (z instanceof ErrorReply) return z;
  const first = z.list.firstInRange(range);
  if (first === null) return 0;
  const last = z.list.lastInRange(range)!;
  return z.list.rank(last.score, last.member) - z.list.rank(first.score, first.member) + 1;
}

function zlexcount(c: Client, argv: string[]): Reply {
  const range = parseLexRange(argv[2]!, argv[3]!);
  if (range === null) return NOT_LEX_RANGE;
  const z = readTyped(c, argv[1]!, 'zset');
  if (z === undefined) return 0;
  if (z instanceof ErrorReply) return z;
  const first = firstInLexRange(z, range);
  if (first === null) return 0;
  if (z.encoding === 'listpack') {
    // Counted by walking on while members stay <= max.
    let count = 0;
    for (let n: ZNode | null = first; n !== null && lexLteMax(n.member, range); n = n.next[0]!) count++;
    return count;
  }
  const len = z.size;
  let count = len - (z.list.rank(first.score, first.member) - 1);
  const last = lastInLexRange(z, range);
  if (last !== null) count -= len - z.list.rank(last.score, last.member);
  return count;
}

/** ZSCAN: a listpack is returned whole with cursor 0; a skip list is scanned by a live cursor. */
function zscan(c: Client, argv: string[]): Reply {
  const cursor = parseScanCursor(argv[2]!);
  if (cursor === null) return errorReply('invalid cursor');
  const z = readTyped(c, argv[1]!, 'zset');
  if (z === undefined) return ['0', EMPTY_ARRAY];
  if (z instanceof ErrorReply) return z;
  let count = 10;
  let pattern: string | null = null;
  for (let i = 3; i < argv.length; ) {
    const o = opt(argv[i]!);
    const more = argv.length - i >= 2;
    if (o === 'count' && more) {
      const n = intArg(argv[i + 1]!);
      if (n === null) return NOT_INTEGER;
      if (n < 1) return SYNTAX_ERROR;
      count = n;
      i += 2;
    } else if (o === 'match' && more) {
      const p = argv[i + 1]!;
      pattern = p === '*' ? null : p;
      i += 2;
    } else {
      return SYNTAX_ERROR;
    }
  }
  const out: Reply[] = [];
  let next = '0';
  if (z.encoding === 'listpack') {
    for (const n of z.list) {
      if (pattern !== null && !globMatch(pattern, n.member)) continue;
      out.push(n.member, listpackScoreText(n.score));
    }
  } else {
    const dict = z.dict;
    const r = c.server.scanCursors.scan(cursor, z, () => dict.entries(), count);
    for (const [member, score] of r.items) {
      if (pattern !== null && !globMatch(pattern, member)) continue;
      out.push(member, formatDouble(score));
    }
    next = r.next.toString();
  }
  return [next, out];
}

export const sortedSetCommands: Record<string, Handler> = {
  zadd,
  zincrby,
  zrem,
  zremrangebyrank: zremrangeByRank,
  zremrangebyscore: zremrangeByScore,
  zremrangebylex: zremrangeByLex,
  zcard,
  zscore,
  zmscore,
  zrank,
  zrevrank,
  zcount,
  zlexcount,
  zscan,
  ...sortedSetRangeCommands,
  ...sortedSetPopCommands,
};
