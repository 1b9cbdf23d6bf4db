import { ListValue } from '../keyspace/values.js';
import type { Deque } from '../keyspace/deque.js';
import { EMPTY_ARRAY, ErrorReply, NULL_ARRAY, OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg, intArg, opt } from './args.js';
import { NOT_INTEGER, NO_SUCH_KEY, OUT_OF_RANGE, SYNTAX_ERROR } from '../server/errors.js';
import { modified, readTyped, writeTyped } from './lookup.js';
import { positiveLongArg } from './list-args.js';
import type { Handler } from '../server/command-table.js';
import { isMpopArgs, parseMpopArgs } from './mpop-args.js';

/**
 * The list commands (src/t_list.c), except the blocking ones. A list is a
 * Deque of byte strings; Redis 7.0 always reports its encoding as quicklist.
 *
 * Every write follows Redis's bookkeeping: `dirty` grows by the number of
 * elements pushed or removed, the key is signalled for WATCH, and a list
 * that becomes empty is deleted.
 */

const MUST_BE_POSITIVE = 'value is out of range, must be positive';

/**
 * Bookkeeping after elements left a list (listElementsRemoved): the
 * command's event ("lpop", "rpop", "ltrim", "lrem"), then an emptied list
 * loses its key ("del"), the key is signalled, and `changes` counts as dirty.
 */
export function elementsRemoved(c: Client, key: string, list: ListValue, changes: number, event: string): void {
  notifyKeyspaceEvent(c.server, NOTIFY.LIST, event, key, c.db.id);
  if (list.items.length === 0) {
    c.db.delete(key);
    notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  }
  modified(c, key, changes);
}

/** The event of a pop from one end. */
export function popEvent(head: boolean): string {
  return head ? 'lpop' : 'rpop';
}

/** The event of a push to one end. */
export function pushEvent(head: boolean): string {
  return head ? 'lpush' : 'rpush';
}

/** LPUSH, RPUSH, LPUSHX, RPUSHX (pushGenericCommand). */
function pushGeneric(c: Client, argv: string[], head: boolean, onlyIfExists: boolean): Reply {
  const key = argv[1]!;
  let list = writeTyped(c, key, 'list');
  if (list instanceof ErrorReply) return list;
  if (list === undefined) {
    if (onlyIfExists) return 0;
    list = new ListValue();
    c.db.add(key, list);
  }
  const items = list.items;
  for (let j = 2; j < argv.length; j++) {
    if (head) items.pushHead(argv[j]!);
    else items.pushTail(argv[j]!);
  }
  modified(c, key, argv.length - 2);
  notifyKeyspaceEvent(c.server, NOTIFY.LIST, pushEvent(head), key, c.db.id);
  return items.length;
}

/** Pops up to `count` elements from one end, in the order they leave the list. */
export function popElements(items: Deque<string>, head: boolean, count: number): string[] {
  const n = Math.min(count, items.length);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = (head ? items.popHead() : items.popTail())!;
  return out;
}

/** LPOP and RPOP with an optional count (popGenericCommand). */
function popGeneric(c: Client, argv: string[], head: boolean): Reply {
  if (argv.length > 3) return errorReply(`wrong number of arguments for '${c.cmd!.name}' command`);
  const hasCount = argv.length === 3;
  let count = 0;
  if (hasCount) {
    const n = positiveLongArg(argv[2]!);
    if (n === null) return errorReply(MUST_BE_POSITIVE);
    count = n;
  }
  const key = argv[1]!;
  const list = writeTyped(c, key, 'list');
  if (list === undefined) return hasCount ? NULL_ARRAY : null;
  if (list instanceof ErrorReply) return list;
  if (hasCount && count === 0) return EMPTY_ARRAY;
  if (!hasCount) {
    const value = head ? list.items.popHead()! : list.items.popTail()!;
    elementsRemoved(c, key, list, 1, popEvent(head));
    return value;
  }
  const popped = popElements(list.items, head, count);
  elementsRemoved(c, key, list, popped.length, popEvent(head));
  return popped;
}

function llen(c: Client, argv: string[]): Reply {
  const list = readTyped(c, argv[1]!, 'list');
  if (list === undefined) return 0;
  if (list instanceof ErrorReply) return list;
  return list.items.length;
}

/**
 * The elements between the inclusive indexes start and end, negative ones
 * counting from the tail, clamped to the list (addListRangeReply).
 */
function rangeOf(items: Deque<string>, start: number, end: number): Reply[] {
  const len = items.length;
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (start > end || start >= len) return EMPTY_ARRAY;
  if (end >= len) end = len - 1;
  return items.slice(start, end + 1);
}

