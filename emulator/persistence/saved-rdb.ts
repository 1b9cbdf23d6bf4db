import type { RedisServer } from '../server/server.js';
import { saveRdb } from './rdb-dataset.js';

/**
 * The last RDB each server without a disk saved, kept in memory for DEBUG
 * RELOAD (debug-reload.ts), apart from the reload's own code, which loads
 * on demand while SAVE is there from the start.
 */
const savedFiles = new WeakMap<RedisServer, Uint8Array>();

/** The last RDB the server saved, if any. */
export function lastSavedRdb(server: RedisServer): Uint8Array | undefined {
  return savedFiles.get(server);
}

/** Keeps a saved file for DEBUG RELOAD (SAVE on a server with no disk). */
export function rememberSavedRdb(server: RedisServer, bytes: Uint8Array): void {
  savedFiles.set(server, bytes);
}

/**
 * rdbSave on a server with no disk (SAVE, DEBUG RELOAD, FLUSHALL with save
 * rules): the file is kept in memory, and the server counts as saved now.
 */
export function saveInMemory(server: RedisServer): void {
  rememberSavedRdb(server, saveRdb(server));
  server.dirty = 0;
  const p = server.stats.persistence;
  p.lastSaveUnixS = Math.floor(server.nowMs / 1000);
  p.rdbLastBgsaveOk = true;
}
