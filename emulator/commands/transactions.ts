import { isWatchedKeyExpired, unwatchAll, watchKey } from '../keyspace/watch.js';
import { discardTransaction } from '../server/transaction.js';
import { ErrorReply, NULL_ARRAY, OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { Handler } from '../server/command-table.js';

/**
 * MULTI, EXEC, DISCARD, WATCH, UNWATCH (src/multi.c). Queueing itself is the
 * dispatcher's job (server.ts): a command inside MULTI that passes the
 * checks is queued and answered +QUEUED; one that fails them flags the
 * transaction so that EXEC answers EXECABORT.
 */

const EXECABORT = new ErrorReply('EXECABORT Transaction discarded because of previous errors.');

function multi(c: Client): Reply {
  if (c.inMulti) return errorReply('MULTI calls can not be nested');
  c.inMulti = true;
  return OK;
}

function exec(c: Client): Reply {
  if (!c.inMulti) return errorReply('EXEC without MULTI');
  if (isWatchedKeyExpired(c)) c.dirtyCas = true;
  if (c.multiError || c.dirtyCas) {
    const reply = c.multiError ? EXECABORT : NULL_ARRAY;
    discardTransaction(c);
    return reply;
  }
  unwatchAll(c);
  const queue = c.queue;
  const replies: Reply[] = new Array(queue.length);
  const server = c.server;
  // The client stays in MULTI state while the queue runs, as CLIENT LIST
  // shows (flags=x, multi=N); discardTransaction ends it.
  c.inExec = true;
  try {
    for (let i = 0; i < queue.length; i++) {
      const q = queue[i]!;
      replies[i] = server.call(c, q.cmd, q.argv);
    }
  } finally {
    c.inExec = false;
    discardTransaction(c);
  }
  return replies;
}

function discard(c: Client): Reply {
  if (!c.inMulti) return errorReply('DISCARD without MULTI');
  discardTransaction(c);
  return OK;
}

function watch(c: Client, argv: string[]): Reply {
  if (c.inMulti) return errorReply('WATCH inside MULTI is not allowed');
  if (c.dirtyCas) return OK;
  for (let i = 1; i < argv.length; i++) watchKey(c, c.db, argv[i]!);
  return OK;
}

function unwatch(c: Client): Reply {
  unwatchAll(c);
  c.dirtyCas = false;
  return OK;
}

export const transactionCommands: Record<string, Handler> = {
  multi,
  exec,
  discard,
  watch,
  unwatch,
};
