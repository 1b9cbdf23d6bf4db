import type { HashValue, ListValue, SetValue, TypeName, Value, ZSetValue } from '../keyspace/values.js';
import type { Client } from '../server/client.js';
import { WRONGTYPE } from '../server/errors.js';

/**
 * Typed key lookups and the steps every write takes (STYLE.md: change the
 * value, signal the modified key for WATCH, count the change in `dirty`).
 */

type Typed = { list: ListValue; hash: HashValue; set: SetValue; zset: ZSetValue };

/**
 * The value at key for reading, if it has the type: undefined when the key
 * is missing, WRONGTYPE when it holds another type. Counts a hit or miss.
 */
export function readTyped<T extends keyof Typed>(c: Client, key: string, type: T): Typed[T] | undefined | typeof WRONGTYPE {
  const v = c.db.lookupRead(key);
  if (v === undefined) return undefined;
  if (typeof v === 'string' || v.type !== type) return WRONGTYPE;
  return v as Typed[T];
}

/** Like readTyped, for a key about to be written: no stats. */
export function writeTyped<T extends keyof Typed>(c: Client, key: string, type: T): Typed[T] | undefined | typeof WRONGTYPE {
  const v = c.db.lookupWrite(key);
  if (v === undefined) return undefined;
  if (typeof v === 'string' || v.type !== type) return WRONGTYPE;
  return v as Typed[T];
}

/** Records a change to key: WATCH is signalled and `dirty` grows by `changes`. */
export function modified(c: Client, key: string, changes = 1): void {
  c.server.keyModified(c.db, key);
  c.server.dirty += changes;
}

/** Deletes a key (for instance a collection that became empty) and signals it. */
export function deleteKey(c: Client, key: string): boolean {
  if (!c.db.delete(key)) return false;
  c.server.keyModified(c.db, key);
  return true;
}

/** TYPE's name for a value, "none" for a missing key. */
export function typeName(v: Value | undefined): TypeName | 'none' {
  if (v === undefined) return 'none';
  return typeof v === 'string' ? 'string' : v.type;
}
