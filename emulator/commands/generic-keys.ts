import { globMatch } from '../keyspace/glob.js';
import { parseScanCursor } from '../keyspace/scan.js';
import { errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { intArg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { typeName } from './lookup.js';
import type { Handler } from '../server/command-table.js';

/**
 * The commands that walk the keyspace: KEYS, SCAN, RANDOMKEY (src/db.c).
 * None of them ever shows a key whose TTL has passed.
 */

/** KEYS: every matching key; logically expired keys are skipped but not deleted. */
function keys(c: Client, argv: string[]): Reply {
  const pattern = argv[1]!;
  const all = pattern === '*';
  const db = c.db;
  const checkTtl = db.expires.size !== 0;
  const out: Reply[] = [];
  for (const key of db.dict.keys()) {
    if (!all && !globMatch(pattern, key)) continue;
    if (checkTtl && db.isExpired(key)) continue;
    out.push(key);
  }
  return out;
}

export const INVALID_CURSOR = errorReply('invalid cursor');

/**
 * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] (scanGenericCommand
 * for the keyspace). COUNT keys are taken from the cursor first, then
 * filtered: by pattern, by type (a lookup that counts a keyspace hit or
 * miss), and expired keys are deleted and dropped.
 */
function scan(c: Client, argv: string[]): Reply {
  const cursor = parseScanCursor(argv[1]!);
  if (cursor === null) return INVALID_CURSOR;
  let count = 10;
  let pattern: string | null = null;
  let wantType: string | null = null;
  for (let i = 2; i < argv.length; i += 2) {
    const o = opt(argv[i]!);
    const hasValue = i + 1 < argv.length;
    if (o === 'count' && hasValue) {
      const n = intArg(argv[i + 1]!);
      if (n === null) return NOT_INTEGER;
      if (n < 1) return SYNTAX_ERROR;
      count = n;
    } else if (o === 'match' && hasValue) {
      const p = argv[i + 1]!;
      pattern = p === '*' ? null : p;
    } else if (o === 'type' && hasValue) {
      wantType = opt(argv[i + 1]!);
    } else {
      return SYNTAX_ERROR;
    }
  }
  const db = c.db;
  const dict = db.dict;
  const { next, items } = c.server.scanCursors.scan(cursor, dict, () => dict.keys(), count);
  const out: Reply[] = [];
  for (const key of items) {
    if (pattern !== null && !globMatch(pattern, key)) continue;
    // Only a key that still exists is reported, and only its current type counts.
    if (wantType !== null && typeName(db.lookupNoTouch(key, true)) !== wantType) continue;
    if (db.expires.size !== 0 && db.expireIfNeeded(key)) continue;
    out.push(key);
  }
  return [next.toString(), out];
}

/**
 * RANDOMKEY (dbRandomKey): a uniformly chosen key; an expired pick is
 * deleted and another one drawn. A replica cannot delete, so when every key
 * has a TTL it gives up after 100 expired picks and returns the last one.
 */
function randomkey(c: Client): Reply {
  const db = c.db;
  const random = c.server.random;
  const allVolatile = db.dict.size === db.expires.size;
  let tries = 100;
  for (;;) {
    if (db.dict.size === 0) return null;
    const key = drawKey(db.dict, random);
    if (!db.expires.has(key)) return key;
    if (allVolatile && !c.server.mayDeleteExpired && --tries === 0) return key;
    if (!db.expireIfNeeded(key)) return key;
  }
}

/**
 * A JavaScript Map cannot be indexed, so RANDOMKEY draws from a list of the
 * keys taken once and reused while it still looks current: it is rebuilt
 * when the number of keys changed or a drawn key is gone. A quiet keyspace
 * thus costs O(1) a draw, as Redis's dictGetFairRandomKey does.
 */
const keyLists = new WeakMap<Map<string, unknown>, string[]>();

function drawKey(dict: Map<string, unknown>, random: { below(n: number): number }): string {
  let keys = keyLists.get(dict);
  for (;;) {
    if (keys === undefined || keys.length !== dict.size) {
      keys = Array.from(dict.keys());
      keyLists.set(dict, keys);
    }
    const key = keys[random.below(keys.length)]!;
    if (dict.has(key)) return key;
    keys = undefined;
  }
}

export const keysCommands: Record<string, Handler> = {
  keys,
  scan,
  randomkey,
};
