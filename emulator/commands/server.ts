import type { Database } from '../keyspace/database.js';
import { touchAllWatchedKeysInDb } from '../keyspace/watch.js';
import { emptyData } from '../server/empty-data.js';
import { OK, errorReply, type Reply } from '../resp/reply.js';
import { PROPAGATE, type Client } from '../server/client.js';
import { lastSaveUnixS } from '../server/info.js';
import { opt } from './args.js';
import { configCommands } from './config.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import { infoCommands } from './info.js';
import { resetRdbAfterFlushAll } from './persistence.js';
import { parseInt64 } from '../numbers/int64.js';
import type { Handler } from '../server/command-table.js';

/**
 * The server commands (src/server.c, src/db.c, src/config.c, src/debug.c):
 * the keyspace-wide ones here, CONFIG, INFO, COMMAND and DEBUG in their own
 * files.
 */

/**
 * Reactions of other subsystems to whole-keyspace changes: a FLUSHALL saves
 * an RDB when save points are configured; a SWAPDB may wake clients blocked
 * on keys that now exist.
 */
export const keyspaceHooks = {
  afterFlushAll: [] as Array<(c: Client) => void>,
  afterSwapDb: [] as Array<(c: Client, a: Database, b: Database) => void>,
};

function dbsize(c: Client): Reply {
  return c.db.size;
}

/** getFlushCommandFlags: no argument, or exactly one of ASYNC / SYNC. */
function flushArgsValid(argv: string[]): boolean {
  if (argv.length === 1) return true;
  if (argv.length !== 2) return false;
  const o = opt(argv[1]!);
  return o === 'async' || o === 'sync';
}

function flushdb(c: Client, argv: string[]): Reply {
  if (!flushArgsValid(argv)) return SYNTAX_ERROR;
  c.server.dirty += emptyData(c.server, c.db.id, { functions: false });
  // Replicated and written to the AOF even when the database was empty.
  c.forcePropagation = PROPAGATE.ALL;
  return OK;
}

function flushall(c: Client, argv: string[]): Reply {
  if (!flushArgsValid(argv)) return SYNTAX_ERROR;
  c.server.dirty += emptyData(c.server, -1, { functions: false });
  resetRdbAfterFlushAll(c.server);
  for (const hook of keyspaceHooks.afterFlushAll) hook(c);
  c.forcePropagation = PROPAGATE.ALL;
  return OK;
}

/** getIntFromObjectOrReply: a C int, or the given error. */
function dbIndexArg(arg: string): number | null {
  const v = parseInt64(arg);
  if (v === null || typeof v === 'bigint' || v < -2147483648 || v > 2147483647) return null;
  return v;
}

function swapdb(c: Client, argv: string[]): Reply {
  const a = dbIndexArg(argv[1]!);
  if (a === null) return errorReply('invalid first DB index');
  const b = dbIndexArg(argv[2]!);
  if (b === null) return errorReply('invalid second DB index');
  const dbs = c.server.dbs;
  if (a < 0 || a >= dbs.length || b < 0 || b >= dbs.length) return errorReply('DB index is out of range');
  if (a !== b) {
    const x = dbs[a]!;
    const y = dbs[b]!;
    touchAllWatchedKeysInDb(x, y);
    touchAllWatchedKeysInDb(y, x);
    x.swapContents(y);
    // Clients blocked in either database may now find their keys
    // (scanDatabaseForReadyKeys).
    c.server.blocking.scanForReadyKeys(x);
    c.server.blocking.scanForReadyKeys(y);
    for (const hook of keyspaceHooks.afterSwapDb) hook(c, x, y);
  }
  c.server.dirty++;
  return OK;
}

/** TIME: the (virtual) wall clock as seconds and microseconds, both bulk strings. */
function time(c: Client): Reply {
  const us = c.server.clock.nowUs();
  const sec = Math.floor(us / 1e6);
  return [String(sec), String(us - sec * 1e6)];
}

function lastsave(c: Client): Reply {
  return lastSaveUnixS(c.server);
}

export const serverCommands: Record<string, Handler> = {
  dbsize,
  flushdb,
  flushall,
  swapdb,
  time,
  lastsave,
  ...configCommands,
  ...infoCommands,
};
