import { emptyData } from '../server/empty-data.js';
import { OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { RedisServer } from '../server/server.js';
import { RdbError } from './rdb/errors.js';
import { readRdb } from './rdb/file-reader.js';
import { doneLoadingRdb, placeLoadedFunctions, placeLoadedKeys, rdbLoadOptions } from './rdb-dataset.js';
import { lastSavedRdb, saveInMemory } from './saved-rdb.js';

/**
 * DEBUG RELOAD (src/debug.c): save the dataset to an RDB file, empty the
 * databases, and load the file back, so that every value takes the
 * encoding a restart would give it.
 *
 * Until the server has a disk, the "file" is the last RDB this server
 * saved, kept in memory; a server that never saved has none, as a fresh
 * directory has no dump.rdb.
 */

/** rdbLoad of the saved file into the current databases; false when it cannot be loaded. */
function load(server: RedisServer, merge: boolean): boolean {
  const p = server.stats.persistence;
  p.rdbLastLoadKeysExpired = 0;
  p.rdbLastLoadKeysLoaded = 0;
  const bytes = lastSavedRdb(server);
  if (bytes === undefined) return false;
  const log = (line: string) => server.log(line);
  const contents = readRdb(bytes, rdbLoadOptions(server, { nowMs: server.nowMs, dropExpired: server.mayDeleteExpired, allowDuplicates: merge, log }));
  if (contents instanceof RdbError) return false;
  const done = doneLoadingRdb(server, contents);
  // Without MERGE a key that is already there stops a real server
  // ("Duplicated key found in RDB file"); here the load fails instead.
  if (placeLoadedFunctions(server, contents, merge) !== null) return false;
  if (placeLoadedKeys(server, contents, merge).length !== 0) return false;
  log(done);
  return true;
}

export function debugReload(c: Client, opts: { flush: boolean; save: boolean; merge: boolean }): Reply {
  const server = c.server;
  if (opts.save) saveInMemory(server);
  if (opts.flush) {
    // The libraries go too, and come back from the file.
    emptyData(server, -1, { functions: true });
  }
  if (!load(server, opts.merge)) return errorReply('Error trying to load the RDB dump');
  server.log('DB reloaded by DEBUG RELOAD', 'warning');
  return OK;
}
