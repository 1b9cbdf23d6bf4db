import { encodingOf, isIntEncodable, type Value } from '../keyspace/values.js';
import { asciiUpper } from '../resp/bytes.js';
import { StatusReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { LFU_INIT_VAL, lfuCounter } from '../server/lfu.js';
import type { Handler } from '../server/command-table.js';

/**
 * OBJECT ENCODING | REFCOUNT | IDLETIME | FREQ | HELP (src/object.c). Each
 * looks the key up without touching its access time, but counts a
 * keyspace hit or miss.
 */

/** Redis's OBJ_SHARED_REFCOUNT: the refcount of the shared small integers. */
const SHARED_REFCOUNT = 2147483647;
/** Integers 0..9999 are shared objects (OBJ_SHARED_INTEGERS). */
const SHARED_INTEGERS = 10000;
/** The LRU clock is 24 bits of seconds (LRU_CLOCK_MAX). */
const LRU_CLOCK_MAX = (1 << 24) - 1;

const NOT_LFU = errorReply(
  'An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.',
);
const IS_LFU = errorReply(
  'An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.',
);

function isLfuPolicy(c: Client): boolean {
  return c.server.config.get('maxmemory-policy').endsWith('-lfu');
}

function lookup(c: Client, argv: string[]): Value | undefined {
  // OBJECT counts the lookup but publishes no keymiss event (objectCommandLookup).
  return c.db.lookupNoTouch(argv[2]!, true, false);
}

function objectEncoding(c: Client, argv: string[]): Reply {
  const v = lookup(c, argv);
  return v === undefined ? null : encodingOf(v);
}

/**
 * A string holding an integer 0..9999 is one of the server's shared
 * objects, unless maxmemory with an LRU or LFU policy asks every key to
 * have its own (tryObjectEncoding). Everything else has a single owner.
 */
function objectRefcount(c: Client, argv: string[]): Reply {
  const v = lookup(c, argv);
  if (v === undefined) return null;
  if (typeof v === 'string' && isIntEncodable(v) && v.charCodeAt(0) !== 45 && v.length <= 4 && Number(v) < SHARED_INTEGERS) {
    const policy = c.server.config.get('maxmemory-policy');
    const ownCopies = c.server.config.getNumber('maxmemory') !== 0 && (policy.endsWith('-lru') || policy.endsWith('-lfu'));
    if (!ownCopies) return SHARED_REFCOUNT;
  }
  return 1;
}

function objectIdletime(c: Client, argv: string[]): Reply {
  const key = argv[2]!;
  const v = lookup(c, argv);
  if (v === undefined) return null;
  if (isLfuPolicy(c)) return IS_LFU;
  const now = c.server.lruClock;
  const last = c.db.access.get(key) ?? now;
  return now >= last ? now - last : now + (LRU_CLOCK_MAX - last);
}

function objectFreq(c: Client, argv: string[]): Reply {
  const v = lookup(c, argv);
  if (v === undefined) return null;
  if (!isLfuPolicy(c)) return NOT_LFU;
  return lfuCounter(c.server, c.db.access.get(argv[2]!) ?? LFU_INIT_VAL);
}

const HELP_LINES = [
  'ENCODING <key>',
  '    Name the internal representation of the value at <key>: int, embstr, raw,',
  '    quicklist, listpack, hashtable, intset or skiplist.',
  'FREQ <key>',
  '    Give the logarithmic access counter of <key>. Needs an LFU',
  '    maxmemory-policy.',
  'IDLETIME <key>',
  '    Give the seconds since <key> was last read or written. Not available',
  '    under an LFU maxmemory-policy.',
  'REFCOUNT <key>',
  '    Give the number of references to the value at <key>; shared small',
  '    integers report 2147483647.',
];

/** A HELP reply: a header naming the command, the lines, then HELP itself. */
export function helpReply(commandName: string, lines: readonly string[]): Reply {
  const out: Reply[] = [new StatusReply(`${asciiUpper(commandName)} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:`)];
  for (const l of lines) out.push(new StatusReply(l));
  out.push(new StatusReply('HELP'), new StatusReply('    Print this help.'));
  return out;
}

function objectHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, HELP_LINES);
}

export const objectCommands: Record<string, Handler> = {
  'object|encoding': objectEncoding,
  'object|refcount': objectRefcount,
  'object|idletime': objectIdletime,
  'object|freq': objectFreq,
  'object|help': objectHelp,
};
