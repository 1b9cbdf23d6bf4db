import { addInt64, parseInt64 } from '../numbers/int64.js';
import { addLongDouble, formatLongDoubleHuman, isInfinite, parseLongDouble } from '../numbers/long-double.js';
import { EMPTY_ARRAY, ErrorReply, MapReply, OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { int64Arg } from './args.js';
import { NOT_FLOAT, NOT_INTEGER, OVERFLOW } from '../server/errors.js';
import { convertForArgs, hashForWrite, hashSet } from './hash-type.js';
import { modified, readTyped, writeTyped } from './lookup.js';
import type { Handler } from '../server/command-table.js';

/**
 * The hash commands (src/t_hash.c). Encoding rules live in hash-type.ts,
 * HRANDFIELD in hash-random.ts, HSCAN in hash-scan.ts.
 */

const EMPTY_MAP = new MapReply(EMPTY_ARRAY);

/** HSET and HMSET (hsetCommand): they differ only in the reply. */
function hsetGeneric(c: Client, argv: string[], okReply: boolean): Reply {
  if (argv.length % 2 === 1) return errorReply(`wrong number of arguments for '${c.cmd!.name}' command`);
  const key = argv[1]!;
  const h = hashForWrite(c, key);
  if (h instanceof ErrorReply) return h;
  convertForArgs(c, h, argv, 2, argv.length - 1);
  let created = 0;
  for (let i = 2; i < argv.length; i += 2) if (!hashSet(c, h, argv[i]!, argv[i + 1]!)) created++;
  // Every pair counts as a change, new or not.
  modified(c, key, (argv.length - 2) / 2);
  notifyKeyspaceEvent(c.server, NOTIFY.HASH, 'hset', key, c.db.id);
  return okReply ? OK : created;
}

function hsetnx(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const h = hashForWrite(c, key);
  if (h instanceof ErrorReply) return h;
  if (h.map.has(argv[2]!)) return 0;
  convertForArgs(c, h, argv, 2, 3);
  hashSet(c, h, argv[2]!, argv[3]!);
  modified(c, key, 1);
  notifyKeyspaceEvent(c.server, NOTIFY.HASH, 'hset', key, c.db.id);
  return 1;
}

function hget(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return null;
  if (h instanceof ErrorReply) return h;
  return h.map.get(argv[2]!) ?? null;
}

function hmget(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h instanceof ErrorReply) return h;
  const out = new Array<Reply>(argv.length - 2);
  for (let i = 2; i < argv.length; i++) out[i - 2] = h?.map.get(argv[i]!) ?? null;
  return out;
}

function hdel(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const h = writeTyped(c, key, 'hash');
  if (h === undefined) return 0;
  if (h instanceof ErrorReply) return h;
  let deleted = 0;
  let keyRemoved = false;
  for (let i = 2; i < argv.length; i++) {
    if (!h.map.delete(argv[i]!)) continue;
    deleted++;
    if (h.map.size === 0) {
      c.db.delete(key);
      keyRemoved = true;
      break;
    }
  }
  if (deleted !== 0) {
    modified(c, key, deleted);
    notifyKeyspaceEvent(c.server, NOTIFY.HASH, 'hdel', key, c.db.id);
    if (keyRemoved) notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, c.db.id);
  }
  return deleted;
}

function hlen(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return 0;
  if (h instanceof ErrorReply) return h;
  return h.map.size;
}

function hstrlen(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return 0;
  if (h instanceof ErrorReply) return h;
  return h.map.get(argv[2]!)?.length ?? 0;
}

function hexists(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return 0;
  if (h instanceof ErrorReply) return h;
  return h.map.has(argv[2]!) ? 1 : 0;
}

function hkeys(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return EMPTY_ARRAY;
  if (h instanceof ErrorReply) return h;
  return Array.from(h.map.keys());
}

function hvals(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return EMPTY_ARRAY;
  if (h instanceof ErrorReply) return h;
  return Array.from(h.map.values());
}

function hgetall(c: Client, argv: string[]): Reply {
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return EMPTY_MAP;
  if (h instanceof ErrorReply) return h;
  const flat = new Array<Reply>(h.map.size * 2);
  let i = 0;
  for (const [field, value] of h.map) {
    flat[i++] = field;
    flat[i++] = value;
  }
  return new MapReply(flat);
}

function hincrby(c: Client, argv: string[]): Reply {
  const by = int64Arg(argv[3]!);
  if (by === null) return NOT_INTEGER;
  const key = argv[1]!;
  const h = hashForWrite(c, key);
  if (h instanceof ErrorReply) return h;
  const field = argv[2]!;
  const old = h.map.get(field);
  let current: number | bigint = 0;
  if (old !== undefined) {
    const n = parseInt64(old);
    if (n === null) return errorReply('hash value is not an integer');
    current = n;
  }
  const next = addInt64(current, by);
  if (next === null) return OVERFLOW;
  hashSet(c, h, field, String(next));
  modified(c, key, 1);
  notifyKeyspaceEvent(c.server, NOTIFY.HASH, 'hincrby', key, c.db.id);
  return next;
}

function hincrbyfloat(c: Client, argv: string[]): Reply {
  const by = parseLongDouble(argv[3]!);
  if (by === null) return NOT_FLOAT;
  if (isInfinite(by)) return errorReply('value is NaN or Infinity');
  const key = argv[1]!;
  const h = hashForWrite(c, key);
  if (h instanceof ErrorReply) return h;
  const field = argv[2]!;
  const old = h.map.get(field);
  let sum = by;
  if (old !== undefined) {
    const current = parseLongDouble(old);
    if (current === null) return errorReply('hash value is not a float');
    sum = addLongDouble(current, by);
  }
  if (isInfinite(sum)) return errorReply('increment would produce NaN or Infinity');
  const text = formatLongDoubleHuman(sum);
  hashSet(c, h, field, text);
  modified(c, key, 1);
  notifyKeyspaceEvent(c.server, NOTIFY.HASH, 'hincrbyfloat', key, c.db.id);
  // The result, not the increment, goes to replicas and the AOF, so that
  // they cannot round differently.
  c.propagateArgv = ['HSET', key, field, text];
  return text;
}

export const hashCommands: Record<string, Handler> = {
  hset: (c, argv) => hsetGeneric(c, argv, false),
  hmset: (c, argv) => hsetGeneric(c, argv, true),
  hsetnx,
  hget,
  hmget,
  hdel,
  hlen,
  hstrlen,
  hexists,
  hkeys,
  hvals,
  hgetall,
  hincrby,
  hincrbyfloat,
};
