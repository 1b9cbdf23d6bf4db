/**
 * The replication stream's framing (src/replication.c replicationFeedSlaves):
 * each command is a RESP array of bulk strings with its arguments as they
 * were propagated, preceded by a SELECT whenever the database changes.
 */

/** `SELECT <db>` as the stream carries it (shared.select). */
export function selectCommand(db: number): string {
  const id = String(db);
  return `*2\r\n$6\r\nSELECT\r\n$${id.length}\r\n${id}\r\n`;
}

/** One command in the stream's form. */
export function streamCommand(argv: readonly string[]): string {
  let out = `*${argv.length}\r\n`;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    out += `$${a.length}\r\n${a}\r\n`;
  }
  return out;
}

/** The PING serverCron sends replicas every repl-ping-replica-period (shared.ping: lower case). */
export const PING_COMMAND = ['ping'];

/** What asks replicas for an ACK at once (sendGetackToReplicas). */
export const GETACK_COMMAND = ['REPLCONF', 'GETACK', '*'];
