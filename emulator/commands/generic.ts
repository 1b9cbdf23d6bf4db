import { StatusReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { expireCommands } from './expire.js';
import { keysCommands } from './generic-keys.js';
import { renameCommands } from './generic-rename.js';
import { deleteKey, typeName } from './lookup.js';
import type { Handler } from '../server/command-table.js';

/**
 * The generic (keyspace) commands (src/db.c, src/expire.c, src/object.c,
 * src/sort.c). This file holds the simplest ones and gathers the rest.
 */

/** DEL and UNLINK (delGenericCommand): freeing lazily or not looks the same from outside. */
function del(c: Client, argv: string[]): Reply {
  const db = c.db;
  let n = 0;
  for (let i = 1; i < argv.length; i++) {
    const key = argv[i]!;
    // An expired key is deleted as expired (and counted so), not by this DEL.
    if (db.expires.size !== 0) db.expireIfNeeded(key);
    if (deleteKey(c, key)) {
      notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', key, db.id);
      c.server.dirty++;
      n++;
    }
  }
  return n;
}

function exists(c: Client, argv: string[]): Reply {
  let n = 0;
  for (let i = 1; i < argv.length; i++) if (c.db.lookupNoTouch(argv[i]!, true) !== undefined) n++;
  return n;
}

function type(c: Client, argv: string[]): Reply {
  return new StatusReply(typeName(c.db.lookupNoTouch(argv[1]!, true)));
}

/** TOUCH: a plain read lookup of each key, which stamps its access time. */
function touch(c: Client, argv: string[]): Reply {
  let n = 0;
  for (let i = 1; i < argv.length; i++) if (c.db.lookupRead(argv[i]!) !== undefined) n++;
  return n;
}

export const genericCommands: Record<string, Handler> = {
  del,
  unlink: del,
  exists,
  type,
  touch,
  ...keysCommands,
  ...renameCommands,
  ...expireCommands,
};
