import { touchAllWatchedKeysInDb } from '../keyspace/watch.js';
import { MapReply, OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { opt } from './args.js';
import { SYNTAX_ERROR } from './errors.js';
import type { Handler } from './table.js';

/**
 * The server commands (src/server.c, src/config.c, src/db.c, src/debug.c).
 */

function dbsize(c: Client): Reply {
  return c.db.size;
}

function flushFlags(argv: string[], start: number): boolean {
  for (let i = start; i < argv.length; i++) {
    const o = opt(argv[i]!);
    if (o !== 'async' && o !== 'sync') return false;
  }
  return argv.length - start <= 1;
}

function flushdb(c: Client, argv: string[]): Reply {
  if (!flushFlags(argv, 1)) return SYNTAX_ERROR;
  touchAllWatchedKeysInDb(c.db, null);
  c.server.dirty += c.db.clear();
  return OK;
}

function flushall(c: Client, argv: string[]): Reply {
  if (!flushFlags(argv, 1)) return SYNTAX_ERROR;
  for (const db of c.server.dbs) {
    touchAllWatchedKeysInDb(db, null);
    c.server.dirty += db.clear();
  }
  c.server.dirty++;
  return OK;
}

function configGet(c: Client, argv: string[]): Reply {
  const flat: Reply[] = [];
  for (const [name, value] of c.server.config.match(argv.slice(2))) flat.push(name, value);
  return new MapReply(flat);
}

function configSet(c: Client, argv: string[]): Reply {
  if ((argv.length - 2) % 2 !== 0) return errorReply(`wrong number of arguments for 'config|set' command`);
  for (let i = 2; i < argv.length; i += 2) {
    const e = c.server.config.set(argv[i]!, argv[i + 1]!);
    if (e) return errorReply(e);
  }
  return OK;
}

export const serverCommands: Record<string, Handler> = {
  dbsize,
  flushdb,
  flushall,
  'config|get': configGet,
  'config|set': configSet,
};
