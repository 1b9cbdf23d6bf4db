import { repr } from '../resp/bytes.js';
import { StatusReply } from '../resp/reply.js';
import type { Client } from './client.js';

/**
 * What MONITOR's clients receive (replicationFeedMonitors, src/replication.c):
 * one status line per command, written by the dispatcher as it runs it.
 *   +1339518083.107412 [0 127.0.0.1:60866] "keys" "*"
 */
/** The line a monitor receives for a command run by `c` in database `db`. */
export function monitorLine(nowUs: number, db: number, c: Client, argv: readonly string[]): StatusReply {
  const sec = Math.floor(nowUs / 1e6);
  const usec = String(nowUs % 1e6).padStart(6, '0');
  let line = `${sec}.${usec} [${db} ${c.unixSocket !== null ? 'unix:' + c.unixSocket : c.address.addr}]`;
  for (const a of argv) line += ' ' + repr(a);
  return new StatusReply(line);
}
