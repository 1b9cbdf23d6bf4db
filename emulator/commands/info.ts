import { VerbatimReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { infoText } from '../server/info.js';
import type { Handler } from '../server/command-table.js';

/** INFO [section ...] (src/server.c infoCommand): verbatim text in RESP3, a bulk string in RESP2. */
function info(c: Client, argv: string[]): Reply {
  return new VerbatimReply(infoText(c.server, argv.slice(1)));
}

export const infoCommands: Record<string, Handler> = { info };
