import { unwatchAll } from '../keyspace/watch.js';
import type { Client } from './client.js';

/**
 * Ends a transaction: drops the queue and the flags, unwatches every key
 * (src/multi.c discardTransaction). The dispatcher calls it when its client
 * goes away or is reset, as do EXEC, DISCARD and HELLO (commands/).
 */
export function discardTransaction(c: Client): void {
  c.queue = [];
  c.inMulti = false;
  c.multiError = false;
  c.dirtyCas = false;
  unwatchAll(c);
}
