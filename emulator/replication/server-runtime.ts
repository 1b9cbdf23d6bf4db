import { bytesFromArray } from '../resp/bytes.js';
import { saveRdb } from '../persistence/rdb-dataset.js';
import type { RedisServer } from '../server/server.js';
import type { FileSystem } from '../sim/disk-api.js';
import type { RdbReplicationInfo } from './state.js';
import type { PrimaryLink, PrimaryLinkEvents } from './replica-link.js';

/**
 * What replication needs from the redis-server process running it: its
 * log, its RDB child (a BGSAVE to disk, or a diskless transfer through a
 * pipe), the file a disk save leaves behind, and for a replica a
 * connection to its primary, its disk for the file it receives, and time
 * to load it. A process on a simulated host provides them
 * (process/redis-process.ts); a server with no process gets an in-memory
 * stand-in whose saves are done the moment they start and which cannot
 * reach a primary.
 */

/** Which child runs: an RDB child with a disk or a socket target, a child of another kind (AOF rewrite), or none. */
export type ChildKind = 'disk' | 'socket' | 'other' | null;

/** The pipe a diskless child writes the framed RDB into, a piece at a time. */
export interface RdbPipe {
  /** The child wrote `piece` (a byte string); it writes the next one once `next` is called. */
  write(piece: string, next: () => void): void;
  /** The child wrote everything; it exits once `release` is called (the parent read it all). */
  end(release: () => void): void;
}

export interface ReplicationRuntime {
  log(text: string, level?: 'notice' | 'warning'): void;
  /**
   * A step of a synchronization for the timeline (the trace's 'repl'
   * kind): the steps of Redis in Action's table 4.2 on either side, a
   * partial resync, a promotion.
   */
  step(text: string): void;
  childKind(): ChildKind;
  /** rdbSaveBackground to dbfilename; false when the fork fails. */
  startDiskSave(): boolean;
  /**
   * rdbSaveToSlavesSockets: a child streams the RDB into `pipe`, with the
   * replication fields taken before the replicas were set up; without the
   * data when a filter excludes it. False when the fork fails.
   */
  startSocketSave(pipe: RdbPipe, excludeData: boolean, replication: RdbReplicationInfo): boolean;
  /** killRDBChild: SIGUSR1, which is not a failure of the save. */
  killRdbChild(): void;
  /** checkChildrenDone: handles an RDB child that has exited, if any (REPLCONF ACK may come before serverCron notices). */
  checkChildDone(): void;
  /** dbfilename's bytes after a disk save, or the error text of opening it. */
  readRdbFile(): Uint8Array | string;
  /** Whether dbfilename exists (lstat). */
  rdbFileExists(): boolean;
  /** Removes dbfilename (bg_unlink). */
  removeRdbFile(): void;
  /**
   * True for the in-memory stand-in: a save started is done at once, and
   * the primary reports its end itself.
   */
  readonly immediate: boolean;
  /** connConnect to a primary: the link, or the error text when it cannot even start. */
  dial(host: string, port: number, events: PrimaryLinkEvents): PrimaryLink | string;
  /** The process's disk (the file a full sync receives), or null for a server without one. */
  disk(): FileSystem | null;
  /** The process id (the name of that file has it). */
  pid(): number;
  /** Thread time loading `bytes` of RDB takes, in microseconds. */
  loadUs(bytes: number): number;
  /** Runs `done` once `us` of time have passed (0: at once). */
  after(us: number, done: () => void): void;
  /** stopAppendOnly before a replica loads its primary's snapshot. */
  stopAof(): void;
  /** restartAOFAfterSYNC: the AOF, if configured, starts again from a rewrite. */
  restartAof(): void;
}

/**
 * The stand-in for a server without a process: a disk save keeps the file
 * in memory, a diskless one hands the whole RDB over at once.
 */
export class InMemoryReplicationRuntime implements ReplicationRuntime {
  readonly immediate = true;
  private file: Uint8Array | null = null;

  constructor(private readonly server: RedisServer) {}

  log(): void {}

  step(): void {}

  childKind(): ChildKind {
    return null;
  }

  startDiskSave(): boolean {
    this.file = saveRdb(this.server);
    return true;
  }

  startSocketSave(pipe: RdbPipe, excludeData: boolean, replication: RdbReplicationInfo): boolean {
    const mark = this.server.randomHex(40);
    const rdb = bytesFromArray(saveRdb(this.server, { excludeData, replication }));
    pipe.write(`$EOF:${mark}\r\n${rdb}${mark}`, () => pipe.end(() => {}));
    return true;
  }

  killRdbChild(): void {}

  checkChildDone(): void {}

  readRdbFile(): Uint8Array | string {
    return this.file ?? 'No such file or directory';
  }

  rdbFileExists(): boolean {
    return this.file !== null;
  }

  removeRdbFile(): void {
    this.file = null;
  }

  dial(): string {
    return 'Network is unreachable';
  }

  disk(): null {
    return null;
  }

  pid(): number {
    return 0;
  }

  loadUs(): number {
    return 0;
  }

  after(_us: number, done: () => void): void {
    done();
  }

  stopAof(): void {}

  restartAof(): void {}
}
