import { createStore, delMany, get, getMany, keys, setMany } from 'idb-keyval';

/**
 * Where the session is kept between visits: IndexedDB in the page, a Map
 * in tests. Values are structured-clonable data.
 */
export interface KeyValueStore {
  get(key: string): Promise<unknown>;
  getMany(keys: readonly string[]): Promise<unknown[]>;
  /** Writes several entries in one transaction. */
  setMany(entries: ReadonlyArray<readonly [string, unknown]>): Promise<void>;
  delMany(keys: readonly string[]): Promise<void>;
  keys(): Promise<string[]>;
}

/** The page's store: its own IndexedDB database, so nothing else on the origin shares its keys. */
export function indexedDbStore(dbName = 'redis-workbook', storeName = 'session'): KeyValueStore {
  const store = createStore(dbName, storeName);
  return {
    get: (key) => get(key, store),
    getMany: (ks) => getMany([...ks], store),
    setMany: (entries) => setMany(entries as Array<[string, unknown]>, store),
    delMany: (ks) => delMany([...ks], store),
    keys: async () => (await keys(store)).map(String),
  };
}

/** A store in memory, with IndexedDB's copy-on-write semantics (structuredClone), for tests and when IndexedDB is unavailable. */
export class MemoryStore implements KeyValueStore {
  readonly data = new Map<string, unknown>();
  /** How many entries were written, for tests that check saves stay incremental. */
  writes = 0;

  get(key: string): Promise<unknown> {
    return Promise.resolve(this.data.has(key) ? structuredClone(this.data.get(key)) : undefined);
  }

  getMany(keys: readonly string[]): Promise<unknown[]> {
    return Promise.all(keys.map((k) => this.get(k)));
  }

  setMany(entries: ReadonlyArray<readonly [string, unknown]>): Promise<void> {
    for (const [k, v] of entries) this.data.set(k, structuredClone(v));
    this.writes += entries.length;
    return Promise.resolve();
  }

  delMany(keys: readonly string[]): Promise<void> {
    for (const k of keys) this.data.delete(k);
    return Promise.resolve();
  }

  keys(): Promise<string[]> {
    return Promise.resolve([...this.data.keys()]);
  }
}

