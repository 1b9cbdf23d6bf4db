/**
 * The access data of every key of a database (the 24 bits Redis keeps in
 * each object's `lru` field: the LRU clock of the last access, or the LFU
 * counter with its minute), read by OBJECT IDLETIME and FREQ, eviction,
 * DEBUG OBJECT and files saved under an LRU or LFU policy.
 *
 * A key's stamp is the database's base stamp (the first one ever given to
 * one of its keys) unless it was given another, which is kept by key. Keys
 * made in bulk within one tick of the LRU clock, as an RDB file loaded at
 * start, a full sync or DEBUG POPULATE makes them, share the base stamp and
 * cost no table entry; a Map entry per key would be about a quarter of the
 * memory of a million small string keys. The answers are those of one entry
 * per key: only existing keys are ever asked about, and every key is given
 * a stamp when it is made.
 */
export class AccessStamps {
  private base: number | undefined = undefined;
  private readonly others = new Map<string, number>();

  /** The key's stamp; undefined only before any key was stamped. */
  get(key: string): number | undefined {
    const own = this.others.size === 0 ? undefined : this.others.get(key);
    return own !== undefined ? own : this.base;
  }

  set(key: string, stamp: number): void {
    if (this.base === undefined) this.base = stamp;
    if (stamp === this.base) {
      if (this.others.size !== 0) this.others.delete(key);
    } else {
      this.others.set(key, stamp);
    }
  }

  /** The key is gone: a stamp of its own is forgotten with it. */
  delete(key: string): void {
    if (this.others.size !== 0) this.others.delete(key);
  }

  /** Keys whose stamp is not the base one (what the table keeps besides it). */
  get ownStamps(): number {
    return this.others.size;
  }
}
