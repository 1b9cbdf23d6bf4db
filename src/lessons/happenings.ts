import type { TraceEntry } from '../../emulator/sim/trace.js';
import type { Happening } from './happening-names.js';

/**
 * What each named happening of a `happened` check is in the world's trace,
 * and how the learner is told about it. The trace's own words (kinds,
 * texts, pids) stay here: a lesson names the happening, and the learner
 * reads a sentence about the machine ("redis-server on A forked a child
 * process"), never a pattern.
 */
export interface HappeningWords {
  /** Whether a trace entry from the host is one of these. */
  readonly matches: (e: TraceEntry) => boolean;
  /** "The power went out on A": what the check asks for. */
  readonly done: (host: string) => string;
  /** "the power has not gone out on A in this step": what is missing, as the end of a sentence. */
  readonly notYet: (host: string) => string;
  /** The noun counted: "power cut", "fork". */
  readonly noun: string;
}

const log = (re: RegExp) => (e: TraceEntry) => e.kind === 'log' && re.test(e.text);

const HAPPENING_WORDS: Record<Happening, HappeningWords> = {
  'power-loss': {
    matches: (e) => e.kind === 'power-loss' && e.text === 'power cut',
    done: (h) => `The power went out on ${h}`,
    notYet: (h) => `the power has not gone out on ${h} in this step`,
    noun: 'power cut',
  },
  'power-on': {
    matches: (e) => e.kind === 'boot',
    done: (h) => `${h} was switched on again`,
    notYet: (h) => `${h} has not been switched on again in this step`,
    noun: 'boot',
  },
  kill: {
    matches: (e) => e.kind === 'exit' && /^\d+ redis-server killed /.test(e.text),
    done: (h) => `redis-server on ${h} was killed`,
    notYet: (h) => `redis-server on ${h} has not been killed in this step`,
    noun: 'kill',
  },
  crash: {
    matches: (e) => e.kind === 'exit' && /^\d+ redis-server (killed|power-loss) /.test(e.text),
    done: (h) => `redis-server on ${h} crashed (killed, or its power cut)`,
    notYet: (h) => `redis-server on ${h} has not crashed in this step`,
    noun: 'crash',
  },
  shutdown: {
    matches: log(/^Redis is now ready to exit, bye bye/),
    done: (h) => `redis-server on ${h} shut down cleanly`,
    notYet: (h) => `redis-server on ${h} has not shut down in this step`,
    noun: 'shutdown',
  },
  start: {
    matches: log(/^Ready to accept connections/),
    done: (h) => `redis-server on ${h} started and is ready for clients`,
    notYet: (h) => `redis-server has not been started on ${h} in this step`,
    noun: 'start',
  },
  fork: {
    matches: (e) => e.kind === 'spawn' && /^\d+ redis-(rdb-bgsave|aof-rewrite|rdb-to-slaves)\b/.test(e.text),
    done: (h) => `redis-server on ${h} forked a child process`,
    notYet: (h) => `redis-server on ${h} has not forked a child process in this step`,
    noun: 'fork',
  },
  snapshot: {
    matches: log(/^DB saved on disk$/),
    done: (h) => `A snapshot of the data on ${h} was written to disk`,
    notYet: (h) => `no snapshot has been written on ${h} in this step`,
    noun: 'snapshot',
  },
  bgsave: {
    matches: log(/^Background saving terminated with success$/),
    done: (h) => `A background save (BGSAVE) on ${h} finished`,
    notYet: (h) => `no background save has finished on ${h} in this step`,
    noun: 'background save',
  },
  'save-rule': {
    matches: log(/^\d+ changes in \d+ seconds\. Saving\.\.\.$/),
    done: (h) => `A save rule on ${h} started a snapshot by itself`,
    notYet: (h) => `no save rule has fired on ${h} in this step`,
    noun: 'save rule firing',
  },
  'aof-rewrite': {
    matches: log(/^Background AOF rewrite finished successfully$/),
    done: (h) => `The append-only file on ${h} was rewritten`,
    notYet: (h) => `the append-only file on ${h} has not been rewritten in this step`,
    noun: 'rewrite',
  },
  fsync: {
    matches: (e) => e.kind === 'fsync' && /appendonly/.test(e.text),
    done: (h) => `${h} synced its append-only file to the disk`,
    notYet: (h) => `${h} has not synced its append-only file to the disk in this step`,
    noun: 'sync',
  },
  'torn-write': {
    matches: (e) => e.kind === 'torn-write',
    done: (h) => `The power cut on ${h} tore a write in half`,
    notYet: (h) => `no write has been torn by a power cut on ${h} in this step`,
    noun: 'torn write',
  },
  'flip-byte': {
    matches: (e) => e.kind === 'flip-byte',
    done: (h) => `A byte of a file on ${h} was corrupted`,
    notYet: (h) => `no byte of a file on ${h} has been corrupted in this step`,
    noun: 'corrupted byte',
  },
  'full-resync': {
    // Step 2 of table 4.2 on the primary: a snapshot is made for a replica.
    matches: (e) => e.kind === 'repl' && e.text.startsWith('step 2: a BGSAVE for '),
    done: (h) => `A replica asked ${h} for a full copy of its data`,
    notYet: (h) => `no replica has asked ${h} for a full copy of its data in this step`,
    noun: 'full resync',
  },
  'shared-snapshot': {
    // Table 4.3: a replica that asks while a snapshot for another is being made gets the same one.
    matches: (e) => e.kind === 'repl' && /^step 2: (\S+ shares the BGSAVE|one BGSAVE for )/.test(e.text),
    done: (h) => `${h} sent several replicas the same snapshot`,
    notYet: (h) => `${h} has not sent one snapshot to several replicas in this step`,
    noun: 'shared snapshot',
  },
  'replica-synced': {
    matches: log(/^MASTER <-> REPLICA sync: Finished with success$/),
    done: (h) => `The replica on ${h} loaded a full copy of its primary's data`,
    notYet: (h) => `the replica on ${h} has not loaded a full copy of its primary's data in this step`,
    noun: 'full synchronization',
  },
  'partial-resync': {
    matches: log(/^MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization\.$/),
    done: (h) => `The replica on ${h} caught up with its primary without a full copy`,
    notYet: (h) => `the replica on ${h} has not caught up with a partial resynchronization in this step`,
    noun: 'partial resynchronization',
  },
  'link-timeout': {
    // replicationCron: nothing from the primary for repl-timeout seconds, so the replica drops the link.
    matches: log(/^MASTER timeout: no data nor PING received\.\.\.$/),
    done: (h) => `The replica on ${h} gave up on its silent primary and dropped the link`,
    notYet: (h) => `the replica on ${h} has not given up on a silent primary in this step`,
    noun: 'dropped link',
  },
  promoted: {
    matches: (e) => e.kind === 'repl' && e.text.startsWith('promoted to primary'),
    done: (h) => `The replica on ${h} became a primary`,
    notYet: (h) => `the server on ${h} has not been promoted to primary in this step`,
    noun: 'promotion',
  },
};

export function happeningWords(h: Happening): HappeningWords {
  return HAPPENING_WORDS[h];
}
