import type { AofCommands } from '../commands/persistence.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import type { RedisServer } from '../server/server.js';
import type { PersistenceStats } from '../server/stats.js';
import type { ServerCpuCosts } from '../sim/cpu.js';
import type { DiskError } from '../sim/disk.js';
import type { ProcessModule } from '../sim/redis-process.js';
import {
  emptyManifest,
  formatManifest,
  isManifestError,
  manifestErrorLog,
  manifestFileName,
  parseManifest,
  tempIncrFileName,
  tempRewriteFileName,
  withNewBase,
  withNewIncr,
  withoutHistory,
  withRewrittenIncrAsHistory,
  type AofManifest,
} from './aof/manifest.js';
import { AofFeed } from './aof/records.js';
import { AofDir, errorText, type AofProcess } from './aof-dir.js';
import { loadAofAtStart } from './aof-load.js';
import { baseFileBytes, forkRewriteChild, type AofRewriteChild } from './aof-rewrite-child.js';
import type { Snapshots } from './snapshots.js';

/**
 * Redis 7.0's append-only file, inside the simulated redis-server process
 * (src/aof.c, and the parts of src/server.c that drive it):
 *
 * - Writes reach it through the server's propagation, as records in the
 *   AOF buffer (feedAppendOnlyFile).
 * - Before replies leave (beforeSleep), the buffer is written to the
 *   newest incremental file (flushAppendOnlyFile). With appendfsync always
 *   the thread then waits for an fsync, so no reply leaves before its write
 *   is durable; with everysec a background fsync runs at most once a
 *   second, and a write waits up to 2 s for one still running; with no,
 *   only the disk's own writeback makes data durable.
 * - BGREWRITEAOF and the auto-aof-rewrite rules fork a child that writes a
 *   new base while the parent opens a new incremental file; when the child
 *   is done, serverCron makes its file the base, records it in the
 *   manifest and deletes the files it replaces.
 * - At start, with appendonly yes, the files the manifest names are loaded
 *   instead of dump.rdb, and the AOF is opened (a base is written first
 *   when there is nothing yet).
 * - CONFIG SET appendonly yes starts with a rewrite; no stops the AOF.
 */

type AofState = 'off' | 'on' | 'wait-rewrite';

interface RunningRewrite {
  child: AofRewriteChild;
  /** The child's exit code, once it has exited. */
  exitCode: number | null;
}

/** AOF_WRITE_LOG_ERROR_RATE: at most one write error line per 30 s. */
const WRITE_ERROR_LOG_EVERY_S = 30;
/** AOF_REWRITE_LIMITE_THRESHOLD and _MAX_MINUTES: back off after three failed rewrites in a row, up to an hour. */
const REWRITE_FAILURES_BEFORE_LIMIT = 3;
const REWRITE_LIMIT_MAX_MINUTES = 60;
const NOOP = (): void => {};

/** What the engine needs from the process: the AOF's own needs, the snapshot engine, and the CPU costs. */
export interface AofEngineProcess extends AofProcess {
  readonly snapshots: Snapshots;
  readonly costs: ServerCpuCosts;
}

export class AofEngine implements ProcessModule, AofCommands {
  private state: AofState = 'off';
  private manifest: AofManifest = emptyManifest();
  private readonly files: AofDir;
  /** The incremental file being appended to (or the temp one while waiting for the first rewrite). */
  private fd: number | null = null;
  /** aof_buf: records not yet written. */
  private buf = '';
  private readonly feed = new AofFeed();
  private unsubscribe: (() => void) | null = null;
  private lastIncrSize = 0;
  private lastIncrFsyncOffset = 0;
  /** aof_last_fsync, unix seconds. */
  private lastFsyncS: number;
  /** aof_flush_postponed_start, unix seconds; 0 when no write waits. */
  private flushPostponedStartS = 0;
  private bioFsyncsPending = 0;
  /** The strerror of the last failed background fsync while no later one succeeded. */
  private bioFsyncError: string | null = null;
  /** The strerror of the last failed write while no later write succeeded. */
  private writeError: string | null = null;
  private lastWriteErrorLogS = 0;
  private lastErrorRetryMs = 0;
  private rewrite: RunningRewrite | null = null;
  private limitDelayMinutes = 0;
  private limitUntilS = 0;
  /** The old single-file AOF being moved into the directory at start. */
  private upgradingFrom: string | null = null;
  private readonly onWrite = (db: number, argv: string[]): void => this.feedRecord(db, argv);

