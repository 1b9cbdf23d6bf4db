import { encodingOf } from '../keyspace/values.js';
import { StatusReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { deleteKey, typeName } from './lookup.js';
import type { Handler } from './table.js';

/**
 * The generic (keyspace) commands (src/db.c, src/expire.c, src/object.c, src/sort.c).
 */

function del(c: Client, argv: string[]): Reply {
  let n = 0;
  for (let i = 1; i < argv.length; i++) {
    const key = argv[i]!;
    if (c.db.expires.size !== 0) c.db.expireIfNeeded(key, true);
    if (deleteKey(c, key)) {
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

function objectEncoding(c: Client, argv: string[]): Reply {
  const v = c.db.lookupNoTouch(argv[2]!);
  if (v === undefined) return null;
  return encodingOf(v);
}

export const genericCommands: Record<string, Handler> = {
  del,
  unlink: del,
  exists,
  type,
  'object|encoding': objectEncoding,
};

