import { errorReply, ErrorReply, OK, StatusReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { RedisServer } from '../server/server.js';
import { saveInMemory } from '../persistence/saved-rdb.js';
import { opt } from './args.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import type { Handler } from '../server/command-table.js';
import { BLOCKED } from '../server/blocking.js';

/**
 * SAVE, BGSAVE (src/rdb.c) and BGREWRITEAOF (src/aof.c). A server running as a process on a simulated
 * host writes real files through `server.snapshots` (persistence/snapshots.ts);
 * a server with no disk keeps the file in memory, where DEBUG RELOAD finds it.
 */

/** What the engine of a server with a disk offers to these commands. */
export interface SnapshotCommands {
  readonly childActive: boolean;
  bgsaveScheduled: boolean;
  save(): 'ok' | 'in-progress' | 'error';
  bgsave(): 'started' | 'error';
  /** killRDBChild: ends a running BGSAVE child; its save counts as neither done nor failed. */
  killChild(): void;
}

/** What the AOF engine of a server with a disk offers to BGREWRITEAOF and BGSAVE. */
export interface AofCommands {
  /** An AOF rewrite child is running. */
  readonly childActive: boolean;
  /**
   * 'pending' when starting waits for the disk: the outcome is given to
   * `answer` once known.
   */
  bgrewriteaof(inExec: boolean, answer: (ok: boolean) => void): 'started' | 'pending' | 'scheduled' | 'in-progress' | 'error';
  /** DEBUG LOADAOF: reload the AOF files into an emptied dataset; false when they cannot be loaded. */
  debugLoadAof(): boolean;
}

/** shared.err: an error reply with no message. */
const BARE_ERR = new ErrorReply('ERR');

/**
 * flushAllDataAndResetRDB's part after the keys are gone (src/db.c): a
 * BGSAVE child would write the old dataset, so it is killed; with save
 * rules, the empty dataset is saved at once, so that a restart does not
 * bring the keys back.
 */
export function resetRdbAfterFlushAll(server: RedisServer): void {
  const engine = server.snapshots;
  if (engine?.childActive === true) engine.killChild();
  if (server.config.get('save') === '') return;
  if (engine === null) saveInMemory(server);
  else engine.save();
}

function save(c: Client): Reply {
  const engine = c.server.snapshots;
  if (engine === null) {
    c.server.stats.persistence.rdbSaves++;
    saveInMemory(c.server);
    return OK;
  }
  const r = engine.save();
  if (r === 'in-progress') return errorReply('Background save already in progress');
  return r === 'ok' ? OK : BARE_ERR;
}

function bgsave(c: Client, argv: string[]): Reply {
  let schedule = false;
  if (argv.length > 1) {
    if (argv.length === 2 && opt(argv[1]!) === 'schedule') schedule = true;
    else return SYNTAX_ERROR;
  }
  const engine = c.server.snapshots;
  if (engine === null) {
    c.server.stats.persistence.rdbSaves++;
    saveInMemory(c.server);
    return new StatusReply('Background saving started');
  }
  // A BGSAVE already running answers so even to SCHEDULE (src/rdb.c bgsaveCommand).
  if (engine.childActive) return errorReply('Background save already in progress');
  if (c.inExec || c.server.aof?.childActive === true) {
    if (schedule || c.inExec) {
      engine.bgsaveScheduled = true;
      return new StatusReply('Background saving scheduled');
    }
    return errorReply(
      "Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.",
    );
  }
  return engine.bgsave() === 'started' ? new StatusReply('Background saving started') : BARE_ERR;
}

/**
 * A server without a disk has no file to rewrite: the rewrite is done the
 * moment it starts, and INFO counts it as Redis would a finished one.
 */
function rewriteInMemory(server: RedisServer): void {
  const p = server.stats.persistence;
  p.aofRewrites++;
  p.aofLastRewriteTimeS = 0;
  p.aofLastBgrewriteOk = true;
  p.aofRewritesConsecutiveFailures = 0;
}

const REWRITE_STARTED = new StatusReply('Background append only file rewriting started');
const REWRITE_FAILED = errorReply("Can't execute an AOF background rewriting. Please check the server logs for more information.");

/** BGREWRITEAOF (src/aof.c). */
function bgrewriteaof(c: Client): Reply {
  const engine = c.server.aof;
  if (engine === null) {
    rewriteInMemory(c.server);
    return new StatusReply('Background append only file rewriting started');
  }
  const answer = (ok: boolean): void => {
    c.onAsyncReply?.(ok ? REWRITE_STARTED : REWRITE_FAILED);
    c.onResume?.();
  };
  switch (engine.bgrewriteaof(c.inExec, answer)) {
    case 'pending':
      return BLOCKED;
    case 'in-progress':
      return errorReply('Background append only file rewriting already in progress');
    case 'scheduled':
      return new StatusReply('Background append only file rewriting scheduled');
    case 'started':
      return REWRITE_STARTED;
    case 'error':
      return REWRITE_FAILED;
  }
}

export const persistenceCommands: Record<string, Handler> = { save, bgsave, bgrewriteaof };
