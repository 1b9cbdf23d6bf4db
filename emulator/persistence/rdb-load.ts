import type { RedisServer } from '../server/server.js';
import { RdbError } from './rdb/errors.js';
import { readRdb, type RdbContents, type RdbReadOptions } from './rdb/file-reader.js';
import { accessKind, placeKeyData, placeLoadedFunctions, placeLoadedKeys } from './rdb-dataset.js';

/**
 * rdbLoad at start: reads a file straight into the server's databases,
 * each key stored as it is read rather than gathered first, which halves
 * the work of loading millions of keys. Returns what readRdb returns (the
 * contents without their keys). On an error the databases keep the keys
 * read before it; the server then exits, as Redis does. Databases that
 * already hold keys take the gathering path, so nothing in them changes
 * on an error and clashes are left out as placeLoadedKeys does.
 */
export function loadRdbIntoServer(server: RedisServer, bytes: Uint8Array, opts: RdbReadOptions): RdbContents | RdbError {
  if (server.dbs.some((db) => db.dict.size !== 0)) {
    const contents = readRdb(bytes, opts);
    if (contents instanceof RdbError) return contents;
    const failed = placeLoadedFunctions(server, contents, false);
    if (failed !== null) return new RdbError('function', failed);
    placeLoadedKeys(server, contents, false);
    return contents;
  }
  const lfu = accessKind(server) === 'lfu';
  const contents = readRdb(bytes, opts, {
    put(id, key, k) {
      const db = server.dbs[id]!;
      // The databases started empty, so a name already there came earlier in
      // the file: the later copy replaces it and moves to the end.
      const sizeBefore = db.dict.size;
      db.addLoaded(key, k.value);
      const fresh = db.dict.size !== sizeBefore;
      if (!fresh) {
        db.delete(key);
        db.addLoaded(key, k.value);
      }
      placeKeyData(server, db, key, k, lfu);
      return fresh;
    },
  });
  if (contents instanceof RdbError) return contents;
  const failed = placeLoadedFunctions(server, contents, false);
  return failed === null ? contents : new RdbError('function', failed);
}
