import { errorReply, FramesReply, OK, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { Handler } from '../server/command-table.js';

/**
 * MONITOR (src/replication.c): the client receives every command the server
 * runs from then on, one status line each:
 *   +1339518083.107412 [0 127.0.0.1:60866] "keys" "*"
 * Commands flagged admin or skip_monitor are not shown.
 */
function monitor(c: Client): Reply {
  if (c.inExec) return errorReply("MONITOR isn't allowed for DENY BLOCKING client");
  // A replica or a client already monitoring gets no answer at all.
  if (c.role === 'replica' || c.role === 'monitor') return new FramesReply([]);
  c.role = 'monitor';
  c.server.monitors.add(c);
  return OK;
}

export const monitorCommands: Record<string, Handler> = { monitor };
