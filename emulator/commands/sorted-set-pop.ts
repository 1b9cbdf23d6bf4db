import type { ZSetValue } from '../keyspace/values.js';
import { DoubleReply, EMPTY_ARRAY, NULL_ARRAY, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg } from './args.js';
import { SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import type { Handler } from '../server/command-table.js';
import { isMpopArgs, parseMpopArgs, zsetEnd } from './mpop-args.js';

/**
 * ZPOPMIN, ZPOPMAX and ZMPOP (genericZpopCommand). The blocking forms are
 * in sorted-set-blocking.ts.
 */

const MUST_BE_POSITIVE = errorReply('value is out of range, must be positive');

/** What a pop did, for the callers that propagate or serve blocked clients. */
export interface ZPopResult {
  reply: Reply;
  /** The key popped from, or '' when none existed. */
  key: string;
  /** How many members left. */
  popped: number;
  /** Whether the sorted set was emptied and its key deleted. */
  deleted: boolean;
}

/**
 * Pops up to `count` members (-1: one, with the single-pop reply) from the
 * first existing key (genericZpopCommand). `nested` gives [member, score]
 * pairs; `emitKey` puts the key first: [key, member, score, ...] flat, or
 * [key, pairs] nested; `nullWhenEmpty` answers a null array when no key
 * exists.
 */
export function zpop(c: Client, keys: string[], max: boolean, count: number, nested: boolean, emitKey: boolean, nullWhenEmpty: boolean): ZPopResult {
  let key = '';
  let z: ZSetValue | undefined;
  for (const k of keys) {
    const v = c.db.lookupWrite(k);
    if (v === undefined) continue;
    if (typeof v === 'string' || v.type !== 'zset') return { reply: WRONGTYPE, key: '', popped: 0, deleted: false };
    key = k;
    z = v;
    break;
  }
  if (z === undefined) return { reply: nullWhenEmpty ? NULL_ARRAY : EMPTY_ARRAY, key: '', popped: 0, deleted: false };
  if (count === 0) return { reply: EMPTY_ARRAY, key, popped: 0, deleted: false };
  const n = Math.min(count === -1 ? 1 : count, z.size);
  const out: Reply[] = emitKey && !nested ? [key] : [];
  for (let i = 0; i < n; i++) {
    const node = max ? z.list.tail! : z.list.first()!;
    const member = node.member;
    const score = node.score;
    z.delete(member);
    if (nested) out.push([member, new DoubleReply(score)]);
    else out.push(member, new DoubleReply(score));
  }
  c.server.dirty += n;
  notifyKeyspaceEvent(c.server, NOTIFY.ZSET, max ? 'zpopmax' : 'zpopmin', key, c.db.id);
  c.server.keyModified(c.db, key);
  const deleted = z.size === 0;
  if (deleted) {
    c.db.delete(key);
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  }
  return { reply: emitKey && nested ? [key, out] : out, key, popped: n, deleted };
}

function zpopMinMax(c: Client, argv: string[], max: boolean): Reply {
  if (argv.length > 3) return SYNTAX_ERROR;
  let count = -1;
  if (argv.length === 3) {
    const n = int64Arg(argv[2]!);
    if (n === null || n < 0) return MUST_BE_POSITIVE;
    count = typeof n === 'bigint' ? Number.MAX_SAFE_INTEGER : n;
  }
  // RESP3 nests the pairs only when a count was given.
  return zpop(c, [argv[1]!], max, count, c.resp === 3 && count !== -1, false, false).reply;
}

function zmpop(c: Client, argv: string[]): Reply {
  const args = parseMpopArgs(argv, 1, zsetEnd);
  if (!isMpopArgs(args)) return args;
  const max = args.where;
  const r = zpop(c, args.keys, max, args.count, true, true, true);
  // ZMPOP goes to replicas and the AOF as the ZPOPMIN/ZPOPMAX it amounts to.
  if (r.popped !== 0) c.propagateArgv = [max ? 'ZPOPMAX' : 'ZPOPMIN', r.key, String(r.popped)];
  return r.reply;
}

export const sortedSetPopCommands: Record<string, Handler> = {
  zpopmin: (c, argv) => zpopMinMax(c, argv, false),
  zpopmax: (c, argv) => zpopMinMax(c, argv, true),
  zmpop,
};
