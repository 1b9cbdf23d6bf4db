import { Database } from '../keyspace/database.js';
import { Deque } from '../keyspace/deque.js';
import { SkipList } from '../keyspace/skiplist.js';
import { StringObject, type ObjectValue, type Value } from '../keyspace/values.js';
import type { Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { opt } from './args.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import { getExpireExact } from '../keyspace/expire-exact.js';
import { setExpireBy } from './set-expire.js';
import { SAME_OBJECT, dbArg } from './generic-rename.js';
import type { Handler } from '../server/command-table.js';

/**
 * COPY source destination [DB db] [REPLACE] (copyCommand in src/db.c).
 */

/**
 * An independent copy of a value with the same encoding (Redis's
 * dupStringObject, listTypeDup, setTypeDup, zsetDup, hashTypeDup). Scalar
 * fields are copied as they are; every container is rebuilt, so that later
 * writes to either key never show through the other.
 */
export function duplicateValue(v: Value): Value {
  if (typeof v === 'string') return v;
  // A string object may hold an edit buffer: start a new one from its bytes.
  if (v.type === 'string') return new StringObject(v.s, v.encoding);
  const copy = Object.assign(Object.create(Object.getPrototypeOf(v) as object) as ObjectValue, v);
  const w = copy as unknown as Record<string, unknown>;
  switch (v.type) {
    case 'list':
      w.items = Deque.from(v.items.toArray());
      break;
    case 'hash':
      w.map = new Map(v.map);
      break;
    case 'set':
      w.set = new Set(v.set);
      break;
    case 'zset': {
      const dict = new Map<string, number>();
      const list = new SkipList();
      for (let node = v.list.first(); node !== null; node = node.next[0] ?? null) {
        list.insert(node.score, node.member);
        dict.set(node.member, node.score);
      }
      w.dict = dict;
      w.list = list;
      break;
    }
  }
  return copy;
}

function copy(c: Client, argv: string[]): Reply {
  const src = c.db;
  let dst: Database = src;
  let replace = false;
  for (let j = 3; j < argv.length; j++) {
    const o = opt(argv[j]!);
    if (o === 'replace') {
      replace = true;
    } else if (o === 'db' && j + 1 < argv.length) {
      const db = dbArg(c, argv[++j]!);
      if (!(db instanceof Database)) return db;
      dst = db;
    } else {
      return SYNTAX_ERROR;
    }
  }
  const key = argv[1]!;
  const newKey = argv[2]!;
  if (src === dst && key === newKey) return SAME_OBJECT;
  const value = src.lookupRead(key);
  if (value === undefined) return 0;
  const when = getExpireExact(src, key);
  const exists = dst.lookupWrite(newKey) !== undefined;
  if (exists && !replace) return 0;
  const dup = duplicateValue(value);
  if (exists) dst.delete(newKey);
  dst.add(newKey, dup);
  if (when !== undefined) setExpireBy(c, dst, newKey, when);
  c.server.keyModified(dst, newKey);
  notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'copy_to', newKey, dst.id);
  c.server.dirty++;
  return 1;
}

export const copyCommands: Record<string, Handler> = {
  copy,
};
