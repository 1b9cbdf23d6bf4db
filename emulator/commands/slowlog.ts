import { OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { int64Arg } from './args.js';
import { helpReply, subcommandSyntaxError } from './command-help.js';
import type { Handler } from '../server/command-table.js';

/**
 * SLOWLOG GET, LEN, RESET and HELP (src/slowlog.c). The log itself, and
 * what goes into it, is server/slowlog.ts; call() feeds it.
 */

/** SLOWLOG GET [count]: the newest `count` entries (10 by default, -1 for all). */
function slowlogGet(c: Client, argv: string[]): Reply {
  if (argv.length > 3) return subcommandSyntaxError(argv);
  const entries = c.server.slowlog.entries;
  let count = 10;
  if (argv.length === 3) {
    const n = int64Arg(argv[2]!);
    if (n === null || n < -1) return errorReply('count should be greater than or equal to -1');
    count = n === -1 ? entries.length : Number(n);
  }
  const out: Reply[] = [];
  for (const e of entries) {
    if (out.length >= count) break;
    out.push([e.id, e.timeS, e.durationUs, [...e.argv], e.peer, e.name]);
  }
  return out;
}

function slowlogLen(c: Client): Reply {
  return c.server.slowlog.entries.length;
}

function slowlogReset(c: Client): Reply {
  c.server.slowlog.reset();
  return OK;
}

function slowlogHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, [
    'GET [<count>]',
    '    Show the <count> newest entries of the slow log (10 when left out, all of them for -1).',
    '    Each entry holds: an id, the Unix time it was logged, how long the command ran in',
    '    microseconds, the command and its arguments, the address of the client, and its name.',
    'LEN',
    '    Count the entries of the slow log.',
    'RESET',
    '    Empty the slow log.',
  ]);
}

export const slowlogCommands: Record<string, Handler> = {
  'slowlog|get': slowlogGet,
  'slowlog|len': slowlogLen,
  'slowlog|reset': slowlogReset,
  'slowlog|help': slowlogHelp,
};
