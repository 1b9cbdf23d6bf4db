import { bytesToArray } from '../resp/bytes.js';
import type { ServerCpuCosts } from '../sim/cpu.js';
import type { DiskError } from '../sim/disk.js';
import { AofFeed } from './aof/records.js';
import { AofPart, errorText, type AofDir, type AofProcess } from './aof-dir.js';

/**
 * The AOF buffer and the file it is written to (feedAppendOnlyFile and
 * flushAppendOnlyFile in src/aof.c): records wait in aof_buf until the
 * event loop is about to send replies, then go to the incremental file
 * with one write(2), and are synced by the appendfsync policy:
 *
 * - always: the thread waits for an fsync, so no reply leaves before its
 *   write is durable;
 * - everysec: a background (bio) fsync at most once a second; while one
 *   is still running, writes wait up to 2 s, then go anyway;
 * - no: nothing; the kernel's writeback makes the data durable.
 *
 * A failed write keeps the rest in the buffer and, until a write succeeds,
 * makes write commands fail with MISCONF.
 */

/** AOF_WRITE_LOG_ERROR_RATE: at most one write error line per 30 s. */
const WRITE_ERROR_LOG_EVERY_S = 30;

/** What the writer needs to know about the engine around it. */
export interface AofWriterContext {
  /** aof_state != AOF_OFF. */
  on(): boolean;
  /** Records are kept (AOF on, or waiting for its first rewrite while that rewrite's child runs). */
  keeping(): boolean;
  /** A child (RDB or AOF) runs: no-appendfsync-on-rewrite skips syncs then. */
  anyChildActive(): boolean;
}

export class AofWriter extends AofPart<AofProcess & { readonly costs: ServerCpuCosts }> {
  /** The file appended to: the newest incremental file, or the temp one while waiting for the first rewrite. */
  fd: number | null = null;
  /** aof_buf: records not yet written. */
  buf = '';
  readonly feed = new AofFeed();
  /** Bytes in the current incremental file, and how many of them the last fsync covered. */
  lastIncrSize = 0;
  lastIncrFsyncOffset = 0;
  /** aof_last_fsync, unix seconds. */
  lastFsyncS: number;
  /** aof_flush_postponed_start, unix seconds; 0 when no write waits. */
  private flushPostponedStartS = 0;
  private bioFsyncsPending = 0;
  /** The strerror of the last failed background fsync while no later one succeeded. */
  private bioFsyncError: string | null = null;
  /** The strerror of the last failed write while no later write succeeded. */
  private writeError: string | null = null;
  private lastWriteErrorLogS = 0;
  private lastErrorRetryMs = 0;

  constructor(
    p: AofProcess & { readonly costs: ServerCpuCosts },
    files: AofDir,
    private readonly ctx: AofWriterContext,
  ) {
    super(p, files);
    this.lastFsyncS = this.unixtime();
  }

  /** feedAppendOnlyFile: the database and timestamp are tracked even for records that are not kept. */
  append(db: number, argv: string[]): void {
    const feed = this.feed;
    feed.timestamps = this.p.server.config.getBool('aof-timestamp-enabled');
    const record = feed.append(db, argv, this.unixtime());
    if (this.ctx.keeping()) {
      this.buf += record;
      this.stats.aofBufferLength = this.buf.length;
    }
  }

  /** Drops what the buffer holds. */
  clearBuffer(): void {
    this.buf = '';
    this.stats.aofBufferLength = 0;
  }

  /**
   * Appends to `fd` from now on (openNewIncrAofForAppend): the file written
   * so far is synced and closed in the background.
   */
  switchTo(fd: number | null): void {
    if (this.fd !== null) {
      this.closeInBackground(this.fd);
      this.lastFsyncS = this.unixtime();
    }
    this.fd = fd;
    this.lastIncrSize = 0;
    this.lastIncrFsyncOffset = 0;
  }

