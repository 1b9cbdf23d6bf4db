import { ErrorReply, NULL_ARRAY, type Reply } from '../resp/reply.js';
import { BLOCKED, type ServeBlocked } from '../server/blocking.js';
import type { Client } from '../server/client.js';
import { parseBlockTimeout } from './blocking-timeout.js';
import { WRONGTYPE } from '../server/errors.js';
import { zpop } from './sorted-set-pop.js';
import type { Handler } from '../server/command-table.js';
import { isMpopArgs, parseMpopArgs, zsetEnd } from './mpop-args.js';

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP (src/t_zset.c blockingGenericZpopCommand):
 * with members at hand they pop like ZPOPMIN/ZPOPMAX and propagate as
 * them; with none they park the client until a sorted set is created under
 * one of the keys, or the timeout passes.
 */

function popArgv(max: boolean, key: string, count: number, popped: number): string[] {
  const name = max ? 'ZPOPMAX' : 'ZPOPMIN';
  return count === -1 ? [name, key] : [name, key, String(popped)];
}

/** Serving a parked client (serveClientsBlockedOnSortedSetKey). */
function servePop(max: boolean, count: number, nested: boolean): ServeBlocked {
  return (c, key) => {
    const r = zpop(c, [key], max, count, nested, true, nested);
    c.server.propagate(c.db.id, popArgv(max, key, count, r.popped));
    return { reply: r.reply, deleted: r.deleted };
  };
}

function blockingZpop(c: Client, keys: string[], max: boolean, timeoutArg: string, count: number, nested: boolean): Reply {
  const timeout = parseBlockTimeout(c, timeoutArg);
  if (timeout instanceof ErrorReply) return timeout;
  for (const key of keys) {
    const v = c.db.lookupWrite(key);
    if (v === undefined) continue;
    if (typeof v === 'string' || v.type !== 'zset') return WRONGTYPE;
    const r = zpop(c, [key], max, count, nested, true, nested);
    c.propagateArgv = popArgv(max, key, count, r.popped);
    return r.reply;
  }
  if (c.inExec) return NULL_ARRAY;
  c.server.blocking.block(c, { kind: 'zset', keys, timeoutMs: timeout, serve: servePop(max, count, nested) });
  return BLOCKED;
}

/** BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count] */
function bzmpop(c: Client, argv: string[]): Reply {
  const args = parseMpopArgs(argv, 2, zsetEnd);
  if (!isMpopArgs(args)) return args;
  return blockingZpop(c, args.keys, args.where, argv[1]!, args.count, true);
}

export const sortedSetBlockingCommands: Record<string, Handler> = {
  bzpopmin: (c, argv) => blockingZpop(c, argv.slice(1, -1), false, argv[argv.length - 1]!, -1, false),
  bzpopmax: (c, argv) => blockingZpop(c, argv.slice(1, -1), true, argv[argv.length - 1]!, -1, false),
  bzmpop,
};
