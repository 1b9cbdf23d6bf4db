import type { ZSetValue } from '../keyspace/values.js';
import { DoubleReply, EMPTY_ARRAY, NULL_ARRAY, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { int64Arg, opt } from './args.js';
import { SYNTAX_ERROR, WRONGTYPE } from './errors.js';
import type { Handler } from './table.js';

/**
 * ZPOPMIN, ZPOPMAX and ZMPOP (genericZpopCommand). The blocking forms
 * (BZPOPMIN, BZPOPMAX, BZMPOP) need the server to park clients and are not
 * here.
 */

const MUST_BE_POSITIVE = errorReply('value is out of range, must be positive');
const NUMKEYS = errorReply('numkeys should be greater than 0');
const COUNT = errorReply('count should be greater than 0');

/**
 * Pops up to `count` members (-1: one, with the single-pop reply) from the
 * first existing key. `nested` gives [member, score] pairs; `emitKey`
 * wraps them as [key, pairs] (ZMPOP); `nullWhenEmpty` answers a null array
 * when no key exists.
 */
function popGeneric(c: Client, keys: string[], max: boolean, count: number, nested: boolean, emitKey: boolean, nullWhenEmpty: boolean): Reply {
  let key = '';
  let z: ZSetValue | undefined;
  for (const k of keys) {
    const v = c.db.lookupWrite(k);
    if (v === undefined) continue;
    if (typeof v === 'string' || v.type !== 'zset') return WRONGTYPE;
    key = k;
    z = v;
    break;
  }
  if (z === undefined) return nullWhenEmpty ? NULL_ARRAY : EMPTY_ARRAY;
  if (count === 0) return EMPTY_ARRAY;
  const n = Math.min(count === -1 ? 1 : count, z.size);
  const out: Reply[] = [];
  for (let i = 0; i < n; i++) {
    const node = max ? z.list.tail! : z.list.first()!;
    const member = node.member;
    const score = node.score;
    z.delete(member);
    if (nested) out.push([member, new DoubleReply(score)]);
    else out.push(member, new DoubleReply(score));
  }
  c.server.dirty += n;
  c.server.keyModified(c.db, key);
  if (z.size === 0) c.db.delete(key);
  if (emitKey) {
    // ZMPOP goes to replicas and the AOF as the ZPOPMIN/ZPOPMAX it amounts to.
    c.propagateArgv = [max ? 'ZPOPMAX' : 'ZPOPMIN', key, String(n)];
    return [key, out];
  }
  return out;
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
  return popGeneric(c, [argv[1]!], max, count, c.resp === 3 && count !== -1, false, false);
}

function zmpop(c: Client, argv: string[]): Reply {
  const nk = int64Arg(argv[1]!);
  if (nk === null || nk < 1) return NUMKEYS;
  const numkeys = typeof nk === 'bigint' ? Number.MAX_SAFE_INTEGER : nk;
  const whereAt = 1 + numkeys + 1;
  if (whereAt >= argv.length) return SYNTAX_ERROR;
  const where = opt(argv[whereAt]!);
  if (where !== 'min' && where !== 'max') return SYNTAX_ERROR;
  let count = -1;
  for (let j = whereAt + 1; j < argv.length; j++) {
    if (count === -1 && opt(argv[j]!) === 'count' && j < argv.length - 1) {
      j++;
      const n = int64Arg(argv[j]!);
      if (n === null || n < 1) return COUNT;
      count = typeof n === 'bigint' ? Number.MAX_SAFE_INTEGER : n;
    } else {
      return SYNTAX_ERROR;
    }
  }
  if (count === -1) count = 1;
  return popGeneric(c, argv.slice(2, whereAt), where === 'max', count, true, true, true);
}

export const sortedSetPopCommands: Record<string, Handler> = {
  zpopmin: (c, argv) => zpopMinMax(c, argv, false),
  zpopmax: (c, argv) => zpopMinMax(c, argv, true),
  zmpop,
};
