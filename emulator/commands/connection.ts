import { PONG, OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { INVALID_DB_INDEX, NOT_INTEGER } from '../server/errors.js';
import { intArg } from './args.js';
import { clientCommands } from './client.js';
import { helloCommands } from './hello.js';
import type { Handler } from '../server/command-table.js';

/**
 * Connection commands (src/server.c, src/networking.c, src/db.c): PING,
 * ECHO, SELECT and QUIT here; CLIENT, HELLO, AUTH and RESET in their own
 * files.
 */

function ping(c: Client, argv: string[]): Reply {
  if (argv.length > 2) return errorReply(`wrong number of arguments for '${c.cmd!.name}' command`);
  // A RESP2 subscriber can only receive arrays, so its PONG is one.
  if (c.resp === 2 && c.inPubSub) {
    return ['pong', argv.length === 2 ? argv[1]! : ''];
  }
  return argv.length === 2 ? argv[1]! : PONG;
}

function echo(_c: Client, argv: string[]): Reply {
  return argv[1]!;
}

/** getIntFromObjectOrReply without a custom message. */
const OUTSIDE_INT = errorReply('value is out of range, value must between -2147483648 and 2147483647');

function select(c: Client, argv: string[]): Reply {
  const id = intArg(argv[1]!);
  if (id === null) return NOT_INTEGER;
  if (id < -2147483648 || id > 2147483647) return OUTSIDE_INT;
  if (id < 0 || id >= c.server.dbs.length) return INVALID_DB_INDEX;
  c.db = c.server.dbs[id]!;
  return OK;
}

function quit(c: Client): Reply {
  c.closeAfterReply = true;
  return OK;
}

export const connectionCommands: Record<string, Handler> = {
  ping,
  echo,
  select,
  quit,
  ...clientCommands,
  ...helloCommands,
};
