import { setExpireExact } from '../keyspace/expire-exact.js';
import type { Database } from '../keyspace/database.js';
import type { Int64 } from '../numbers/int64.js';
import type { Client } from '../server/client.js';

/**
 * Redis's setExpire(c, db, key, when) for a command a client ran: the TTL
 * is set, and on a writable replica a key a client (not the primary's
 * stream) gave a TTL is remembered, since only this replica can expire it
 * (src/db.c setExpire, src/expire.c rememberSlaveKeyWithExpire).
 */
export function setExpireBy(c: Client, db: Database, key: string, whenMs: Int64): void {
  setExpireExact(db, key, whenMs);
  const server = c.server;
  if (server.replication.masterHost !== null && c.role !== 'master' && !server.config.getBool('replica-read-only')) {
    server.replicaKeysWithExpire.remember(db.id, key);
  }
}