function lrange(c: Client, argv: string[]): Reply {
  const start = intArg(argv[2]!);
  const end = intArg(argv[3]!);
  if (start === null || end === null) return NOT_INTEGER;
  const list = readTyped(c, argv[1]!, 'list');
  if (list === undefined) return EMPTY_ARRAY;
  if (list instanceof ErrorReply) return list;
  return rangeOf(list.items, start, end);
}

/** A list index, negative ones counting from the tail; -1 when out of range. */
function resolveIndex(items: Deque<string>, index: number): number {
  const i = index < 0 ? items.length + index : index;
  return i >= 0 && i < items.length ? i : -1;
}

function lindex(c: Client, argv: string[]): Reply {
  // The key is looked up before the index is parsed.
  const list = readTyped(c, argv[1]!, 'list');
  if (list === undefined) return null;
  if (list instanceof ErrorReply) return list;
  const index = intArg(argv[2]!);
  if (index === null) return NOT_INTEGER;
  const i = resolveIndex(list.items, index);
  return i < 0 ? null : list.items.get(i);
}

function lset(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const list = writeTyped(c, key, 'list');
  if (list === undefined) return NO_SUCH_KEY;
  if (list instanceof ErrorReply) return list;
  const index = intArg(argv[2]!);
  if (index === null) return NOT_INTEGER;
  const i = resolveIndex(list.items, index);
  if (i < 0) return OUT_OF_RANGE;
  list.items.set(i, argv[3]!);
  modified(c, key, 1);
  notifyKeyspaceEvent(c.server, NOTIFY.LIST, 'lset', key, c.db.id);
  return OK;
}

function linsert(c: Client, argv: string[]): Reply {
  const where = opt(argv[2]!);
  if (where !== 'after' && where !== 'before') return SYNTAX_ERROR;
  const key = argv[1]!;
  const list = writeTyped(c, key, 'list');
  if (list === undefined) return 0;
  if (list instanceof ErrorReply) return list;
  const items = list.items;
  const pivot = argv[3]!;
  const n = items.length;
  for (let i = 0; i < n; i++) {
    if (items.get(i) === pivot) {
      items.insertAt(where === 'after' ? i + 1 : i, argv[4]!);
      modified(c, key, 1);
      notifyKeyspaceEvent(c.server, NOTIFY.LIST, 'linsert', key, c.db.id);
      return items.length;
    }
  }
  return -1;
}

function lrem(c: Client, argv: string[]): Reply {
  const toRemove = intArg(argv[2]!);
  if (toRemove === null) return NOT_INTEGER;
  const key = argv[1]!;
  const list = writeTyped(c, key, 'list');
  if (list === undefined) return 0;
  if (list instanceof ErrorReply) return list;
  const items = list.items;
  const element = argv[3]!;
  const limit = Math.abs(toRemove);
  let removed: number;
  if (toRemove >= 0) {
    // The first `limit` matches from the head (all of them when 0).
    let seen = 0;
    removed = items.filter((v) => v !== element || (limit !== 0 && seen++ >= limit));
  } else {
    // The first `limit` matches from the tail: find where they start.
    let from = items.length;
    let seen = 0;
    for (let i = items.length - 1; i >= 0 && seen < limit; i--) {
      if (items.get(i) === element) {
        from = i;
        seen++;
      }
    }
    removed = seen === 0 ? 0 : items.filter((v, i) => i < from || v !== element);
  }
  if (removed !== 0) elementsRemoved(c, key, list, removed, 'lrem');
  return removed;
}

function ltrim(c: Client, argv: string[]): Reply {
  let start = intArg(argv[2]!);
  let end = intArg(argv[3]!);
  if (start === null || end === null) return NOT_INTEGER;
  const key = argv[1]!;
  const list = writeTyped(c, key, 'list');
  if (list === undefined) return OK;
  if (list instanceof ErrorReply) return list;
  const items = list.items;
  const len = items.length;
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  let fromHead: number;
  let fromTail: number;
  if (start > end || start >= len) {
    fromHead = len;
    fromTail = 0;
  } else {
    if (end >= len) end = len - 1;
    fromHead = start;
    fromTail = len - end - 1;
  }
  items.dropHead(fromHead);
  items.dropTail(fromTail);
  // Redis signals and notifies the key even when nothing was trimmed.
  elementsRemoved(c, key, list, fromHead + fromTail, 'ltrim');
  return OK;
}

const RANK_ZERO =
  "RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list";

/** LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
function lpos(c: Client, argv: string[]): Reply {
  let rank = 1;
  let count = -1; // -1: no COUNT option, reply with a single index
  let maxlen = 0;
  // RANK -9223372036854775808 cannot be negated in C: it stays negative, so
  // every match qualifies and COUNT never stops the scan.
  let rankIsLongMin = false;
  for (let j = 3; j < argv.length; j++) {
    const o = opt(argv[j]!);
    const hasValue = j < argv.length - 1;
    if (o === 'rank' && hasValue) {
      const v = int64Arg(argv[++j]!);
      if (v === null) return NOT_INTEGER;
      if (v === 0) return errorReply(RANK_ZERO);
      rankIsLongMin = v === -9223372036854775808n;
      rank = typeof v === 'bigint' ? (v > 0n ? Number.MAX_SAFE_INTEGER : -Number.MAX_SAFE_INTEGER) : v;
    } else if (o === 'count' && hasValue) {
      const v = positiveLongArg(argv[++j]!);
      if (v === null) return errorReply("COUNT can't be negative");
      count = v;
    } else if (o === 'maxlen' && hasValue) {
      const v = positiveLongArg(argv[++j]!);
      if (v === null) return errorReply("MAXLEN can't be negative");
      maxlen = v;
    } else {
      return SYNTAX_ERROR;
    }
  }
  const fromTail = rank < 0;
  if (fromTail) rank = -rank;
  if (rankIsLongMin) rank = 1;

  const list = readTyped(c, argv[1]!, 'list');
  if (list === undefined) return count !== -1 ? EMPTY_ARRAY : null;
  if (list instanceof ErrorReply) return list;

  const items = list.items;
  const element = argv[2]!;
  const len = items.length;
  const scan = maxlen === 0 ? len : Math.min(len, maxlen);
  const found: number[] = [];
  let matches = 0;
  for (let step = 0; step < scan; step++) {
    const index = fromTail ? len - step - 1 : step;
    if (items.get(index) !== element) continue;
    matches++;
    if (matches < rank) continue;
    if (count === -1) return index;
    found.push(index);
    if (count !== 0 && !rankIsLongMin && matches - rank + 1 >= count) break;
  }
  return count === -1 ? null : found;
}

/** Parses LEFT or RIGHT: true for the head, false for the tail, null otherwise. */
export function listEnd(arg: string): boolean | null {
  const o = opt(arg);
  if (o === 'left') return true;
  if (o === 'right') return false;
  return null;
}

/** LMOVE and RPOPLPUSH (lmoveGenericCommand). */
export function moveGeneric(c: Client, source: string, destination: string, fromHead: boolean, toHead: boolean): Reply {
  const src = writeTyped(c, source, 'list');
  if (src === undefined) return null;
  if (src instanceof ErrorReply) return src;
  // The destination is looked up before the pop, so that moving within one
  // list puts the element back into the same list.
  let dst = writeTyped(c, destination, 'list');
  if (dst instanceof ErrorReply) return dst;
  const value = fromHead ? src.items.popHead()! : src.items.popTail()!;
  if (dst === undefined) {
    dst = new ListValue();
    c.db.add(destination, dst);
  }
  if (toHead) dst.items.pushHead(value);
  else dst.items.pushTail(value);
  modified(c, destination, 0);
  notifyKeyspaceEvent(c.server, NOTIFY.LIST, pushEvent(toHead), destination, c.db.id);
  elementsRemoved(c, source, src, 1, popEvent(fromHead));
  return value;
}

function lmove(c: Client, argv: string[]): Reply {
  const from = listEnd(argv[3]!);
  if (from === null) return SYNTAX_ERROR;
  const to = listEnd(argv[4]!);
  if (to === null) return SYNTAX_ERROR;
  return moveGeneric(c, argv[1]!, argv[2]!, from, to);
}

function rpoplpush(c: Client, argv: string[]): Reply {
  return moveGeneric(c, argv[1]!, argv[2]!, false, true);
}

/** LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] */
function lmpop(c: Client, argv: string[]): Reply {
  const args = parseMpopArgs(argv, 1, listEnd);
  if (!isMpopArgs(args)) return args;
  const { keys, where: head, count } = args;
  for (const key of keys) {
    const list = writeTyped(c, key, 'list');
    if (list === undefined) continue;
    if (list instanceof ErrorReply) return list;
    const popped = popElements(list.items, head, count);
    elementsRemoved(c, key, list, popped.length, popEvent(head));
    // Replicas and the AOF see the pop that actually happened.
    c.propagateArgv = [head ? 'LPOP' : 'RPOP', key, String(popped.length)];
    return [key, popped];
  }
  return NULL_ARRAY;
}

export const listCommands: Record<string, Handler> = {
  lpush: (c, argv) => pushGeneric(c, argv, true, false),
  rpush: (c, argv) => pushGeneric(c, argv, false, false),
  lpushx: (c, argv) => pushGeneric(c, argv, true, true),
  rpushx: (c, argv) => pushGeneric(c, argv, false, true),
  lpop: (c, argv) => popGeneric(c, argv, true),
  rpop: (c, argv) => popGeneric(c, argv, false),
  llen,
  lrange,
  lindex,
  lset,
  linsert,
  lrem,
  ltrim,
  lpos,
  lmove,
  rpoplpush,
  lmpop,
};
