import { globMatch } from '../keyspace/glob.js';
import { parseScanCursor } from '../keyspace/scan.js';
import { parseInt64 } from '../numbers/int64.js';
import { EMPTY_ARRAY, ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { readTyped } from './lookup.js';
import { membersInOrder } from './set-type.js';

/**
 * SSCAN key cursor [MATCH pattern] [COUNT count] (sscanCommand and
 * scanGenericCommand in src/db.c). The cursor is checked first, then the
 * key, and only then the options: a missing key answers the empty scan
 * whatever options follow.
 */

const INVALID_CURSOR = errorReply('invalid cursor');
const EMPTY_SCAN: Reply = ['0', EMPTY_ARRAY];

export function sscan(c: Client, argv: string[]): Reply {
  const cursor = parseScanCursor(argv[2]!);
  if (cursor === null) return INVALID_CURSOR;
  const s = readTyped(c, argv[1]!, 'set');
  if (s === undefined) return EMPTY_SCAN;
  if (s instanceof ErrorReply) return s;

  let count = 10;
  let pattern: string | null = null;
  for (let i = 3; i < argv.length; i += 2) {
    const o = opt(argv[i]!);
    const hasValue = i + 1 < argv.length;
    if (o === 'count' && hasValue) {
      const n = parseInt64(argv[i + 1]!);
      if (n === null) return NOT_INTEGER;
      if (n < 1) return SYNTAX_ERROR;
      count = typeof n === 'bigint' ? Number.MAX_SAFE_INTEGER : n;
    } else if (o === 'match' && hasValue) {
      // "*" alone matches everything: the same as no pattern.
      const p = argv[i + 1]!;
      pattern = p === '*' ? null : p;
    } else {
      return SYNTAX_ERROR;
    }
  }

  let next = 0n;
  let items: string[];
  if (s.encoding === 'hashtable') {
    const set = s.set;
    const page = c.server.scanCursors.scan(cursor, set, () => set.values(), count);
    next = page.next;
    items = page.items;
  } else {
    // An intset is small by construction: all of it in one reply, in
    // numeric order, and the scan is over.
    items = membersInOrder(s);
  }
  if (pattern !== null) {
    const p = pattern;
    items = items.filter((m) => globMatch(p, m));
  }
  return [String(next), items];
}