  /** serverCron: a postponed write is retried at every run, a failed one once a second. */
  cron(): void {
    const server = this.p.server;
    if (this.flushPostponedStartS !== 0) this.flush(false);
    if (server.threadBlocked) return;
    const nowMs = Math.floor(this.p.nowUs() / 1000);
    if (nowMs - this.lastErrorRetryMs >= 1000) {
      this.lastErrorRetryMs = nowMs;
      if (this.writeError !== null) this.flush(false);
    }
  }

  /**
   * flushAppendOnlyFile. `then` runs once the work is done: at once, or
   * after the fsync the thread waits for (appendfsync always). `hold`
   * false only at shutdown, where the process is about to end.
   */
  flush(force: boolean, then: () => void = noop, hold = true): void {
    const policy = this.p.server.config.get('appendfsync');
    const nowS = this.unixtime();
    if (this.buf.length === 0) {
      // Data written in an earlier pass may still wait for its sync.
      const unsynced = this.lastIncrFsyncOffset !== this.lastIncrSize;
      const due =
        (policy === 'everysec' && unsynced && nowS > this.lastFsyncS && this.bioFsyncsPending === 0) || (policy === 'always' && unsynced);
      if (!due) {
        then();
        return;
      }
      this.syncAfterWrite(policy, false, nowS, then, hold);
      return;
    }
    const syncInProgress = policy === 'everysec' && this.bioFsyncsPending !== 0;
    if (syncInProgress && !force) {
      if (this.flushPostponedStartS === 0) {
        this.flushPostponedStartS = nowS;
        then();
        return;
      }
      if (nowS - this.flushPostponedStartS < 2) {
        then();
        return;
      }
      this.stats.aofDelayedFsync++;
      this.log(
        'Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.',
      );
    }
    if (!this.writeBuffer(policy, nowS)) {
      if (policy !== 'always') then();
      return;
    }
    this.syncAfterWrite(policy, syncInProgress, nowS, then, hold);
  }

  /** The write(2) of the buffer; false when it failed (the buffer keeps what was not written). */
  private writeBuffer(policy: string, nowS: number): boolean {
    const files = this.files;
    const expected = this.buf.length;
    const fd = this.fd;
    const w = fd === null ? { written: 0, error: 'Bad file descriptor' } : files.writeAll(fd, bytesToArray(this.buf));
    const costs = this.p.costs;
    this.p.stall((costs.writeUs + (expected / 1024) * costs.perKbUs) / this.p.host.profile.cpuSpeed);
    this.flushPostponedStartS = 0;
    const p = this.stats;
    if (w.written !== expected) {
      const canLog = nowS - this.lastWriteErrorLogS > WRITE_ERROR_LOG_EVERY_S;
      if (canLog) this.lastWriteErrorLogS = nowS;
      let written = w.written;
      let error: string;
      if (written === 0) {
        error = w.error ?? 'No space left on device';
        if (canLog) this.log(`Error writing to the AOF file: ${error}`, 'warning');
      } else {
        if (canLog) this.log(`Short write while writing to the AOF file: (nwritten=${written}, expected=${expected})`, 'warning');
        try {
          files.disk.ftruncate(fd!, this.lastIncrSize);
          written = 0;
        } catch (e) {
          if (canLog) {
            this.log(
              `Could not remove short write from the append-only file.  Redis may refuse to load the AOF the next time it starts.  ftruncate: ${errorText(e)}`, 'warning',
            );
          }
        }
        error = 'No space left on device';
      }
      if (policy === 'always') {
        // Replies may already promise the data: the only safe way out is to stop.
        this.log("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...", 'warning');
        this.die();
        return false;
      }
      this.writeError = error;
      this.updateErrorState();
      if (written > 0) {
        p.aofCurrentSize += written;
        this.lastIncrSize += written;
        this.buf = this.buf.slice(written);
        p.aofBufferLength = this.buf.length;
      }
      return false;
    }
    if (this.writeError !== null) {
      this.log('AOF write error looks solved, Redis can write again.', 'warning');
      this.writeError = null;
      this.updateErrorState();
    }
    p.aofCurrentSize += expected;
    this.lastIncrSize += expected;
    this.clearBuffer();
    return true;
  }

