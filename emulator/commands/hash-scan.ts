import { globMatch } from '../keyspace/glob.js';
import { parseScanCursor } from '../keyspace/scan.js';
import { ErrorReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { intArg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { readTyped } from './lookup.js';
import { cString } from '../numbers/c-string.js';

/**
 * HSCAN key cursor [MATCH pattern] [COUNT count] (src/t_hash.c hscanCommand
 * and src/db.c scanGenericCommand).
 *
 * A listpack hash is small by construction, so all of it comes back in one
 * call, in listpack order, with cursor 0, whatever cursor was asked for. A
 * hash table is walked with the server's scan cursors (keyspace/scan.ts);
 * COUNT is then how many fields to visit, before MATCH filters them.
 */

export interface ScanOptions {
  count: number;
  /** null when every element matches (no MATCH, or MATCH *). */
  pattern: string | null;
}

/**
 * SCAN's options from argv[start] on: COUNT must be a positive integer,
 * the last MATCH wins, anything else is a syntax error.
 */
export function parseScanOptions(argv: string[], start: number): ScanOptions | ErrorReply {
  let count = 10;
  let pattern: string | null = null;
  for (let i = start; i < argv.length; i += 2) {
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
    } else {
      return SYNTAX_ERROR;
    }
  }
  return { count, pattern };
}

/** strtoul stops at a NUL byte, so the cursor is read as a C string. */
function cursorArg(arg: string): bigint | null {
  return parseScanCursor(cString(arg));
}

const EMPTY_SCAN: Reply = ['0', []];

export function hscan(c: Client, argv: string[]): Reply {
  const cursor = cursorArg(argv[2]!);
  if (cursor === null) return errorReply('invalid cursor');
  // A missing key answers before the options are even parsed.
  const h = readTyped(c, argv[1]!, 'hash');
  if (h === undefined) return EMPTY_SCAN;
  if (h instanceof ErrorReply) return h;
  const options = parseScanOptions(argv, 3);
  if (options instanceof ErrorReply) return options;

  let next = 0n;
  let pairs: Iterable<[string, string]> = h.map;
  if (h.encoding === 'hashtable') {
    const step = c.server.scanCursors.scan(cursor, h, () => h.map.entries(), options.count);
    next = step.next;
    pairs = step.items;
  }
  const pattern = options.pattern;
  const flat: Reply[] = [];
  for (const [field, value] of pairs) {
    if (pattern !== null && !globMatch(pattern, field)) continue;
    flat.push(field, value);
  }
  return [next.toString(), flat];
}
