import { ListValue } from '../keyspace/values.js';
import { ErrorReply, NULL_ARRAY, type Reply } from '../resp/reply.js';
import { BLOCKED, type ServeBlocked } from '../server/blocking.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { parseBlockTimeout } from './blocking-timeout.js';
import { SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import { elementsRemoved, listEnd, moveGeneric, popElements, popEvent, pushEvent } from './list.js';
import type { Handler } from '../server/command-table.js';
import { isMpopArgs, parseMpopArgs } from './mpop-args.js';

/**
 * BLPOP, BRPOP, BLMPOP, BLMOVE and BRPOPLPUSH (src/t_list.c). With data at
 * hand they behave as their non-blocking forms and propagate as them; with
 * none they park the client (server/blocking.ts) until a push creates one
 * of the keys, or the timeout passes. Inside MULTI they never block: no data
 * answers like a timeout.
 */

function end(head: boolean): string {
  return head ? 'LEFT' : 'RIGHT';
}

/**
 * Serving a client parked in BLPOP/BRPOP/BLMPOP (serveClientBlockedOnList):
 * the pop is propagated as LPOP/RPOP; a BLMPOP pop counts as a change and
 * signals the key, a plain one does neither, as in Redis.
 */
function servePop(head: boolean, count: number): ServeBlocked {
  return (c, key, value) => {
    const list = value as ListValue;
    if (count !== -1) {
      const n = Math.min(count, list.items.length);
      c.server.propagate(c.db.id, [head ? 'LPOP' : 'RPOP', key, String(n)]);
      const popped = popElements(list.items, head, n);
      const deleted = list.items.length === 0;
      elementsRemoved(c, key, list, popped.length, popEvent(head));
      return { reply: [key, popped], deleted };
    }
    c.server.propagate(c.db.id, [head ? 'LPOP' : 'RPOP', key]);
    const element = head ? list.items.popHead()! : list.items.popTail()!;
    notifyKeyspaceEvent(c.server, NOTIFY.LIST, popEvent(head), key, c.db.id);
    const deleted = list.items.length === 0;
    if (deleted) deleteServedList(c, key);
    return { reply: [key, element], deleted };
  };
}

/** A list emptied by serving a blocked client goes, unsignalled: its push signalled it. */
function deleteServedList(c: Client, key: string): void {
  c.db.delete(key);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
}

/** The common body of BLPOP, BRPOP and BLMPOP (blockingPopGenericCommand). */
function blockingPop(c: Client, keys: string[], head: boolean, timeoutArg: string, count: number): Reply {
  const timeout = parseBlockTimeout(c, timeoutArg);
  if (timeout instanceof ErrorReply) return timeout;
  for (const key of keys) {
    const v = c.db.lookupWrite(key);
    if (v === undefined) continue;
    if (typeof v === 'string' || v.type !== 'list') return WRONGTYPE;
    const list = v;
    if (count !== -1) {
      const popped = popElements(list.items, head, count);
      elementsRemoved(c, key, list, popped.length, popEvent(head));
      c.propagateArgv = [head ? 'LPOP' : 'RPOP', key, String(popped.length)];
      return [key, popped];
    }
    const element = head ? list.items.popHead()! : list.items.popTail()!;
    elementsRemoved(c, key, list, 1, popEvent(head));
    c.propagateArgv = [head ? 'LPOP' : 'RPOP', key];
    return [key, element];
  }
  if (c.inExec) return NULL_ARRAY;
  c.server.blocking.block(c, { kind: 'list', keys, timeoutMs: timeout, serve: servePop(head, count) });
  return BLOCKED;
}

function blpop(c: Client, argv: string[]): Reply {
  return blockingPop(c, argv.slice(1, -1), true, argv[argv.length - 1]!, -1);
}

function brpop(c: Client, argv: string[]): Reply {
  return blockingPop(c, argv.slice(1, -1), false, argv[argv.length - 1]!, -1);
}

/** BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count] */
function blmpop(c: Client, argv: string[]): Reply {
  const args = parseMpopArgs(argv, 2, listEnd);
  if (!isMpopArgs(args)) return args;
  return blockingPop(c, args.keys, args.where, argv[1]!, args.count);
}

/**
 * Serving a client parked in BLMOVE/BRPOPLPUSH: a destination of the wrong
 * type answers WRONGTYPE and leaves the source alone; otherwise the element
 * moves (the destination is signalled, no change is counted) and the move
 * is propagated as LMOVE or RPOPLPUSH.
 */
function serveMove(destination: string, fromHead: boolean, toHead: boolean, asRpoplpush: boolean): ServeBlocked {
  return (c, key, value) => {
    const src = value as ListValue;
    let dst = c.db.lookupWrite(destination);
    if (dst !== undefined && (typeof dst === 'string' || dst.type !== 'list')) return { reply: WRONGTYPE, deleted: false };
    const element = fromHead ? src.items.popHead()! : src.items.popTail()!;
    if (dst === undefined) {
      dst = new ListValue();
      c.db.add(destination, dst);
    }
    c.server.keyModified(c.db, destination);
    if (toHead) dst.items.pushHead(element);
    else dst.items.pushTail(element);
    notifyKeyspaceEvent(c.server, NOTIFY.LIST, pushEvent(toHead), destination, c.db.id);
    c.server.propagate(c.db.id, asRpoplpush ? ['RPOPLPUSH', key, destination] : ['LMOVE', key, destination, end(fromHead), end(toHead)]);
    notifyKeyspaceEvent(c.server, NOTIFY.LIST, popEvent(fromHead), key, c.db.id);
    const deleted = src.items.length === 0;
    if (deleted) deleteServedList(c, key);
    return { reply: element, deleted };
  };
}

/** The common body of BLMOVE and BRPOPLPUSH (blmoveGenericCommand). */
function blockingMove(c: Client, source: string, destination: string, fromHead: boolean, toHead: boolean, timeout: number, asRpoplpush: boolean): Reply {
  const v = c.db.lookupWrite(source);
  if (v !== undefined && (typeof v === 'string' || v.type !== 'list')) return WRONGTYPE;
  if (v === undefined) {
    if (c.inExec) return null;
    c.server.blocking.block(c, { kind: 'list', keys: [source], timeoutMs: timeout, serve: serveMove(destination, fromHead, toHead, asRpoplpush) });
    return BLOCKED;
  }
  const reply = moveGeneric(c, source, destination, fromHead, toHead);
  if (!(reply instanceof ErrorReply)) {
    c.propagateArgv = asRpoplpush ? ['RPOPLPUSH', source, destination] : ['LMOVE', source, destination, end(fromHead), end(toHead)];
  }
  return reply;
}

function blmove(c: Client, argv: string[]): Reply {
  const from = listEnd(argv[3]!);
  if (from === null) return SYNTAX_ERROR;
  const to = listEnd(argv[4]!);
  if (to === null) return SYNTAX_ERROR;
  const timeout = parseBlockTimeout(c, argv[5]!);
  if (timeout instanceof ErrorReply) return timeout;
  return blockingMove(c, argv[1]!, argv[2]!, from, to, timeout, false);
}

function brpoplpush(c: Client, argv: string[]): Reply {
  const timeout = parseBlockTimeout(c, argv[3]!);
  if (timeout instanceof ErrorReply) return timeout;
  return blockingMove(c, argv[1]!, argv[2]!, false, true, timeout, true);
}

export const listBlockingCommands: Record<string, Handler> = {
  blpop,
  brpop,
  blmpop,
  blmove,
  brpoplpush,
};