  /** flushAppendOnlyFile's try_fsync part. */
  private syncAfterWrite(policy: string, syncInProgress: boolean, nowS: number, then: () => void, hold: boolean): void {
    if (this.p.server.config.getBool('no-appendfsync-on-rewrite') && this.ctx.anyChildActive()) {
      then();
      return;
    }
    if (policy === 'always') {
      const fd = this.fd;
      const upTo = this.lastIncrSize;
      if (!hold) {
        this.backgroundFsync();
        this.lastIncrFsyncOffset = upTo;
        then();
        return;
      }
      const release = this.p.holdThreadForIo();
      const startUs = this.p.nowUs();
      const done = (err: string | null): void => {
        if (err !== null) {
          this.log(`Can't persist AOF for fsync error when the AOF fsync policy is 'always': ${err}. Exiting...`, 'warning');
          this.die();
          return;
        }
        release(() => {
          // The thread waited for the disk: a latency event of its own.
          const server = this.p.server;
          server.latency.addSampleIfNeeded('aof-fsync-always', Math.floor((this.p.nowUs() - startUs) / 1000), server.latencyThresholdMs, server.unixSeconds());
          if (this.fd === fd) {
            this.lastIncrFsyncOffset = upTo;
            this.lastFsyncS = this.unixtime();
          }
          then();
        });
      };
      try {
        this.files.disk.fsync(fd ?? -1, (err) => done(err === null ? null : err.message));
      } catch (e) {
        done(errorText(e));
      }
      return;
    }
    if (policy === 'everysec' && nowS > this.lastFsyncS) {
      if (!syncInProgress) {
        this.backgroundFsync();
        this.lastIncrFsyncOffset = this.lastIncrSize;
      }
      this.lastFsyncS = nowS;
    }
    then();
  }

  /** A bio thread's fsync of the AOF: the main thread goes on. */
  private backgroundFsync(): void {
    const fd = this.fd;
    if (fd === null) return;
    const p = this.stats;
    this.bioFsyncsPending++;
    p.aofPendingBioFsync = this.bioFsyncsPending;
    const done = (err: DiskError | null): void => {
      this.bioFsyncsPending--;
      p.aofPendingBioFsync = this.bioFsyncsPending;
      // A descriptor closed meanwhile is not a failed sync.
      if (err !== null && err.code !== 'EBADF' && err.code !== 'EINVAL') {
        if (this.bioFsyncError === null) this.log(`Fail to fsync the AOF file: ${err.message}`, 'warning');
        this.bioFsyncError = err.message;
      } else {
        this.bioFsyncError = null;
      }
      this.updateErrorState();
    };
    try {
      this.files.disk.fsync(fd, done);
    } catch {
      // A descriptor that is already closed: nothing to sync.
      done(null);
    }
  }

  /** bioCreateCloseJob with fsync: a replaced file is synced and closed in the background. */
  private closeInBackground(fd: number): void {
    const files = this.files;
    try {
      files.disk.fsync(fd, () => files.closeQuietly(fd));
    } catch {
      files.closeQuietly(fd);
    }
  }

  /**
   * startAppendOnly forgives the errors of the AOF that was switched off,
   * with a line for each.
   */
  forgetErrors(): void {
    if (this.bioFsyncError !== null) {
      this.log('AOF reopen, just ignore the AOF fsync error in bio job', 'warning');
      this.bioFsyncError = null;
    }
    if (this.writeError !== null) {
      this.log('AOF reopen, just ignore the last error.', 'warning');
      this.writeError = null;
    }
    this.updateErrorState();
  }

  /** aof_last_write_status for INFO, and the MISCONF error writes get while the AOF is on. */
  updateErrorState(): void {
    const p = this.stats;
    p.aofLastWriteOk = this.writeError === null && this.bioFsyncError === null;
    p.aofWriteError = this.ctx.on() ? (this.writeError ?? this.bioFsyncError) : null;
  }

  /** Redis's exit(1) where it gives up: nothing else runs, no reply leaves, the process ends. */
  die(): void {
    this.p.holdThreadForIo();
    const kernel = this.p.host.kernel;
    kernel.at(kernel.now, () => {
      if (this.p.alive) this.p.exit(1);
    });
  }
}

function noop(): void {}
