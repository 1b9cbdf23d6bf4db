import { stringOf, type Value } from '../../keyspace/values.js';
import { formatDouble } from '../../numbers/double.js';
import type { RdbDatabase } from '../rdb/file-writer.js';
import { aofRecord, timestampAnnotation } from './records.js';

/**
 * The base file a rewrite writes with aof-use-rdb-preamble no
 * (rewriteAppendOnlyFileRio in src/aof.c): function libraries as FUNCTION
 * LOAD, then for each non-empty database a SELECT and one or more commands
 * per key (SET, RPUSH, SADD, ZADD, HMSET, at most 64 elements each),
 * followed by PEXPIREAT for a key with a TTL. With aof-use-rdb-preamble
 * yes (the default) the base is an RDB file instead: writeRdb with
 * `aofBase: true`.
 *
 *   const text = rewriteAof(snapshotDatabases(server), { functions });
 *   // "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n..."
 *
 * Elements come in the order of their encoding, as Redis walks them: a
 * list from head to tail, an intset in ascending order, a listpack in its
 * order; for hash tables the emulator's own order stands in for Redis's.
 */

/** AOF_REWRITE_ITEMS_PER_CMD. */
export const REWRITE_ITEMS_PER_COMMAND = 64;

export interface AofRewriteOptions {
  /** Library sources, written as FUNCTION LOAD. */
  functions?: readonly string[];
  /** With aof-timestamp-enabled, the time (unix seconds) annotated at the start. */
  timestampSeconds?: number;
}

/** Commands of `name key e1 e2 ...` with at most 64 items each; an item may span several arguments. */
function chunked(name: string, key: string, items: string[][]): string {
  let out = '';
  for (let i = 0; i < items.length; i += REWRITE_ITEMS_PER_COMMAND) {
    const argv = [name, key];
    for (const item of items.slice(i, i + REWRITE_ITEMS_PER_COMMAND)) argv.push(...item);
    out += aofRecord(argv);
  }
  return out;
}

/**
 * A key whose value the commands of a rewrite cannot rebuild: a stream,
 * which the emulator keeps as stored but has no commands for (Redis
 * would write XADD, XSETID and XGROUP commands). The rewrite then fails
 * rather than write a base that has lost the key.
 */
export class NotRewritable {
  constructor(
    readonly dbId: number,
    readonly key: string,
  ) {}
}

function valueCommands(key: string, v: Value): string | null {
  if (typeof v === 'string' || v.type === 'string') return aofRecord(['SET', key, stringOf(v)]);
  switch (v.type) {
    case 'list':
      return chunked('RPUSH', key, v.items.toArray().map((e) => [e]));
    case 'set': {
      const members = [...v.set];
      if (v.encoding === 'intset') members.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
      return chunked('SADD', key, members.map((m) => [m]));
    }
    case 'zset': {
      const pairs: string[][] = [];
      if (v.encoding === 'listpack') for (const node of v.list) pairs.push([formatDouble(node.score), node.member]);
      else for (const [member, score] of v.dict) pairs.push([formatDouble(score), member]);
      return chunked('ZADD', key, pairs);
    }
    case 'hash':
      return chunked('HMSET', key, [...v.map].map(([f, val]) => [f, val]));
    case 'stream':
      return null;
  }
}

export function rewriteAof(databases: Iterable<RdbDatabase>, opts: AofRewriteOptions = {}): string | NotRewritable {
  let out = opts.timestampSeconds !== undefined ? timestampAnnotation(opts.timestampSeconds) : '';
  for (const code of opts.functions ?? []) out += aofRecord(['FUNCTION', 'LOAD', code]);
  for (const db of databases) {
    if (db.size === 0) continue;
    out += aofRecord(['SELECT', String(db.id)]);
    for (const k of db.keys) {
      const commands = valueCommands(k.key, k.value);
      if (commands === null) return new NotRewritable(db.id, k.key);
      out += commands;
      if (k.expireAtMs !== undefined) out += aofRecord(['PEXPIREAT', k.key, String(k.expireAtMs)]);
    }
  }
  return out;
}
