import { touchAllWatchedKeysInDb } from '../keyspace/watch.js';
import type { RedisServer } from './server.js';

/**
 * emptyData (src/db.c), the one way a server's data goes: FLUSHDB and
 * FLUSHALL, DEBUG RELOAD and DEBUG LOADAOF, and a replica before it loads
 * its primary's file. WATCH is told first, while the keys still exist
 * (signalFlushedDb); emptying every database (`db` -1) also forgets the
 * keys a writable replica gave a TTL (flushSlaveKeysWithExpireList); and
 * unless the caller passes EMPTYDB_NOFUNCTIONS, as FLUSHALL and FLUSHDB do,
 * the function libraries go too (functionsLibCtxClearCurrent), so a
 * library the file holds again loads without "already exists".
 * Returns how many keys were removed.
 */
export function emptyData(server: RedisServer, db: number, opts: { functions: boolean }): number {
  const dbs = db === -1 ? server.dbs : [server.dbs[db]!];
  let removed = 0;
  for (const d of dbs) {
    touchAllWatchedKeysInDb(d, null);
    removed += d.clear();
  }
  if (db === -1) server.replicaKeysWithExpire.flush();
  if (opts.functions) server.functions.clear();
  return removed;
}
