import { describe, expect, it } from 'vitest';
import { Database, type KeyspaceHost } from '../../../emulator/keyspace/database.js';
import {
  isWatchedKeyExpired,
  touchAllWatchedKeysInDb,
  touchWatchedKey,
  unwatchAll,
  watchKey,
  type Watcher,
} from '../../../emulator/keyspace/watch.js';

function host(): KeyspaceHost & { nowMs: number } {
  const h = {
    nowMs: 1000,
    lruClock: 1,
    mayDeleteExpired: true,
    stats: { keyspaceHits: 0, keyspaceMisses: 0 },
    keyExpired: (db: Database, key: string) => touchWatchedKey(db, key),
    keyModified: (db: Database, key: string) => touchWatchedKey(db, key),
    keyAdded: () => {},
  };
  return h;
}

function watcher(): Watcher {
  return { dirtyCas: false, watched: [] };
}

describe('WATCH bookkeeping', () => {
  it('a touched key flags every watcher and unwatches them', () => {
    const h = host();
    const db = new Database(0, h);
    const a = watcher();
    const b = watcher();
    watchKey(a, db, 'k');
    watchKey(a, db, 'other');
    watchKey(b, db, 'k');
    touchWatchedKey(db, 'k');
    expect(a.dirtyCas).toBe(true);
    expect(b.dirtyCas).toBe(true);
    expect(a.watched).toEqual([]);
    expect(db.watched.size).toBe(0);
  });

  it('watching the same key twice in one database is one watch', () => {
    const db = new Database(0, host());
    const db1 = new Database(1, host());
    const a = watcher();
    watchKey(a, db, 'k');
    watchKey(a, db, 'k');
    watchKey(a, db1, 'k');
    expect(a.watched.length).toBe(2);
    expect(db.watched.get('k')!.length).toBe(1);
    unwatchAll(a);
    expect(db.watched.size).toBe(0);
    expect(db1.watched.size).toBe(0);
  });

  it('a key expired when watched is not a change when it goes away', () => {
    const h = host();
    const db = new Database(0, h);
    db.add('k', 'v');
    db.setExpire('k', 500);
    const a = watcher();
    watchKey(a, db, 'k');
    expect(a.watched[0]!.expired).toBe(true);
    expect(isWatchedKeyExpired(a)).toBe(false);
    db.expireIfNeeded('k');
    expect(a.dirtyCas).toBe(false);
    expect(a.watched[0]!.expired).toBe(false);
    // Once gone, creating it again is a change.
    db.add('k', 'v2');
    touchWatchedKey(db, 'k');
    expect(a.dirtyCas).toBe(true);
  });

  it('a live watched key that expires before EXEC is reported', () => {
    const h = host();
    const db = new Database(0, h);
    db.add('k', 'v');
    db.setExpire('k', 1500);
    const a = watcher();
    watchKey(a, db, 'k');
    expect(isWatchedKeyExpired(a)).toBe(false);
    h.nowMs = 1501;
    expect(isWatchedKeyExpired(a)).toBe(true);
  });

  it('FLUSHDB touches only watched keys that existed', () => {
    const db = new Database(0, host());
    db.add('there', 'v');
    const a = watcher();
    const b = watcher();
    watchKey(a, db, 'there');
    watchKey(b, db, 'missing');
    touchAllWatchedKeysInDb(db, null);
    expect(a.dirtyCas).toBe(true);
    expect(b.dirtyCas).toBe(false);
  });

  it('SWAPDB: a missing key replaced by a stale one is no change, but marks the watch expired', () => {
    const h = host();
    const db0 = new Database(0, h);
    const db1 = new Database(1, h);
    db1.add('k', 'v');
    db1.setExpire('k', 10);
    const a = watcher();
    watchKey(a, db0, 'k');
    touchAllWatchedKeysInDb(db0, db1);
    expect(a.dirtyCas).toBe(false);
    expect(a.watched[0]!.expired).toBe(true);
  });

  it('SWAPDB: a missing key replaced by a live one is a change', () => {
    const h = host();
    const db0 = new Database(0, h);
    const db1 = new Database(1, h);
    db1.add('k', 'v');
    const a = watcher();
    watchKey(a, db0, 'k');
    touchAllWatchedKeysInDb(db0, db1);
    expect(a.dirtyCas).toBe(true);
  });
});
