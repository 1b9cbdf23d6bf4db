import { encodeCommand, encodedCommandLength, encodeSelect } from '../resp/encode.js';

/**
 * The replication stream's framing (src/replication.c replicationFeedSlaves):
 * each command is a RESP array of bulk strings with its arguments as they
 * were propagated, preceded by a SELECT whenever the database changes.
 */

/** `SELECT <db>` as the stream carries it (shared.select); the AOF writes the same bytes. */
export function selectCommand(db: number): string {
  return encodeSelect(db);
}

/** One command in the stream's form: a RESP array of bulk strings, as a client sends it. */
export function streamCommand(argv: readonly string[]): string {
  return encodeCommand(argv);
}

/** The length of streamCommand(argv), without making it. */
export function streamCommandLength(argv: readonly string[]): number {
  return encodedCommandLength(argv);
}

/** The PING serverCron sends replicas every repl-ping-replica-period (shared.ping: lower case). */
export const PING_COMMAND = ['ping'];

/** What asks replicas for an ACK at once (sendGetackToReplicas). */
export const GETACK_COMMAND = ['REPLCONF', 'GETACK', '*'];
