import { OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { opt } from './args.js';
import { subcommandSyntaxError } from './command-help.js';
import type { Handler } from './table.js';

/**
 * The scripting group. The emulator has no Lua and no function libraries,
 * so there is never a function to delete; FUNCTION FLUSH still validates
 * its arguments and counts as a change, as in src/functions.c, because
 * clients (Redis's own test suite among them) send it to reset a server.
 */
function functionFlush(c: Client, argv: string[]): Reply {
  if (argv.length > 3) return subcommandSyntaxError(argv);
  if (argv.length === 3) {
    const mode = opt(argv[2]!);
    if (mode !== 'sync' && mode !== 'async') return errorReply('FUNCTION FLUSH only supports SYNC|ASYNC option');
  }
  c.server.dirty++;
  return OK;
}

export const scriptingCommands: Record<string, Handler> = {
  'function|flush': functionFlush,
};
