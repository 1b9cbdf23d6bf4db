/**
 * What each RDB type byte means (src/rdb.h): the constant's name, the
 * type TYPE reports for the value, and how the file stores it. A string's
 * encoding depends on its first byte, which the record reader looks at.
 */
export interface RdbTypeInfo {
  readonly name: string;
  readonly type: string;
  readonly encoding: string;
}

const TYPES: Record<number, RdbTypeInfo> = {
  0: { name: 'RDB_TYPE_STRING', type: 'string', encoding: 'raw' },
  1: { name: 'RDB_TYPE_LIST', type: 'list', encoding: 'linkedlist' },
  2: { name: 'RDB_TYPE_SET', type: 'set', encoding: 'hashtable' },
  3: { name: 'RDB_TYPE_ZSET', type: 'zset', encoding: 'skiplist' },
  4: { name: 'RDB_TYPE_HASH', type: 'hash', encoding: 'hashtable' },
  5: { name: 'RDB_TYPE_ZSET_2', type: 'zset', encoding: 'skiplist' },
  6: { name: 'RDB_TYPE_MODULE', type: 'module', encoding: 'module' },
  7: { name: 'RDB_TYPE_MODULE_2', type: 'module', encoding: 'module' },
  9: { name: 'RDB_TYPE_HASH_ZIPMAP', type: 'hash', encoding: 'zipmap' },
  10: { name: 'RDB_TYPE_LIST_ZIPLIST', type: 'list', encoding: 'ziplist' },
  11: { name: 'RDB_TYPE_SET_INTSET', type: 'set', encoding: 'intset' },
  12: { name: 'RDB_TYPE_ZSET_ZIPLIST', type: 'zset', encoding: 'ziplist' },
  13: { name: 'RDB_TYPE_HASH_ZIPLIST', type: 'hash', encoding: 'ziplist' },
  14: { name: 'RDB_TYPE_LIST_QUICKLIST', type: 'list', encoding: 'quicklist (ziplist nodes)' },
  15: { name: 'RDB_TYPE_STREAM_LISTPACKS', type: 'stream', encoding: 'stream' },
  16: { name: 'RDB_TYPE_HASH_LISTPACK', type: 'hash', encoding: 'listpack' },
  17: { name: 'RDB_TYPE_ZSET_LISTPACK', type: 'zset', encoding: 'listpack' },
  18: { name: 'RDB_TYPE_LIST_QUICKLIST_2', type: 'list', encoding: 'quicklist' },
  19: { name: 'RDB_TYPE_STREAM_LISTPACKS_2', type: 'stream', encoding: 'stream' },
};

export function rdbTypeInfo(code: number): RdbTypeInfo {
  return TYPES[code] ?? { name: `unknown type ${code}`, type: 'unknown', encoding: 'unknown' };
}

/** What the aux fields Redis 7.0 writes (rdbSaveInfoAuxFields) say, for a reader who has never seen one. */
export const AUX_FIELDS: Readonly<Record<string, string>> = {
  'redis-ver': 'the version of the Redis that wrote the file',
  'redis-bits': 'whether that Redis was a 32- or 64-bit build',
  ctime: 'when the file was written (Unix time, seconds)',
  'used-mem': 'memory the server used when it saved (bytes)',
  'repl-stream-db': 'the database the replication stream had selected',
  'repl-id': 'the replication ID of the dataset',
  'repl-offset': 'the replication offset the dataset corresponds to',
  'aof-base': '1 when the file is the base of an append-only file',
  'aof-preamble': '1 when the file is the RDB preamble of an append-only file',
  lua: 'a Lua script (old versions)',
};
