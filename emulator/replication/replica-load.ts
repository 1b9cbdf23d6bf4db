import { emptyData } from '../server/empty-data.js';
import { RdbError } from '../persistence/rdb/errors.js';
import { doneLoadingRdb, placeLoadedKeys, rdbLoadOptions } from '../persistence/rdb-dataset.js';
import { loadRdbIntoServer } from '../persistence/rdb-load.js';
import { readRdb } from '../persistence/rdb/file-reader.js';
import { asciiLower } from '../resp/bytes.js';
import type { RedisServer } from '../server/server.js';

/**
 * What a replica does with the RDB of a full synchronization: its old
 * data goes (emptyData), the file is loaded as rdbLoad does with
 * RDBFLAGS_REPLICATION (logging what the loader logs, keeping keys that
 * already expired, since only the primary's DEL removes them), and the
 * database its primary's stream had selected is read from the file.
 */

/** emptyData(-1) with Redis's flags for a sync: every database, and the function libraries, which the file brings again. */
export function emptyAllData(server: RedisServer): void {
  emptyData(server, -1, { functions: true });
}

/** The outcome of loading a received RDB. */
export interface SyncedRdb {
  keysLoaded: number;
  keysExpired: number;
  /** repl-stream-db of the file, or -1 when it has none. */
  streamDb: number;
}

function readOptions(server: RedisServer, log: (line: string) => void) {
  // A replica keeps keys that expired: its primary's DEL removes them.
  return rdbLoadOptions(server, { nowMs: server.nowMs, dropExpired: false, log });
}

function finish(server: RedisServer, aux: ReadonlyArray<readonly [string, string]>, keysLoaded: number, keysExpired: number, log: (line: string) => void): SyncedRdb {
  log(doneLoadingRdb(server, { keysLoaded, keysExpired }));
  let streamDb = -1;
  for (const [k, v] of aux) {
    if (asciiLower(k) !== 'repl-stream-db') continue;
    const m = /^\s*([+-]?\d+)/.exec(v);
    streamDb = m === null ? 0 : Number(m[1]);
  }
  return { keysLoaded, keysExpired, streamDb };
}

/** rdbLoad into the emptied databases; an error text when the file cannot be loaded. */
export function loadSyncedRdb(server: RedisServer, bytes: Uint8Array, log: (line: string) => void): SyncedRdb | string {
  const contents = loadRdbIntoServer(server, bytes, readOptions(server, log));
  if (contents instanceof RdbError) return contents.message;
  return finish(server, contents.aux, contents.keysLoaded, contents.keysExpired, log);
}

/**
 * repl-diskless-load swapdb: the file is read beside the old data, which
 * is replaced only once the whole file loaded (swapMainDbWithTempDb); on a
 * failure the old data stays.
 */
export function loadSyncedRdbBeside(
  server: RedisServer,
  bytes: Uint8Array,
  log: (line: string) => void,
  swap: () => void,
): SyncedRdb | string {
  const contents = readRdb(bytes, readOptions(server, log));
  if (contents instanceof RdbError) return contents.message;
  const loaded = finish(server, contents.aux, contents.keysLoaded, contents.keysExpired, log);
  swap();
  emptyAllData(server);
  placeLoadedKeys(server, contents, false);
  return loaded;
}
