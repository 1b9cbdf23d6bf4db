import type { Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';

/**
 * The replica's part of replication: what a server that follows a primary
 * (REPLICAOF) adds to the shared state. The rest of replication reaches it
 * only through this contract.
 */
export interface ReplicaSide {
  /** INFO replication's lines after role:slave (master_host ... replica_announced). */
  infoLines(): string;
  /** ROLE's reply on a replica. */
  roleReply(): Reply;
  /** Whether the link with this server's own primary is up: sub-replicas may SYNC only then. */
  linkUp(): boolean;
  /** PSYNC <replid> <offset> FAILOVER on a replica: null when it became a primary, else the error. */
  failoverRequest(c: Client, replId: string): Reply | null;
  /** The database of the primary's stream, for the RDB's repl-stream-db; null without a primary client. */
  streamDb(): number | null;
  /** REPLCONF GETACK from the primary: answer with an ACK. */
  sendAck(): void;
  /** replicationCron's replica part: connecting, handshake timeouts, ACKs. */
  cron(): void;
}
