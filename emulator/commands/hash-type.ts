import { HashValue } from '../keyspace/values.js';
import { ErrorReply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { writeTyped } from './lookup.js';

/**
 * The hash type's storage rules (src/t_hash.c): a hash starts as a listpack
 * and becomes a hash table, for good, once a field or value is longer than
 * hash-max-listpack-value bytes or it holds more than
 * hash-max-listpack-entries fields. While it is a listpack, the Map's
 * insertion order is the listpack order: new fields are appended, updated
 * fields keep their place, deleted fields leave a gap that closes up.
 */

/** The hash at key for writing, created empty (and added) when missing. */
export function hashForWrite(c: Client, key: string): HashValue | ErrorReply {
  const h = writeTyped(c, key, 'hash');
  if (h instanceof ErrorReply) return h;
  if (h !== undefined) return h;
  const created = new HashValue('listpack');
  c.db.add(key, created);
  return created;
}

/**
 * Converts a listpack hash before arguments argv[start..end] are written
 * into it, when any of them is too long for a listpack entry
 * (hashTypeTryConversion). Only lengths are checked here; the field count is
 * checked after each insertion by hashSet.
 */
export function convertForArgs(c: Client, h: HashValue, argv: string[], start: number, end: number): void {
  if (h.encoding !== 'listpack') return;
  const maxValue = c.server.config.getNumber('hash-max-listpack-value');
  for (let i = start; i <= end; i++) {
    if (argv[i]!.length > maxValue) {
      h.encoding = 'hashtable';
      return;
    }
  }
}

/**
 * Sets a field (hashTypeSet); returns true when the field existed. A field
 * or value too long for a listpack converts first (this matters for
 * HINCRBY and HINCRBYFLOAT, whose new value was not an argument).
 */
export function hashSet(c: Client, h: HashValue, field: string, value: string): boolean {
  const map = h.map;
  if (h.encoding === 'listpack') {
    const maxValue = c.server.config.getNumber('hash-max-listpack-value');
    if (field.length > maxValue || value.length > maxValue) h.encoding = 'hashtable';
  }
  const existed = map.has(field);
  map.set(field, value);
  if (h.encoding === 'listpack' && map.size > c.server.config.getNumber('hash-max-listpack-entries')) {
    h.encoding = 'hashtable';
  }
  return existed;
}
