import { errorReply, OK, StatusReply, type Reply } from '../resp/reply.js';
import { asciiLower } from '../resp/bytes.js';
import { clientInfoLine } from '../server/client-info.js';
import { parseInt64 } from '../numbers/int64.js';
import type { Client } from '../server/client.js';
import type { Handler } from '../server/command-table.js';

/*
 * The commands that make a server follow a primary or hand over to a
 * replica, and those a replica asks its primary for the data with: kept
 * apart with the code that follows and serves (on-demand.ts), which a first
 * session never runs.
 */

function sync(c: Client, argv: string[]): Reply {
  return c.server.replication.primary.sync(c, argv, false);
}

function psync(c: Client, argv: string[]): Reply {
  return c.server.replication.primary.sync(c, argv, true);
}

/**
 * REPLICAOF host port | NO ONE (replicaofCommand): follow a primary, or
 * become one. Asking for the primary already followed changes nothing.
 */
function replicaof(c: Client, argv: string[]): Reply {
  const replication = c.server.replication;
  if (replication.primary.failoverState !== 'no-failover') return errorReply('REPLICAOF not allowed while failing over.');
  if (asciiLower(argv[1]!) === 'no' && asciiLower(argv[2]!) === 'one') {
    if (replication.masterHost !== null) {
      replication.replica.unsetMaster();
      replication.log(`MASTER MODE enabled (user request from '${clientInfoLine(c, c, argv)}')`);
    }
    return OK;
  }
  // It would flush every replica, this client among them.
  if (c.role === 'replica') return errorReply('Command is not valid when client is a replica.');
  const port = parseInt64(argv[2]!);
  if (port === null || port < 0n || port > 65535n) return errorReply('Invalid master port');
  const host = argv[1]!;
  if (replication.masterHost !== null && asciiLower(replication.masterHost) === asciiLower(host) && replication.masterPort === Number(port)) {
    replication.log('REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.');
    return new StatusReply('OK Already connected to specified master');
  }
  replication.replica.setMaster(host, Number(port));
  replication.log(`REPLICAOF ${host}:${port} enabled (user request from '${clientInfoLine(c, c, argv)}')`);
  return OK;
}

/** FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | ABORT. */
function failover(c: Client, argv: string[]): Reply {
  return c.server.replication.primary.failover.command(argv);
}

export const replicationLinkCommands: Record<string, Handler> = { sync, psync, replicaof, slaveof: replicaof, failover };
