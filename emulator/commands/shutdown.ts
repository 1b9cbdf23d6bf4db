import { errorReply, OK, type Reply } from '../resp/reply.js';
import { BLOCKED } from '../server/blocking.js';
import type { Client } from '../server/client.js';
import { opt } from './args.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import type { Handler } from '../server/command-table.js';

/**
 * SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT] (src/db.c). The server
 * itself cannot stop the program it runs in: whoever runs it (a simulated
 * process, the Node server) installs `server.shutdownHook`. On success the
 * client gets no reply, as with Redis, whose process exits.
 */
export interface ShutdownFlags {
  nosave: boolean;
  save: boolean;
  now: boolean;
  force: boolean;
}

function shutdown(c: Client, argv: string[]): Reply {
  const flags: ShutdownFlags = { nosave: false, save: false, now: false, force: false };
  let abort = false;
  for (let i = 1; i < argv.length; i++) {
    const o = opt(argv[i]!);
    if (o === 'nosave') flags.nosave = true;
    else if (o === 'save') flags.save = true;
    else if (o === 'now') flags.now = true;
    else if (o === 'force') flags.force = true;
    else if (o === 'abort') abort = true;
    else return SYNTAX_ERROR;
  }
  const any = flags.nosave || flags.save || flags.now || flags.force;
  if ((abort && any) || (flags.nosave && flags.save)) return SYNTAX_ERROR;
  // Only a shutdown waiting for lagging replicas can be aborted.
  if (abort) return c.server.replication.primary.abortShutdown() ? OK : errorReply('No shutdown in progress.');
  const hook = c.server.shutdownHook;
  if (hook === null || !hook(flags, c)) return errorReply('Errors trying to SHUTDOWN. Check logs.');
  return BLOCKED;
}

export const shutdownCommands: Record<string, Handler> = { shutdown };


