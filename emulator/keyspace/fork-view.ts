import type { Database } from './database.js';
import type { Value } from './values.js';
import type { AccessStamps } from './access-stamps.js';

/**
 * What a forked child sees of the dataset: the databases as they were at
 * the fork, while the parent goes on changing them. Like the pages of a
 * forked process, a key is copied only when the parent is about to change
 * it and the child has not written it yet: `beforeWrite` saves the key's
 * fork-time record then (or that it did not exist). The child walks the
 * fork-time tables, takes a saved record over the live value, and finally
 * writes the saved keys the parent has since deleted.
 *
 * A table the parent stops using (FLUSHDB, FLUSHALL give the database new
 * ones) is frozen: nothing changes it any more, so nothing needs saving.
 */
export interface ForkedDb {
  readonly id: number;
  /** The database's key table at the fork (the same object while the parent keeps it). */
  readonly dict: Map<string, Value>;
  /** Its expires and access tables at the fork. */
  readonly expires: Map<string, number>;
  readonly access: AccessStamps;
  readonly size: number;
  readonly expiresSize: number;
  /** Fork-time records of keys changed since: the bytes, or null when the key did not exist then. */
  readonly saved: Map<string, Uint8Array | null>;
  /**
   * Keys the child has written, kept from the parent's first change to the
   * table on: until then `walked` counts the entries of the table the
   * child's walk has written, which are the table's first ones, as nothing
   * has changed it yet. A sync during which the parent writes nothing thus
   * keeps no set of a million keys.
   */
  written: KeySet | null;
  /** Entries of the table the child's walk wrote while `written` was not kept. */
  walked: number;
  /** Keys the child had written that the parent deleted and made again: the walk may meet them again and must pass them by. */
  readonly remade: Set<string>;
  frozen: boolean;
}

/** How a key's fork-time state is kept: its serialized record (the child's output format). */
export type KeyRecorder = (db: Database, key: string, value: Value) => Uint8Array;

export class ForkView {
  readonly dbs: ForkedDb[];
  /** The forked databases by their table, since SWAPDB moves tables between databases. */
  private readonly byTable = new Map<Map<string, Value>, ForkedDb>();

  constructor(
    databases: readonly Database[],
    private readonly record: KeyRecorder,
  ) {
    this.dbs = databases.map((db) => ({
      id: db.id,
      dict: db.dict,
      expires: db.expires,
      access: db.access,
      size: db.dict.size,
      expiresSize: db.expires.size,
      saved: new Map(),
      written: null,
      walked: 0,
      remade: new Set(),
      frozen: false,
    }));
    for (const f of this.dbs) this.byTable.set(f.dict, f);
  }

  /** The parent is about to change `key` in `db` (its value, its expiry, or its existence). */
  beforeWrite(db: Database, key: string): void {
    const f = this.byTable.get(db.dict);
    if (f === undefined || f.frozen || f.saved.has(key)) return;
    const value = db.dict.get(key);
    if (writtenKeys(f).has(key)) {
      if (value === undefined) f.remade.add(key);
      return;
    }
    f.saved.set(key, value === undefined ? null : this.record(db, key, value));
  }

  /** The parent replaces `db`'s table: the old one stays as it is. */
  beforeClear(db: Database): void {
    const f = this.byTable.get(db.dict);
    if (f !== undefined) f.frozen = true;
  }
}

/** The child wrote `key`: the next entry of its walk over the table when `inWalk`, else one of the saved records. */
export function markWritten(f: ForkedDb, key: string, inWalk: boolean): void {
  if (f.written === null && inWalk) f.walked++;
  else writtenKeys(f).add(key);
}

/** The keys the child has written, made from the table's first entries the first time they are asked for. */
export function writtenKeys(f: ForkedDb): KeySet {
  if (f.written !== null) return f.written;
  const written = new KeySet();
  let n = f.walked;
  if (n !== 0) {
    for (const key of f.dict.keys()) {
      written.add(key);
      if (--n === 0) break;
    }
  }
  f.written = written;
  return written;
}

/**
 * A set of keys in many small tables rather than one: a single table of a
 * million keys stops everything for tens of milliseconds each time it
 * doubles, while many small ones grow a little at a time.
 */
export class KeySet {
  private readonly shards: Set<string>[] = [];

  constructor() {
    for (let i = 0; i < KEY_SET_SHARDS; i++) this.shards.push(new Set());
  }

  private shard(key: string): Set<string> {
    // A cheap spread over the end of the key, where names like "key:123" differ.
    const n = key.length;
    let h = n;
    for (let i = Math.max(0, n - 4); i < n; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
    return this.shards[h & (KEY_SET_SHARDS - 1)]!;
  }

  has(key: string): boolean {
    return this.shard(key).has(key);
  }

  add(key: string): void {
    this.shard(key).add(key);
  }
}

const KEY_SET_SHARDS = 256;