  constructor(private readonly p: AofEngineProcess) {
    this.files = new AofDir(p);
    this.lastFsyncS = this.unixtime();
    const server = p.server;
    server.aof = this;
    p.snapshots.otherChildActive = () => this.rewrite !== null;
    server.config.onApply('appendonly', (v) => this.applyAppendonly(v));
    server.config.onApply('aof-disable-auto-gc', (v) => {
      if (v === 'no') this.deleteHistory(NOOP);
      return null;
    });
  }

  private get server(): RedisServer {
    return this.p.server;
  }

  private get stats(): PersistenceStats {
    return this.p.server.stats.persistence;
  }

  private unixtime(): number {
    return Math.floor(this.p.nowUs() / 1e6);
  }

  private log(text: string): void {
    this.p.log(text);
  }

  get childActive(): boolean {
    return this.rewrite !== null;
  }

  private anyChildActive(): boolean {
    return this.rewrite !== null || this.p.snapshots.childActive;
  }

  // ---- feeding -------------------------------------------------------------

  private subscribe(): void {
    this.unsubscribe ??= this.server.onPropagate(this.onWrite);
  }

  private unsubscribeWrites(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** feedAppendOnlyFile: while waiting for the first rewrite, records are kept only once its child runs. */
  private feedRecord(db: number, argv: string[]): void {
    const feed = this.feed;
    feed.timestamps = this.server.config.getBool('aof-timestamp-enabled');
    const record = feed.append(db, argv, this.unixtime());
    if (this.state === 'on' || (this.state === 'wait-rewrite' && this.rewrite !== null)) {
      this.buf += record;
      this.stats.aofBufferLength = this.buf.length;
    }
  }

  // ---- the process's moments -------------------------------------------------

  beforeSleep(): void {
    if (this.state === 'off' || this.server.threadBlocked) return;
    this.flush(false);
  }

  /** serverCron's AOF work, in its order. */
  cron(): void {
    const server = this.server;
    const p = this.stats;
    if (server.threadBlocked) return;
    if (!this.anyChildActive() && p.aofRewriteScheduled && !this.rewriteLimited()) this.rewriteBackground();
    if (server.threadBlocked) return;
    if (this.rewrite !== null) {
      if (this.rewrite.exitCode !== null) this.rewriteDone(this.rewrite);
    } else if (!this.anyChildActive()) {
      this.autoRewrite();
    }
    if (server.threadBlocked) return;
    // A write postponed behind a slow background fsync is retried at every cron.
    if (this.state !== 'off' && this.flushPostponedStartS !== 0) this.flush(false);
    if (server.threadBlocked) return;
    // After a write error the buffer is retried once a second, which also clears the error.
    const nowMs = Math.floor(this.p.nowUs() / 1000);
    if (nowMs - this.lastErrorRetryMs >= 1000) {
      this.lastErrorRetryMs = nowMs;
      if (this.state !== 'off' && this.writeError !== null) this.flush(false);
    }
  }

  /**
   * finishShutdown's AOF part: a rewrite child is killed, the buffer written
   * and the file synced. The process exits right after, so the fsync is
   * left to the device: it completes even though no one waits for it.
   */
  shutdown(): void {
    if (this.rewrite !== null) {
      this.log('There is a child rewriting the AOF. Killing it!');
      this.killChild();
    }
    if (this.state === 'off') return;
    this.log('Calling fsync() on the AOF file.');
    this.flush(true, NOOP, false);
    const report = (text: string): void => this.log(`Fail to fsync the AOF file: ${text}.`);
    try {
      this.files.disk.fsync(this.fd ?? -1, (err) => {
        if (err !== null) report(err.message);
      });
    } catch (e) {
      report(errorText(e));
    }
  }

  exit(): void {
    this.unsubscribeWrites();
  }

  // ---- loading and opening at start --------------------------------------------

  /**
   * main()'s AOF steps: read the manifest (always), load the files when
   * appendonly is yes (dump.rdb is then ignored, even with no AOF yet), open
   * the AOF for appending, and delete history files. The file work that
   * must be durable holds the thread until the disk is done.
   */
  load(): { us: number; error?: string } | null {
    const read = this.readManifest();
    if (typeof read === 'string') return { us: 0, error: read };
    this.manifest = read;
    const steps: Array<(next: () => void) => void> = [];
    if (!this.server.config.getBool('appendonly')) {
      steps.push((next) => this.deleteHistory(next));
      runSteps(steps);
      return null;
    }
    const upgradeError = this.prepareUpgrade(steps);
    if (upgradeError !== null) return { us: 0, error: upgradeError };
    const files = this.files;
    const from = this.upgradingFrom;
    const loaded = loadAofAtStart(this.p, files, this.manifest, (name) => (from !== null && name === files.appendFilename ? from : files.path(name)));
    if (loaded.error !== undefined) return { us: 0, error: loaded.error };
    if (loaded.status === 'ok' || loaded.status === 'truncated') {
      this.stats.aofCurrentSize = loaded.totalBytes;
      this.stats.aofBaseSize = loaded.baseBytes;
    }
    const openError = this.openAtStart(steps);
    if (openError !== null) return { us: 0, error: openError };
    steps.push((next) => this.deleteHistory(next));
    runSteps(steps);
    return { us: loaded.us };
  }

  /** aofLoadManifestFromDisk: the manifest, an empty one when there is none, or the line to exit with. */
  private readManifest(): AofManifest | string {
    const files = this.files;
    if (!files.dirExists()) return emptyManifest();
    const name = manifestFileName(files.appendFilename);
    const path = files.path(name);
    if (!files.exists(path)) return emptyManifest();
    let text: string;
    try {
      text = bytesFromArray(files.disk.readFile(path));
    } catch (e) {
      return `Fatal error: can't open the AOF manifest file ${files.logPath(name)} for reading: ${errorText(e)}`;
    }
    const m = parseManifest(text);
    if (!isManifestError(m)) return m;
    const lines = manifestErrorLog(m);
    for (const l of lines.slice(0, -1)) this.log(l);
    return lines[lines.length - 1]!;
  }

  /**
   * loadAppendOnlyFiles' upgrade from an older Redis's single appendonly.aof
   * in `dir` (aofUpgradePrepare): it becomes the base of a new manifest and
   * moves into the directory. It is loaded from where it is; the move
   * follows the manifest's sync.
   */
  private prepareUpgrade(steps: Array<(next: () => void) => void>): string | null {
    const files = this.files;
    const name = files.appendFilename;
    const old = files.workPath(name);
    const m = this.manifest;
    const noFiles = m.base === null && m.incr.length === 0;
    const onlyOldBase = m.base !== null && m.incr.length === 0 && m.base.name === name && !files.exists(files.path(name));
    if (!files.exists(old) || !(!files.dirExists() || noFiles || onlyOldBase)) return null;
    const dirErr = files.createDir();
    if (dirErr !== null) return `Can't open or create append-only dir ${files.dirName}: ${dirErr}`;
    this.manifest = { ...m, base: { name, seq: 1, type: 'b' }, baseSeq: 1 };
    this.upgradingFrom = old;
    const manifestText = formatManifest(this.manifest);
    steps.push((next) =>
      files.writeManifest(manifestText, (ok) => {
        if (!ok) return this.die();
        try {
          files.disk.rename(old, files.path(name));
        } catch (e) {
          this.log(`Error trying to move the old AOF file ${name} into dir ${files.dirName}: ${errorText(e)}`);
          return this.die();
        }
        this.upgradingFrom = null;
        next();
      }),
    );
    this.log(`Successfully migrated an old-style AOF file (${name}) into the AOF directory (${files.dirName}).`);
    return null;
  }

  /**
   * aofOpenIfNeededOnServerStart: with nothing to load, a base of the (empty)
   * dataset is written first; then the last incremental file is opened for
   * appending, or a new one created, and the manifest saved. Its lines are
   * logged at once, in Redis's order; the syncs follow with the thread held.
   */
  private openAtStart(steps: Array<(next: () => void) => void>): string | null {
    const files = this.files;
    const disk = files.disk;
    const dirErr = files.createDir();
    if (dirErr !== null) return `Can't open or create append-only dir ${files.dirName}: ${dirErr}`;
    let m = this.manifest;
    let dirty = false;
    if (m.base === null && m.incr.length === 0) {
      const next = withNewBase(m, files.appendFilename, this.server.config.getBool('aof-use-rdb-preamble'));
      m = next.manifest;
      dirty = true;
      const tmp = files.workPath(`temp-rewriteaof-${this.p.pid}.aof`);
      let fd: number;
      try {
        fd = disk.open(tmp, 'w', this.p.pid);
      } catch (e) {
        return `Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): ${errorText(e)}`;
      }
      const w = files.writeAll(fd, baseFileBytes(this.server, this.p.nowUs()));
      if (w.error !== null) {
        files.closeQuietly(fd);
        files.unlinkQuietly(tmp);
        return `Write error writing append only file on disk: ${w.error}`;
      }
      const basePath = files.path(next.name);
      steps.push((done) =>
        files.fsyncHeld(fd, (err) => {
          files.closeQuietly(fd);
          if (err !== null) {
            this.log(`Write error writing append only file on disk: ${err}`);
            files.unlinkQuietly(tmp);
            return this.die();
          }
          try {
            disk.rename(tmp, basePath);
          } catch (e) {
            this.log(`Error moving temp append only file on the final destination: ${errorText(e)}`);
            files.unlinkQuietly(tmp);
            return this.die();
          }
          done();
        }),
      );
      this.log(`Creating AOF base file ${next.name} on server start`);
    }
    const reopen = m.incr.length !== 0;
    let incrName: string;
    if (reopen) {
      incrName = m.incr[m.incr.length - 1]!.name;
    } else {
      const next = withNewIncr(m, files.appendFilename);
      m = next.manifest;
      incrName = next.name;
      dirty = true;
    }
    let fd: number;
    try {
      fd = disk.open(files.path(incrName), 'a', this.p.pid);
    } catch (e) {
      return `Can't open the append-only file ${incrName}: ${errorText(e)}`;
    }
    this.fd = fd;
    this.manifest = m;
    if (dirty) {
      const text = formatManifest(m);
      steps.push((done) => files.writeManifest(text, (ok) => (ok ? done() : this.die())));
    }
    this.lastIncrSize = files.size(files.path(incrName)) ?? 0;
    this.lastIncrFsyncOffset = this.lastIncrSize;
    this.state = 'on';
    this.subscribe();
    this.log(reopen ? `Opening AOF incr file ${incrName} on server start` : `Creating AOF incr file ${incrName} on server start`);
    return null;
  }

  /** aofDelHistoryFiles: history files go, and the manifest forgets them. */
  private deleteHistory(next: () => void): void {
    const files = this.files;
    if (this.server.config.getBool('aof-disable-auto-gc') || this.manifest.history.length === 0) {
      next();
      return;
    }
    for (const h of this.manifest.history) {
      this.log(`Removing the history file ${h.name} in the background`);
      files.unlinkQuietly(files.path(h.name));
    }
    this.manifest = withoutHistory(this.manifest);
    files.writeManifest(formatManifest(this.manifest), () => next());
  }

  /** Redis's exit(1) where it gives up: nothing else runs, no reply leaves, the process ends. */
  private die(): void {
    this.p.holdThreadForIo();
    const kernel = this.p.host.kernel;
    kernel.at(kernel.now, () => {
      if (this.p.alive) this.p.exit(1);
    });
  }

  // ---- writing and syncing -------------------------------------------------------

  private policy(): string {
    return this.server.config.get('appendfsync');
  }

  /**
   * flushAppendOnlyFile. `then` runs once the work is done: at once, or
   * after the fsync the thread waits for (appendfsync always). `hold`
   * false only at shutdown, where the process is about to end.
   */
  private flush(force: boolean, then: () => void = NOOP, hold = true): void {
    const policy = this.policy();
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
        if (canLog) this.log(`Error writing to the AOF file: ${error}`);
      } else {
        if (canLog) this.log(`Short write while writing to the AOF file: (nwritten=${written}, expected=${expected})`);
        try {
          files.disk.ftruncate(fd!, this.lastIncrSize);
          written = 0;
        } catch (e) {
          if (canLog) {
            this.log(
              `Could not remove short write from the append-only file.  Redis may refuse to load the AOF the next time it starts.  ftruncate: ${errorText(e)}`,
            );
          }
        }
        error = 'No space left on device';
      }
      if (policy === 'always') {
        // Replies may already promise the data: the only safe way out is to stop.
        this.log("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...");
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
      this.log('AOF write error looks solved, Redis can write again.');
      this.writeError = null;
      this.updateErrorState();
    }
    p.aofCurrentSize += expected;
    this.lastIncrSize += expected;
    this.buf = '';
    p.aofBufferLength = 0;
    return true;
  }

