import { SetValue, ZSetValue } from '../keyspace/values.js';
import { parseDouble } from '../numbers/double.js';
import { DoubleReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg, intArg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import { convertToListpackIfNeeded } from './sorted-set-object.js';
import type { Handler } from '../server/command-table.js';

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD
 * (zunionInterDiffGenericCommand). Inputs may be sorted sets or plain sets,
 * whose members count with score 1.
 */

const UNION = 0;
const INTER = 1;
const DIFF = 2;

const SUM = 0;
const MIN = 1;
const MAX = 2;

const WEIGHT_NOT_FLOAT = errorReply('weight value is not a float');
const LIMIT_NEGATIVE = errorReply("LIMIT can't be negative");

interface Source {
  value: ZSetValue | SetValue | null;
  weight: number;
}

function sizeOf(s: Source): number {
  return s.value === null ? 0 : s.value.type === 'zset' ? s.value.dict.size : s.value.set.size;
}

/** The score of a member in a source, or undefined when absent (zuiFind). */
function scoreIn(s: Source, member: string): number | undefined {
  const v = s.value;
  if (v === null) return undefined;
  if (v.type === 'zset') return v.dict.get(member);
  return v.set.has(member) ? 1 : undefined;
}

/**
 * Calls f for every member of a source with its score, until f returns
 * false. A sorted set is walked from its highest member down, as zuiNext does.
 */
function forEachMember(s: Source, f: (member: string, score: number) => boolean | void): void {
  const v = s.value;
  if (v === null) return;
  if (v.type === 'zset') {
    for (let n = v.list.tail; n !== null; n = n.backward) if (f(n.member, n.score) === false) return;
  } else {
    for (const m of v.set) if (f(m, 1) === false) return;
  }
}

/**
 * Folds a weighted score into an aggregate (zunionInterAggregate). A sum of
 * opposite infinities is NaN, which Redis takes as 0; MIN and MAX keep the
 * aggregate when the new value is NaN, as C's comparisons do.
 */
function aggregate(target: number, value: number, how: number): number {
  if (how === SUM) {
    const sum = target + value;
    return sum !== sum ? 0 : sum;
  }
  if (how === MIN) return value < target ? value : target;
  return value > target ? value : target;
}

function zsetOperation(c: Client, argv: string[], dest: string | null, numkeysAt: number, op: number, cardinalityOnly: boolean): Reply {
  const setnum = intArg(argv[numkeysAt]!);
  if (setnum === null) return NOT_INTEGER;
  if (setnum < 1) return errorReply(`at least 1 input key is needed for '${c.cmd!.name}' command`);
  if (setnum > argv.length - (numkeysAt + 1)) return SYNTAX_ERROR;

  // The keys are looked up before the options are read, so a wrong type
  // wins over a syntax error.
  const src: Source[] = new Array<Source>(setnum);
  let j = numkeysAt + 1;
  for (let i = 0; i < setnum; i++, j++) {
    const v = c.db.lookupRead(argv[j]!);
    if (v !== undefined && (typeof v === 'string' || (v.type !== 'zset' && v.type !== 'set'))) return WRONGTYPE;
    src[i] = { value: (v as ZSetValue | SetValue | undefined) ?? null, weight: 1 };
  }

  let how = SUM;
  let withScores = false;
  let limit = 0;
  while (j < argv.length) {
    const remaining = argv.length - j;
    const o = opt(argv[j]!);
    if (op !== DIFF && !cardinalityOnly && remaining >= setnum + 1 && o === 'weights') {
      j++;
      for (let i = 0; i < setnum; i++, j++) {
        const w = parseDouble(argv[j]!);
        if (w === null) return WEIGHT_NOT_FLOAT;
        src[i]!.weight = w;
      }
    } else if (op !== DIFF && !cardinalityOnly && remaining >= 2 && o === 'aggregate') {
      const a = opt(argv[j + 1]!);
      if (a === 'sum') how = SUM;
      else if (a === 'min') how = MIN;
      else if (a === 'max') how = MAX;
      else return SYNTAX_ERROR;
      j += 2;
    } else if (dest === null && !cardinalityOnly && o === 'withscores') {
      withScores = true;
      j++;
    } else if (cardinalityOnly && remaining >= 2 && o === 'limit') {
      const l = int64Arg(argv[j + 1]!);
      if (l === null || l < 0) return LIMIT_NEGATIVE;
      limit = typeof l === 'bigint' ? Number.MAX_SAFE_INTEGER : l;
      j += 2;
    } else {
      return SYNTAX_ERROR;
    }
  }

  // Smallest inputs first (a stable sort, as glibc's qsort is for these sizes).
  if (op !== DIFF) src.sort((a, b) => sizeOf(a) - sizeOf(b));

  if (cardinalityOnly) return interCard(src, limit);

  const result = new ZSetValue('skiplist');
  let maxMemberBytes = 0;
  const add = (member: string, score: number): void => {
    result.set(member, score);
    if (member.length > maxMemberBytes) maxMemberBytes = member.length;
  };
  if (op === INTER) inter(src, how, add);
  else if (op === UNION) union(src, how, add);
  else diff(src, add);

  if (dest !== null) return store(c, dest, result, maxMemberBytes, STORE_EVENTS[op]!);
  const nested = withScores && c.resp === 3;
  const out: Reply[] = [];
  for (let n = result.list.first(); n !== null; n = n.next[0]!) {
    if (!withScores) out.push(n.member);
    else if (nested) out.push([n.member, new DoubleReply(n.score)]);
    else out.push(n.member, new DoubleReply(n.score));
  }
  return out;
}

function inter(src: Source[], how: number, add: (member: string, score: number) => void): void {
  const first = src[0]!;
  if (sizeOf(first) === 0) return;
  forEachMember(first, (member, s) => {
    let score = first.weight * s;
    if (score !== score) score = 0;
    for (let j = 1; j < src.length; j++) {
      const other = src[j]!;
      const found = other.value === first.value ? s : scoreIn(other, member);
      if (found === undefined) return;
      score = aggregate(score, found * other.weight, how);
    }
    add(member, score);
  });
}

function interCard(src: Source[], limit: number): Reply {
  const first = src[0]!;
  let count = 0;
  if (sizeOf(first) === 0) return 0;
  forEachMember(first, (member) => {
    for (let j = 1; j < src.length; j++) {
      const other = src[j]!;
      if (other.value !== first.value && scoreIn(other, member) === undefined) return true;
    }
    count++;
    return !(limit && count >= limit);
  });
  return count;
}

function union(src: Source[], how: number, add: (member: string, score: number) => void): void {
  const acc = new Map<string, number>();
  for (const s of src) {
    forEachMember(s, (member, score) => {
      let w = s.weight * score;
      if (w !== w) w = 0;
      const cur = acc.get(member);
      acc.set(member, cur === undefined ? w : aggregate(cur, w, how));
    });
  }
  for (const [member, score] of acc) add(member, score);
}

/** The members of the first input found in no other, with their own scores. */
function diff(src: Source[], add: (member: string, score: number) => void): void {
  const first = src[0]!;
  if (sizeOf(first) === 0) return;
  for (let j = 1; j < src.length; j++) if (src[j]!.value === first.value) return;
  forEachMember(first, (member, score) => {
    for (let j = 1; j < src.length; j++) if (scoreIn(src[j]!, member) !== undefined) return;
    add(member, score);
  });
}

/** The keyspace event of each STORE form, by operation. */
const STORE_EVENTS = ['zunionstore', 'zinterstore', 'zdiffstore'];

/** Stores a result, or deletes the destination when it is empty. */
function store(c: Client, dest: string, result: ZSetValue, maxMemberBytes: number, event: string): Reply {
  if (result.size !== 0) {
    convertToListpackIfNeeded(c, result, maxMemberBytes);
    c.db.lookupWrite(dest);
    c.db.setKey(dest, result);
    notifyKeyspaceEvent(c.server, NOTIFY.ZSET, event, dest, c.db.id);
    c.server.dirty++;
    return result.size;
  }
  if (c.db.delete(dest)) {
    c.server.keyModified(c.db, dest);
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', dest, c.db.id);
    c.server.dirty++;
  }
  return 0;
}

export const sortedSetSetOpCommands: Record<string, Handler> = {
  zunion: (c, argv) => zsetOperation(c, argv, null, 1, UNION, false),
  zinter: (c, argv) => zsetOperation(c, argv, null, 1, INTER, false),
  zdiff: (c, argv) => zsetOperation(c, argv, null, 1, DIFF, false),
  zunionstore: (c, argv) => zsetOperation(c, argv, argv[1]!, 2, UNION, false),
  zinterstore: (c, argv) => zsetOperation(c, argv, argv[1]!, 2, INTER, false),
  zdiffstore: (c, argv) => zsetOperation(c, argv, argv[1]!, 2, DIFF, false),
  zintercard: (c, argv) => zsetOperation(c, argv, null, 1, INTER, true),
};
