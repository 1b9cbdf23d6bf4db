import type { Database } from './database.js';

/**
 * WATCH bookkeeping, following src/multi.c. Each database maps a key to the
 * list of watch entries on it (in WATCH order); each client lists its own.
 */
export interface Watcher {
  /** Set when a watched key changed: the next EXEC fails (CLIENT_DIRTY_CAS). */
  dirtyCas: boolean;
  watched: WatchedKey[];
}

export interface WatchedKey {
  readonly key: string;
  readonly db: Database;
  readonly client: Watcher;
  /** The key was already logically expired when WATCH was called. */
  expired: boolean;
}

export function watchKey(c: Watcher, db: Database, key: string): void {
  for (const wk of c.watched) if (wk.db === db && wk.key === key) return;
  const reg = db.watched;
  let list = reg.get(key);
  if (!list) {
    list = [];
    reg.set(key, list);
  }
  const wk: WatchedKey = { key, db, client: c, expired: db.dict.has(key) && db.isExpired(key) };
  c.watched.push(wk);
  list.push(wk);
}

export function unwatchAll(c: Watcher): void {
  if (c.watched.length === 0) return;
  for (const wk of c.watched) {
    const reg = wk.db.watched;
    const list = reg.get(wk.key);
    if (!list) continue;
    const i = list.indexOf(wk);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) reg.delete(wk.key);
  }
  c.watched = [];
}

/** Whether a key watched while alive has expired since (checked at EXEC). */
export function isWatchedKeyExpired(c: Watcher): boolean {
  for (const wk of c.watched) {
    if (wk.expired) continue;
    if (wk.db.dict.has(wk.key) && wk.db.isExpired(wk.key)) return true;
  }
  return false;
}

/** A key was modified: flag every client watching it (touchWatchedKey). */
export function touchWatchedKey(db: Database, key: string): void {
  const reg = db.watched;
  if (reg.size === 0) return;
  const list = reg.get(key);
  if (!list) return;
  // Iterate over a copy: unwatchAll edits the list as we go.
  for (const wk of list.slice()) {
    if (wk.expired) {
      if (!db.dict.has(key)) {
        // The expired key is now gone: logically no change.
        wk.expired = false;
        continue;
      }
      // Redis stops at the first entry still marked expired whose key exists.
      break;
    }
    wk.client.dirtyCas = true;
    unwatchAll(wk.client);
  }
}

/**
 * FLUSHDB, FLUSHALL, SWAPDB: flag the clients watching keys that existed
 * (touchAllWatchedKeysInDb). `replacedWith` is the other database of a SWAPDB.
 */
export function touchAllWatchedKeysInDb(emptied: Database, replacedWith: Database | null): void {
  const reg = emptied.watched;
  if (reg.size === 0) return;
  for (const [key, list] of reg) {
    const existsInEmptied = emptied.dict.has(key);
    const existsInReplacement = replacedWith !== null && replacedWith.dict.has(key);
    if (!existsInEmptied && !existsInReplacement) continue;
    for (const wk of list) {
      if (wk.expired) {
        if (!existsInReplacement) {
          wk.expired = false;
          continue;
        } else if (replacedWith!.isExpired(key)) {
          continue;
        }
      } else if (!existsInEmptied && replacedWith!.isExpired(key)) {
        wk.expired = true;
        continue;
      }
      wk.client.dirtyCas = true;
    }
  }
}
