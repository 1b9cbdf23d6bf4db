import { Database } from '../keyspace/database.js';
import { OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { intArg } from './args.js';
import { INVALID_DB_INDEX, NOT_INTEGER, NO_SUCH_KEY } from '../server/errors.js';
import { getExpireExact } from '../keyspace/expire-exact.js';
import { setExpireBy } from './set-expire.js';
import type { Handler } from '../server/command-table.js';

/**
 * RENAME, RENAMENX and MOVE (src/db.c): the value object itself changes
 * name or database, keeping its TTL.
 */

const INT_RANGE = errorReply('value is out of range, value must between -2147483648 and 2147483647');

export const SAME_OBJECT = errorReply('source and destination objects are the same');

/** RENAME and RENAMENX (renameGenericCommand). */
function renameGeneric(c: Client, argv: string[], nx: boolean): Reply {
  const src = argv[1]!;
  const dst = argv[2]!;
  const db = c.db;
  const value = db.lookupWrite(src);
  if (value === undefined) return NO_SUCH_KEY;
  // Renaming a key to itself is a no-op, but only once the key is known to exist.
  if (src === dst) return nx ? 0 : OK;
  const when = getExpireExact(db, src);
  if (db.lookupWrite(dst) !== undefined) {
    if (nx) return 0;
    db.delete(dst);
  }
  const stamp = db.access.get(src);
  db.add(dst, value);
  // The value keeps its own access data (LRU time or LFU counter).
  if (stamp !== undefined) db.access.set(dst, stamp);
  if (when !== undefined) setExpireBy(c, db, dst, when);
  db.delete(src);
  c.server.keyModified(db, src);
  c.server.keyModified(db, dst);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'rename_from', src, db.id);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'rename_to', dst, db.id);
  c.server.dirty++;
  return nx ? 1 : OK;
}

function rename(c: Client, argv: string[]): Reply {
  return renameGeneric(c, argv, false);
}

function renamenx(c: Client, argv: string[]): Reply {
  return renameGeneric(c, argv, true);
}

/**
 * The database named by a SELECT-style argument (getIntFromObjectOrReply,
 * then the range check), or the error to reply.
 */
export function dbArg(c: Client, arg: string): Database | Reply {
  const id = intArg(arg);
  if (id === null) return NOT_INTEGER;
  if (id < -2147483648 || id > 2147483647) return INT_RANGE;
  const db = c.server.dbs[id];
  return id < 0 || db === undefined ? INVALID_DB_INDEX : db;
}

function move(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const src = c.db;
  const dst = dbArg(c, argv[2]!);
  if (!(dst instanceof Database)) return dst;
  if (dst === src) return SAME_OBJECT;
  const value = src.lookupWrite(key);
  if (value === undefined) return 0;
  const when = getExpireExact(src, key);
  if (dst.lookupWrite(key) !== undefined) return 0;
  const stamp = src.access.get(key);
  dst.add(key, value);
  if (stamp !== undefined) dst.access.set(key, stamp);
  if (when !== undefined) setExpireBy(c, dst, key, when);
  src.delete(key);
  c.server.keyModified(src, key);
  c.server.keyModified(dst, key);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'move_from', key, src.id);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'move_to', key, dst.id);
  c.server.dirty++;
  return 1;
}

export const renameCommands: Record<string, Handler> = {
  rename,
  renamenx,
  move,
};
