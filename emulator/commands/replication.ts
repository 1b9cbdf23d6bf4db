import { errorReply, OK, type Reply } from '../resp/reply.js';
import { parseInt64 } from '../numbers/int64.js';
import { splitArgs } from '../resp/split-args.js';
import type { Client } from '../server/client.js';
import { NO_REPLY } from '../replication/primary.js';
import { cString } from '../numbers/c-string.js';
import { CAPA_EOF, CAPA_PSYNC2, REQ_EXCLUDE_DATA, REQ_EXCLUDE_FUNCTIONS } from '../replication/primary-replica-link.js';
import { roleReply } from '../replication/info.js';
import { opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import type { Handler } from '../server/command-table.js';

/**
 * SYNC, PSYNC, REPLCONF and ROLE (src/replication.c): the commands a
 * replica (or redis-cli --rdb, --replica) sends its primary; REPLICAOF
 * (SLAVEOF), WAIT and FAILOVER. The work is replication's
 * (emulator/replication); here are the arguments and their errors.
 */

/** NET_HOST_STR_LEN: an announced address must be shorter. */
const HOST_STR_LEN = 256;

/**
 * REPLCONF <option> <value> ...: options apply one by one, so those before
 * an error stay applied. ACK and GETACK answer nothing at all, whatever
 * comes after them.
 */
function replconf(c: Client, argv: string[]): Reply {
  if (argv.length % 2 === 0) return SYNTAX_ERROR;
  const replication = c.server.replication;
  const primary = replication.primary;
  const r = primary.link(c);
  for (let j = 1; j < argv.length; j += 2) {
    const option = opt(argv[j]!);
    const value = argv[j + 1]!;
    if (option === 'listening-port') {
      const port = parseInt64(value);
      if (port === null) return NOT_INTEGER;
      // Kept in a C int.
      r.listeningPort = Number(BigInt.asIntN(32, BigInt(port)));
    } else if (option === 'ip-address') {
      if (value.length >= HOST_STR_LEN) return errorReply(`REPLCONF ip-address provided by replica instance is too long: ${value.length} bytes`);
      r.announcedIp = value;
    } else if (option === 'capa') {
      // Capabilities this primary does not know are ignored.
      const capa = opt(value);
      if (capa === 'eof') r.capa |= CAPA_EOF;
      else if (capa === 'psync2') r.capa |= CAPA_PSYNC2;
    } else if (option === 'ack') {
      const offset = parseInt64(value);
      if (offset !== null) primary.ack(c, Number(offset));
      return NO_REPLY;
    } else if (option === 'getack') {
      if (replication.masterHost !== null) replication.replica.sendAck();
      return NO_REPLY;
    } else if (option === 'rdb-only') {
      const v = parseInt64(value);
      if (v === null) return NOT_INTEGER;
      if (v < 0 || v > 1) return errorReply('value is out of range, value must between 0 and 1');
      r.rdbOnly = v === 1;
    } else if (option === 'rdb-filter-only') {
      const filters = splitArgs(value);
      if (filters === null) return errorReply('Missing rdb-filter-only values');
      // Everything is left out but what the filters name.
      r.req |= REQ_EXCLUDE_DATA | REQ_EXCLUDE_FUNCTIONS;
      for (const f of filters) {
        if (opt(f) === 'functions') r.req &= ~REQ_EXCLUDE_FUNCTIONS;
        else return errorReply(`Unsupported rdb-filter-only option: ${cString(f)}`);
      }
    } else {
      return errorReply(`Unrecognized REPLCONF option: ${cString(argv[j]!)}`);
    }
  }
  return OK;
}

function role(c: Client): Reply {
  return roleReply(c.server.replication);
}

/** WAIT numreplicas timeout. */
function wait(c: Client, argv: string[]): Reply {
  return c.server.replication.primary.waiting.command(c, argv);
}

/**
 * SYNC, PSYNC, REPLICAOF, SLAVEOF and FAILOVER are in replication-links.ts,
 * kept apart with the code that serves and follows a primary (on-demand.ts).
 */
export const replicationCommands: Record<string, Handler> = { replconf, role, wait };