  /** flushAppendOnlyFile's try_fsync part. */
  private syncAfterWrite(policy: string, syncInProgress: boolean, nowS: number, then: () => void, hold: boolean): void {
    if (this.server.config.getBool('no-appendfsync-on-rewrite') && this.anyChildActive()) {
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
      const done = (err: string | null): void => {
        if (err !== null) {
          this.log(`Can't persist AOF for fsync error when the AOF fsync policy is 'always': ${err}. Exiting...`);
          this.die();
          return;
        }
        release(() => {
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
        if (this.bioFsyncError === null) this.log(`Fail to fsync the AOF file: ${err.message}`);
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

  /** bioCreateCloseJob with fsync: the replaced incremental file is synced and closed in the background. */
  private closeInBackground(fd: number): void {
    const files = this.files;
    try {
      files.disk.fsync(fd, () => files.closeQuietly(fd));
    } catch {
      files.closeQuietly(fd);
    }
  }

  /** aof_last_write_status for INFO, and the MISCONF error writes get while the AOF is on. */
  private updateErrorState(): void {
    const p = this.stats;
    p.aofLastWriteOk = this.writeError === null && this.bioFsyncError === null;
    p.aofWriteError = this.state === 'off' ? null : (this.writeError ?? this.bioFsyncError);
  }

  // ---- CONFIG SET appendonly ----------------------------------------------------

  private applyAppendonly(value: string): string | null {
    if (value === 'no' && this.state !== 'off') this.stop();
    else if (value === 'yes' && this.state === 'off' && !this.start()) return 'Unable to turn on AOF. Check server logs.';
    return null;
  }

  /** Whether the running command is inside EXEC (server.in_exec). */
  private inExec(): boolean {
    for (const c of this.server.clients.values()) if (c.inExec) return true;
    return false;
  }

  /** startAppendOnly: the AOF waits for a first rewrite, which starts now or when the other child is done. */
  private start(): boolean {
    const p = this.stats;
    this.state = 'wait-rewrite';
    this.subscribe();
    if (this.p.snapshots.childActive) {
      p.aofRewriteScheduled = true;
      this.log('AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.');
    } else if (this.inExec()) {
      p.aofRewriteScheduled = true;
      this.log('AOF was enabled during a transaction. An AOF background was scheduled to start when possible.');
    } else {
      if (this.rewrite !== null) {
        this.log('AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.');
        this.killChild();
      }
      if (!this.rewriteBackground()) {
        this.state = 'off';
        this.unsubscribeWrites();
        this.log(
          "Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.",
        );
        return false;
      }
    }
    this.lastFsyncS = this.unixtime();
    if (this.bioFsyncError !== null) {
      this.log('AOF reopen, just ignore the AOF fsync error in bio job');
      this.bioFsyncError = null;
    }
    if (this.writeError !== null) {
      this.log('AOF reopen, just ignore the last error.');
      this.writeError = null;
    }
    this.updateErrorState();
    return true;
  }

  /** stopAppendOnly: write and sync what is left (the thread waits), close, forget the rest. */
  private stop(): void {
    const fd = this.fd;
    this.flush(true, () =>
      this.files.fsyncHeld(fd, (err) => {
        if (err !== null) this.log(`Fail to fsync the AOF file: ${err}`);
        else this.lastFsyncS = this.unixtime();
        if (fd !== null) this.files.closeQuietly(fd);
      }),
    );
    this.fd = null;
    this.feed.forgetSelectedDb();
    this.state = 'off';
    this.unsubscribeWrites();
    const p = this.stats;
    p.aofRewriteScheduled = false;
    this.lastIncrSize = 0;
    this.lastIncrFsyncOffset = 0;
    this.killChild();
    this.buf = '';
    p.aofBufferLength = 0;
    this.updateErrorState();
  }

  // ---- rewriting ----------------------------------------------------------------

  /** BGREWRITEAOF. */
  bgrewriteaof(inExec: boolean): 'started' | 'scheduled' | 'in-progress' | 'error' {
    if (this.rewrite !== null) return 'in-progress';
    if (this.p.snapshots.childActive || inExec) {
      this.stats.aofRewriteScheduled = true;
      // Asked for by hand: it may run at once even after failures.
      this.stats.aofRewritesConsecutiveFailures = 0;
      return 'scheduled';
    }
    return this.rewriteBackground() ? 'started' : 'error';
  }

  /**
   * rewriteAppendOnlyFileBackground. False when it fails at once; a failure
   * found after the thread waited for the disk (syncing the manifest) is
   * logged, as Redis does, but the caller has already answered.
   */
  private rewriteBackground(): boolean {
    if (this.anyChildActive()) return false;
    const p = this.stats;
    const files = this.files;
    const dirErr = files.createDir();
    if (dirErr !== null) {
      this.log(`Can't open or create append-only dir ${files.dirName}: ${dirErr}`);
      p.aofLastBgrewriteOk = false;
      return false;
    }
    this.feed.forgetSelectedDb();
    let returned = false;
    let failedAtOnce = false;
    this.flush(true, () =>
      this.openNewIncr((opened) => {
        if (!opened) {
          p.aofLastBgrewriteOk = false;
          if (!returned) failedAtOnce = true;
          return;
        }
        p.aofRewrites++;
        const child = forkRewriteChild(this.p, files);
        const run: RunningRewrite = { child, exitCode: null };
        this.rewrite = run;
        child.exitListeners.push((code) => {
          run.exitCode ??= code;
        });
        this.log(`Background append only file rewriting started by pid ${child.pid}`);
        p.aofRewriteScheduled = false;
        p.aofRewriteInProgress = true;
        p.aofRewriteStartUnixS = this.unixtime();
      }),
    );
    returned = true;
    return !failedAtOnce;
  }

  /**
   * openNewIncrAofForAppend: writes after the fork go to a new incremental
   * file (recorded in the manifest first), or, while waiting for the first
   * rewrite, to a temp one. The old file is synced and closed in the background.
   */
  private openNewIncr(done: (ok: boolean) => void): void {
    if (this.state === 'off') {
      done(true);
      return;
    }
    const files = this.files;
    let name: string;
    let next: AofManifest | null = null;
    if (this.state === 'wait-rewrite') {
      name = tempIncrFileName(files.appendFilename);
    } else {
      const r = withNewIncr(this.manifest, files.appendFilename);
      next = r.manifest;
      name = r.name;
    }
    let fd: number;
    try {
      fd = files.disk.open(files.path(name), 'w', this.p.pid);
    } catch (e) {
      this.log(`Can't open the append-only file ${name}: ${errorText(e)}`);
      done(false);
      return;
    }
    const switchTo = (): void => {
      this.log(`Creating AOF incr file ${name} on background rewrite`);
      if (this.fd !== null) {
        this.closeInBackground(this.fd);
        this.lastFsyncS = this.unixtime();
      }
      this.fd = fd;
      this.lastIncrSize = 0;
      this.lastIncrFsyncOffset = 0;
      if (next !== null) this.manifest = next;
      done(true);
    };
    if (next === null) {
      switchTo();
      return;
    }
    files.writeManifest(formatManifest(next), (ok) => {
      if (!ok) {
        files.closeQuietly(fd);
        done(false);
        return;
      }
      switchTo();
    });
  }

  /** killAppendOnlyChild: the child goes without its end being reported, and its temp files with it. */
  private killChild(): void {
    const run = this.rewrite;
    if (run === null) return;
    const pid = run.child.pid;
    this.log(`Killing running AOF rewrite child: ${pid}`);
    this.rewrite = null;
    run.child.signal('KILL');
    this.removeTempFiles(pid);
    this.stats.aofRewriteInProgress = false;
    this.stats.aofRewriteStartUnixS = -1;
  }

  /** aofRemoveTempFile. */
  private removeTempFiles(pid: number): void {
    this.files.unlinkQuietly(this.files.workPath(tempRewriteFileName(pid)));
    this.files.unlinkQuietly(this.files.workPath(`temp-rewriteaof-${pid}.aof`));
  }

  /** backgroundRewriteDoneHandler. */
  private rewriteDone(run: RunningRewrite): void {
    const p = this.stats;
    const files = this.files;
    const pid = run.child.pid;
    const code = run.exitCode!;
    this.rewrite = null;
    p.aofRewriteInProgress = false;
    const failed = (): void => {
      p.aofLastBgrewriteOk = false;
      p.aofRewritesConsecutiveFailures++;
    };
    const cleanup = (): void => {
      this.removeTempFiles(pid);
      if (this.state === 'wait-rewrite') {
        this.buf = '';
        p.aofBufferLength = 0;
        const temp = tempIncrFileName(files.appendFilename);
        this.log(`Removing the temp incr aof file ${temp} in the background`);
        files.unlinkQuietly(files.path(temp));
      }
      p.aofLastRewriteTimeS = this.unixtime() - p.aofRewriteStartUnixS;
      p.aofRewriteStartUnixS = -1;
      // Still waiting to switch the AOF on: try again.
      if (this.state === 'wait-rewrite') p.aofRewriteScheduled = true;
    };
    if (code === 0) {
      this.installRewrite(pid, failed, cleanup);
    } else if (code <= 128) {
      failed();
      this.log('Background AOF rewrite terminated with error');
      cleanup();
    } else {
      failed();
      this.log(`Background AOF rewrite terminated by signal ${code - 128}`);
      cleanup();
    }
  }

  /** The child's file becomes the new base; the files it covers become history and are deleted. */
  private installRewrite(pid: number, failed: () => void, cleanup: () => void): void {
    const files = this.files;
    const disk = files.disk;
    const p = this.stats;
    this.log('Background AOF rewrite terminated with success');
    const tmpName = tempRewriteFileName(pid);
    const base = withNewBase(this.manifest, files.appendFilename, this.server.config.getBool('aof-use-rdb-preamble'));
    let next = base.manifest;
    const basePath = files.path(base.name);
    try {
      disk.rename(files.workPath(tmpName), basePath);
    } catch (e) {
      this.log(`Error trying to rename the temporary AOF base file ${tmpName} into ${files.logPath(base.name)}: ${errorText(e)}`);
      failed();
      cleanup();
      return;
    }
    this.log(`Successfully renamed the temporary AOF base file ${tmpName} into ${base.name}`);
    let newIncrPath: string | null = null;
    if (this.state === 'wait-rewrite') {
      const tempIncr = tempIncrFileName(files.appendFilename);
      const incr = withNewIncr(next, files.appendFilename);
      next = incr.manifest;
      try {
        disk.rename(files.path(tempIncr), files.path(incr.name));
      } catch (e) {
        this.log(`Error trying to rename the temporary AOF incr file ${files.logPath(tempIncr)} into ${files.logPath(incr.name)}: ${errorText(e)}`);
        files.unlinkQuietly(basePath);
        failed();
        cleanup();
        return;
      }
      newIncrPath = files.path(incr.name);
      this.log(`Successfully renamed the temporary AOF incr file ${tempIncr} into ${incr.name}`);
    }
    next = withRewrittenIncrAsHistory(next, this.fd !== null);
    files.writeManifest(formatManifest(next), (ok) => {
      if (!ok) {
        files.unlinkQuietly(basePath);
        if (newIncrPath !== null) files.unlinkQuietly(newIncrPath);
        failed();
        cleanup();
        return;
      }
      this.manifest = next;
      if (this.state !== 'off') {
        p.aofCurrentSize = (files.size(basePath) ?? 0) + this.lastIncrSize;
        p.aofBaseSize = p.aofCurrentSize;
      }
      this.deleteHistory(() => {
        p.aofLastBgrewriteOk = true;
        p.aofRewritesConsecutiveFailures = 0;
        this.log('Background AOF rewrite finished successfully');
        if (this.state === 'wait-rewrite') {
          this.state = 'on';
          this.updateErrorState();
        }
        cleanup();
      });
    });
  }

  /** serverCron's auto-aof-rewrite-percentage / -min-size rule. */
  private autoRewrite(): void {
    const cfg = this.server.config;
    const p = this.stats;
    const perc = cfg.getNumber('auto-aof-rewrite-percentage');
    if (this.state !== 'on' || perc === 0 || p.aofCurrentSize <= cfg.getNumber('auto-aof-rewrite-min-size')) return;
    const base = p.aofBaseSize !== 0 ? p.aofBaseSize : 1;
    const growth = Math.trunc((p.aofCurrentSize * 100) / base) - 100;
    if (growth >= perc && !this.rewriteLimited()) {
      this.log(`Starting automatic rewriting of AOF on ${growth}% growth`);
      this.rewriteBackground();
    }
  }

  /** aofRewriteLimited: after repeated failures, automatic rewrites wait 1, 2, 4 ... up to 60 minutes. */
  private rewriteLimited(): boolean {
    if (this.stats.aofRewritesConsecutiveFailures < REWRITE_FAILURES_BEFORE_LIMIT) {
      this.limitDelayMinutes = 0;
      this.limitUntilS = 0;
      return false;
    }
    const nowS = this.unixtime();
    if (this.limitUntilS !== 0) {
      if (nowS < this.limitUntilS) return true;
      this.limitUntilS = 0;
      return false;
    }
    this.limitDelayMinutes = Math.min(REWRITE_LIMIT_MAX_MINUTES, this.limitDelayMinutes === 0 ? 1 : this.limitDelayMinutes * 2);
    this.limitUntilS = nowS + this.limitDelayMinutes * 60;
    this.log(`Background AOF rewrite has repeatedly failed and triggered the limit, will retry in ${this.limitDelayMinutes} minutes`);
    return true;
  }
}

/** Runs file steps one after the other; each calls `next` when its I/O is done. */
function runSteps(steps: Array<(next: () => void) => void>): void {
  const run = (i: number): void => {
    if (i < steps.length) steps[i]!(() => run(i + 1));
  };
  run(0);
}
