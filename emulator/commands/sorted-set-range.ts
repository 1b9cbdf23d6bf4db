import { lexGteMin, lexLteMax, scoreGteMin, scoreLteMax, type LexRange, type ScoreRange, type ZNode } from '../keyspace/skiplist.js';
import { ZSetValue } from '../keyspace/values.js';
import { DoubleReply, EMPTY_ARRAY, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { intArg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import { zsetAdd } from './sorted-set-object.js';
import { NOT_FLOAT_RANGE, NOT_LEX_RANGE, firstInLexRange, lastInLexRange, parseLexRange, parseScoreRange } from './sorted-set-ranges.js';
import type { Handler } from '../server/command-table.js';

/**
 * ZRANGE and ZRANGESTORE with every form, and the older ZREVRANGE,
 * Z[REV]RANGEBYSCORE and Z[REV]RANGEBYLEX (zrangeGenericCommand).
 */

const LIMIT_NEEDS_BY = errorReply('syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX');
const WITHSCORES_BYLEX = errorReply('syntax error, WITHSCORES not supported in combination with BYLEX');

const RANK = 1;
const SCORE = 2;
const LEX = 3;

/** Where a range goes: a reply to the client, or a destination key. */
interface RangeSink {
  /** The number of items to come, or -1 when not known in advance. */
  begin(length: number): void;
  emit(member: string, score: number): void;
  finish(count: number): Reply;
}

/** Replies with the members, and scores when asked: flat in RESP2, [member, score] pairs in RESP3. */
class ReplySink implements RangeSink {
  private out: Reply[] = [];
  constructor(
    private readonly withScores: boolean,
    private readonly nested: boolean,
  ) {}

  begin(): void {}

  emit(member: string, score: number): void {
    if (!this.withScores) this.out.push(member);
    else if (this.nested) this.out.push([member, new DoubleReply(score)]);
    else this.out.push(member, new DoubleReply(score));
  }

  finish(): Reply {
    return this.out;
  }
}

/**
 * Builds the destination of ZRANGESTORE: a listpack unless more items than
 * zset-max-listpack-entries are known to come, then added one by one as ZADD
 * would, and stored (or the destination deleted when the range is empty).
 */
class StoreSink implements RangeSink {
  private dest: ZSetValue | null = null;
  constructor(
    private readonly c: Client,
    private readonly key: string,
  ) {}

  begin(length: number): void {
    const big = length > this.c.server.config.getNumber('zset-max-listpack-entries');
    this.dest = new ZSetValue(big ? 'skiplist' : 'listpack');
  }

  emit(member: string, score: number): void {
    zsetAdd(this.c, this.dest!, score, member, 0);
  }

  finish(count: number): Reply {
    const c = this.c;
    if (count) {
      c.db.lookupWrite(this.key);
      c.db.setKey(this.key, this.dest!);
      notifyKeyspaceEvent(c.server, NOTIFY.ZSET, 'zrangestore', this.key, c.db.id);
      c.server.dirty++;
      return count;
    }
    if (c.db.delete(this.key)) {
      c.server.keyModified(c.db, this.key);
      notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', this.key, c.db.id);
      c.server.dirty++;
    }
    return 0;
  }
}

function rangeByRank(sink: RangeSink, z: ZSetValue, s: number, e: number, reverse: boolean): Reply {
  const llen = z.size;
  let start = s < 0 ? llen + s : s;
  let end = e < 0 ? llen + e : e;
  if (start < 0) start = 0;
  if (start > end || start >= llen) {
    sink.begin(0);
    return sink.finish(0);
  }
  if (end >= llen) end = llen - 1;
  const count = end - start + 1;
  sink.begin(count);
  let n: ZNode | null;
  if (reverse) n = start > 0 ? z.list.byRank(llen - start) : z.list.tail;
  else n = start > 0 ? z.list.byRank(start + 1) : z.list.first();
  for (let i = 0; i < count; i++) {
    sink.emit(n!.member, n!.score);
    n = reverse ? n!.backward : n!.next[0]!;
  }
  return sink.finish(count);
}

/**
 * The node `offset` steps after (or before, in reverse) n. Redis walks
 * there; the rank gets there in O(log n). A negative offset walks off the
 * end, as the C loop does.
 */
function skip(z: ZSetValue, n: ZNode | null, offset: number, reverse: boolean): ZNode | null {
  if (n === null || offset === 0) return n;
  if (offset < 0) return null;
  const r = z.list.rank(n.score, n.member);
  return z.list.byRank(reverse ? r - offset : r + offset);
}

function rangeByScore(sink: RangeSink, z: ZSetValue, range: ScoreRange, offset: number, limit: number, reverse: boolean): Reply {
  sink.begin(-1);
  if (offset > 0 && offset >= z.size) return sink.finish(0);
  let n = skip(z, reverse ? z.list.lastInRange(range) : z.list.firstInRange(range), offset, reverse);
  let count = 0;
  // A negative limit never counts down to zero: no limit.
  for (let left = limit; n !== null && left !== 0; left--) {
    if (reverse ? !scoreGteMin(n.score, range) : !scoreLteMax(n.score, range)) break;
    sink.emit(n.member, n.score);
    count++;
    n = reverse ? n.backward : n.next[0]!;
  }
  return sink.finish(count);
}

function rangeByLex(sink: RangeSink, z: ZSetValue, range: LexRange, offset: number, limit: number, reverse: boolean): Reply {
  sink.begin(-1);
  let n = skip(z, reverse ? lastInLexRange(z, range) : firstInLexRange(z, range), offset, reverse);
  let count = 0;
  for (let left = limit; n !== null && left !== 0; left--) {
    if (reverse ? !lexGteMin(n.member, range) : !lexLteMax(n.member, range)) break;
    sink.emit(n.member, n.score);
    count++;
    n = reverse ? n.backward : n.next[0]!;
  }
  return sink.finish(count);
}

/**
 * The common body: `at` is the index of the source key; `type` and
 * `reverse` are fixed by the older commands and chosen by options in ZRANGE
 * and ZRANGESTORE (type 0, reverse null).
 */
function zrangeGeneric(c: Client, argv: string[], at: number, dest: string | null, fixedType: number, fixedReverse: boolean | null): Reply {
  let type = fixedType;
  let reverse = fixedReverse;
  let withScores = false;
  let offset = 0;
  let limit = -1;
  for (let j = at + 3; j < argv.length; j++) {
    const o = opt(argv[j]!);
    const left = argv.length - j - 1;
    if (dest === null && o === 'withscores') {
      withScores = true;
    } else if (o === 'limit' && left >= 2) {
      const off = intArg(argv[j + 1]!);
      if (off === null) return NOT_INTEGER;
      const lim = intArg(argv[j + 2]!);
      if (lim === null) return NOT_INTEGER;
      offset = off;
      limit = lim;
      j += 2;
    } else if (fixedReverse === null && reverse === null && o === 'rev') {
      reverse = true;
    } else if (type === 0 && o === 'bylex') {
      type = LEX;
    } else if (type === 0 && o === 'byscore') {
      type = SCORE;
    } else {
      return SYNTAX_ERROR;
    }
  }
  if (type === 0) type = RANK;
  const rev = reverse === true;
  if (limit !== -1 && type === RANK) return LIMIT_NEEDS_BY;
  if (withScores && type === LEX) return WITHSCORES_BYLEX;

  // Score and lex ranges are given as max, min in reverse.
  const minArg = argv[rev && type !== RANK ? at + 2 : at + 1]!;
  const maxArg = argv[rev && type !== RANK ? at + 1 : at + 2]!;
  let start = 0;
  let end = 0;
  let scoreRange: ScoreRange | null = null;
  let lexRange: LexRange | null = null;
  if (type === RANK) {
    const s = intArg(minArg);
    if (s === null) return NOT_INTEGER;
    const e = intArg(maxArg);
    if (e === null) return NOT_INTEGER;
    start = s;
    end = e;
  } else if (type === SCORE) {
    scoreRange = parseScoreRange(minArg, maxArg);
    if (scoreRange === null) return NOT_FLOAT_RANGE;
  } else {
    lexRange = parseLexRange(minArg, maxArg);
    if (lexRange === null) return NOT_LEX_RANGE;
  }

  const sink: RangeSink = dest !== null ? new StoreSink(c, dest) : new ReplySink(withScores, c.resp === 3);
  const v = c.db.lookupRead(argv[at]!);
  if (v === undefined) {
    if (dest === null) return EMPTY_ARRAY;
    sink.begin(-1);
    return sink.finish(0);
  }
  if (typeof v === 'string' || v.type !== 'zset') return WRONGTYPE;
  if (type === RANK) return rangeByRank(sink, v, start, end, rev);
  if (type === SCORE) return rangeByScore(sink, v, scoreRange!, offset, limit, rev);
  return rangeByLex(sink, v, lexRange!, offset, limit, rev);
}

export const sortedSetRangeCommands: Record<string, Handler> = {
  zrange: (c, argv) => zrangeGeneric(c, argv, 1, null, 0, null),
  zrangestore: (c, argv) => zrangeGeneric(c, argv, 2, argv[1]!, 0, null),
  zrevrange: (c, argv) => zrangeGeneric(c, argv, 1, null, RANK, true),
  zrangebyscore: (c, argv) => zrangeGeneric(c, argv, 1, null, SCORE, false),
  zrevrangebyscore: (c, argv) => zrangeGeneric(c, argv, 1, null, SCORE, true),
  zrangebylex: (c, argv) => zrangeGeneric(c, argv, 1, null, LEX, false),
  zrevrangebylex: (c, argv) => zrangeGeneric(c, argv, 1, null, LEX, true),
};
