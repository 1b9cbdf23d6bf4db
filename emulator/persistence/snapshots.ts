import { RdbError } from './rdb/errors.js';
import type { checkRdb } from './check/rdb/check.js';
import { serverLogLine } from '../server/log-line.js';
import { bytesFromArray } from '../resp/bytes.js';
import { startLoaders } from './start-loading.js';
import { doneLoadingRdb, ForkedRdbWriter, keySaveDelayUs, rdbLoadOptions, saveRdb, type SaveStamp } from './rdb-dataset.js';
import { usedMemory } from '../server/info.js';
import type { RedisServer } from '../server/server.js';
import { DiskError, type FileSystem } from '../sim/disk.js';
import { SimProcess, type Host } from '../sim/host.js';
import type { LoadOutcome, ProcessModule, ProcessServices, ShutdownRequest } from '../process/services.js';
import type { RdbPipe } from '../replication/server-runtime.js';

/**
 * RDB snapshots in time (src/rdb.c, src/server.c): SAVE holds the server's
 * thread while the file is written and synced; BGSAVE forks (the parent
 * stalls for the fork, by the host's cost per GB), and a child process
 * writes the point-in-time dataset to temp-<pid>.rdb, syncs it and renames
 * it over dbfilename while the parent keeps serving; serverCron starts
 * BGSAVEs by the `save` rules and notices the child's end.
 */

/**
 * The lines of rdb.c that report a CRC mismatch and a short read in
 * 7.0.15, as its log shows them ("function at rdb.c:3225 -> RDB CRC error").
 */
const RDB_C_LINE_CRC = 3225;
const RDB_C_LINE_EOF = 3249;

/** Reference microseconds of CPU to serialize or load a kilobyte of RDB (cpu.ts scale). */
const SAVE_US_PER_KB = 4;
const LOAD_US_PER_KB = 6;
/**
 * How much of the file a BGSAVE child serializes and writes at a time. A
 * small piece keeps each step of the simulation short (a page running the
 * world between frames stays responsive during a million-key save).
 */
const CHILD_STEP_BYTES = 16 * 1024;
/** Fork work that does not depend on memory: a small process's fork. */
const FORK_BASE_US = 150;
/** A memory page, the unit copy-on-write copies. */
const PAGE_BYTES = 4096;
/** CONFIG_BGSAVE_RETRY_DELAY: after a failed BGSAVE, the save rules wait this long. */
const BGSAVE_RETRY_DELAY_S = 5;

/** The child that writes a BGSAVE's file, or streams the RDB to replicas (redis-rdb-to-slaves). */
class RdbChild extends SimProcess {
  constructor(host: Host, port: number, title = 'redis-rdb-bgsave') {
    super(host, title, [title, `*:${port}`]);
  }
}

/** SIGUSR1: how Redis stops an RDB child it no longer needs, without counting it as a failed save. */
const SIGUSR1 = 10;


export class Snapshots implements ProcessModule {
  private child: RdbChild | null = null;
  /** Where the running child writes: dbfilename, or the replicas' sockets (rdb_child_type). */
  private childTarget: 'disk' | 'socket' = 'disk';
  /** server.dirty when the running BGSAVE forked (dirty_before_bgsave). */
  private dirtyAtFork = 0;
  private forkStartedUs = 0;
  private lastBgsaveTryS = 0;
  private childKeysTotal = 0;
  /** What the running BGSAVE child is writing. */
  private childWriter: ForkedRdbWriter | null = null;
  private childOutcome: { ok: boolean; signal: number | null } | null = null;
  bgsaveScheduled = false;
  /**
   * Told when the end of an RDB child has been dealt with, with its target
   * (where Redis calls updateSlavesWaitingBgsave).
   */
  readonly childDoneListeners: Array<(ok: boolean, target: 'disk' | 'socket') => void> = [];

  constructor(private readonly p: ProcessServices) {
    p.server.snapshots = this;
  }

  private get disk(): FileSystem {
    return this.p.host.disk;
  }

  private get server(): RedisServer {
    return this.p.server;
  }

  /** The directory and file the config names. */
  private paths(): { dir: string; file: string } {
    const dir = this.server.config.get('dir');
    const name = this.server.config.get('dbfilename');
    return { dir, file: join(dir, name) };
  }

  get childActive(): boolean {
    return this.child !== null;
  }

  /** The running RDB child's target, or null when none runs. */
  get childType(): 'disk' | 'socket' | null {
    return this.child === null ? null : this.childTarget;
  }

  /** SAVE: the thread writes and syncs the file; the reply waits for the disk. */
  save(done?: (ok: boolean) => void): 'ok' | 'in-progress' | 'error' {
    if (this.child !== null) return 'in-progress';
    const server = this.server;
    server.stats.persistence.rdbSaves++;
    const bytes = saveRdb(server);
    this.p.stall(((bytes.length / 1024) * SAVE_US_PER_KB) / this.p.host.profile.cpuSpeed);
    const { file } = this.paths();
    const tmp = join(this.server.config.get('dir'), `temp-${this.p.pid}.rdb`);
    let fd: number;
    try {
      fd = this.openAndWrite(tmp, bytes, this.p.pid);
    } catch (e) {
      this.logWriteError(e, tmp);
      return 'error';
    }
    const release = this.p.holdThreadForIo();
    this.disk.fsync(fd, (err) => {
      release(() => {
        if (err !== null) {
          this.p.log(`Write error saving DB on disk(fsync): ${err.message}`, 'warning');
          this.discard(fd, tmp);
          done?.(false);
          return;
        }
        if (!this.finish(fd, tmp, file)) {
          done?.(false);
          return;
        }
        // fsyncFileDir: the rename itself must reach the disk; the thread waits for that too.
        const releaseDir = this.p.holdThreadForIo();
        this.syncDir(file, (dirErr) => {
          releaseDir(() => {
            if (dirErr !== null) {
              this.p.log(`Write error saving DB on disk(fsyncFileDir): ${dirErr}`, 'warning');
              done?.(false);
              return;
            }
            this.p.log('DB saved on disk');
            server.dirty = 0;
            server.stats.persistence.lastSaveUnixS = Math.floor(this.p.nowUs() / 1e6);
            server.stats.persistence.rdbLastBgsaveOk = true;
            done?.(true);
          });
        });
      });
    });
    return 'ok';
  }

  /** Opens the temp file, writes the bytes; throws DiskError. */
  private openAndWrite(path: string, bytes: Uint8Array, owner: number): number {
    const fd = this.disk.open(path, 'w', owner);
    try {
      this.writeAll(fd, bytes, path);
    } catch (e) {
      this.disk.close(fd);
      try {
        this.disk.unlink(path);
      } catch {
        // Nothing to remove.
      }
      throw e;
    }
    return fd;
  }

  /** fsyncFileDir: syncs the directory holding `file`, so a rename in it is durable. */
  private syncDir(file: string, done: (err: string | null) => void): void {
    const dir = file.slice(0, Math.max(1, file.lastIndexOf('/')));
    let fd: number;
    try {
      fd = this.disk.open(dir, 'r');
    } catch (e) {
      done(e instanceof Error ? e.message : String(e));
      return;
    }
    this.disk.fsync(fd, (err) => {
      try {
        this.disk.close(fd);
      } catch {
        // Closing a directory cannot lose anything.
      }
      done(err === null ? null : err.message);
    });
  }

  /** Closes and removes a temp file after a failure. */
  private discard(fd: number, tmp: string): void {
    try {
      this.disk.close(fd);
    } catch {
      // Closing reports the same failure again.
    }
    try {
      this.disk.unlink(tmp);
    } catch {
      // Already gone.
    }
  }

  /** Closes, renames the temp file over the real one; false on failure. */
  private finish(fd: number, tmp: string, file: string): boolean {
    try {
      this.disk.close(fd);
      this.disk.rename(tmp, file);
      return true;
    } catch (e) {
      const msg = e instanceof DiskError ? e.message : String(e);
      this.p.log(`Error moving temp DB file ${baseName(tmp)} on the final destination ${baseName(file)} (in server root dir ${this.rootDir()}): ${msg}`, 'warning');
      try {
        this.disk.unlink(tmp);
      } catch {
        // Already gone.
      }
      return false;
    }
  }

  /**
   * What getcwd() gives for the log's "in server root dir": the server runs
   * inside its dir, so once that directory is gone getcwd fails and Redis
   * prints "unknown" (rdb.c rdbSave).
   */
  private rootDir(): string {
    const dir = this.server.config.get('dir');
    return this.disk.exists(dir) ? dir : 'unknown';
  }

  private logWriteError(e: unknown, tmp: string): void {
    const msg = e instanceof DiskError ? e.message : String(e);
    if (e instanceof DiskError && e.syscall === 'open') {
      this.p.log(`Failed opening the temp RDB file ${baseName(tmp)} (in server root dir ${this.rootDir()}) for saving: ${msg}`, 'warning');
    } else {
      this.p.log(`Write error saving DB on disk(rdbSaveRio): ${msg}`, 'warning');
    }
  }

  /** BGSAVE: fork, and let a child write the file. */
  bgsave(): 'started' | 'error' {
    if (this.p.hasActiveChild()) return 'error';
    const server = this.server;
    const stats = server.stats;
    this.lastBgsaveTryS = Math.floor(this.p.nowUs() / 1e6);
    this.chargeFork();
    stats.persistence.rdbSaves++;
    this.dirtyAtFork = server.dirty;
    // The child sees the dataset as it was at the fork: the server keeps a
    // key's old state for it before changing it, as copy-on-write pages do.
    const writer = new ForkedRdbWriter(server);
    this.childWriter = writer;
    this.childKeysTotal = writer.keysTotal;
    const child = this.p.host.spawn(new RdbChild(this.p.host, server.port));
    this.child = child;
    this.childTarget = 'disk';
    this.childOutcome = null;
    this.forkStartedUs = this.p.nowUs();
    const p = stats.persistence;
    p.rdbBgsaveInProgress = true;
    p.rdbBgsaveStartUnixS = Math.floor(this.forkStartedUs / 1e6);
    this.p.log(`Background saving started by pid ${child.pid}`);
    child.exitListeners.push((code) => {
      writer.release();
      if (this.childOutcome === null) this.childOutcome = { ok: code === 0, signal: code > 128 ? code - 128 : null };
    });
    const kernel = this.p.kernel;
    const { file } = this.paths();
    const tmp = join(server.config.get('dir'), `temp-${child.pid}.rdb`);
    const cpuSpeed = this.p.host.profile.cpuSpeed;
    // The child has the configuration as it was at the fork.
    const keyDelayUs = server.config.getNumber('rdb-key-save-delay');
    let fd = -1;
    // The child serializes a piece, writes it, and goes on after the CPU
    // time that piece took; the parent serves clients meanwhile.
    const step = (): void => {
      if (!child.alive) return;
      const keysBefore = writer.keysWritten;
      const piece = writer.step(CHILD_STEP_BYTES);
      if (piece === null) {
        this.syncAndInstall(child, fd, tmp, file);
        return;
      }
      try {
        if (fd < 0) fd = this.disk.open(tmp, 'w', child.pid);
        this.writeAll(fd, piece, tmp);
      } catch (e) {
        if (fd >= 0) this.discard(fd, tmp);
        this.logWriteError(e, tmp);
        child.exit(1);
        return;
      }
      const cpuUs = Math.max(1, Math.round(((piece.length / 1024) * SAVE_US_PER_KB) / cpuSpeed));
      kernel.after(cpuUs + keySaveDelayUs(writer.keysWritten - keysBefore, keyDelayUs), step);
    };
    kernel.at(Math.max(kernel.now, this.forkStartedUs), step);
    return 'started';
  }

  /** fork(): copying the page tables stops the parent for a time proportional to its memory. */
  private chargeFork(): void {
    const gb = usedMemory(this.server) / 2 ** 30;
    const forkUs = Math.round(FORK_BASE_US + gb * this.p.host.profile.forkMsPerGb * 1000);
    this.p.stall(forkUs);
    this.server.recordFork(forkUs);
  }

  /**
   * A diskless transfer for replicas (rdbSaveToSlavesSockets): a child
   * writes "$EOF:<mark>\r\n", the RDB of the dataset at the fork (without
   * its databases when `excludeData`) and the mark again into `pipe`, a
   * piece at a time, each after the CPU time it took and once the parent
   * has passed the previous one on. It exits when the parent says it read
   * everything. Not a save: dirty, LASTSAVE and rdb_saves stay as they are.
   */
  bgsaveToSockets(pipe: RdbPipe, opts: { excludeData: boolean; replication: SaveStamp['replication'] }): 'started' | 'error' {
    if (this.p.hasActiveChild()) return 'error';
    const server = this.server;
    this.chargeFork();
    const writer = opts.excludeData ? null : new ForkedRdbWriter(server, { replication: opts.replication });
    const whole = writer === null ? saveRdb(server, { excludeData: true, replication: opts.replication }) : null;
    this.childWriter = writer;
    this.childKeysTotal = writer?.keysTotal ?? 0;
    // Only for the copy-on-write estimate: a transfer's end leaves dirty alone.
    this.dirtyAtFork = server.dirty;
    const mark = server.randomHex(40);
    const child = this.p.host.spawn(new RdbChild(this.p.host, server.port, 'redis-rdb-to-slaves'));
    this.child = child;
    this.childTarget = 'socket';
    this.childOutcome = null;
    this.forkStartedUs = this.p.nowUs();
    const p = server.stats.persistence;
    p.rdbBgsaveInProgress = true;
    p.rdbBgsaveStartUnixS = Math.floor(this.forkStartedUs / 1e6);
    this.p.log(`Background RDB transfer started by pid ${child.pid}`);
    child.exitListeners.push((code) => {
      writer?.release();
      if (this.childOutcome === null) this.childOutcome = { ok: code === 0, signal: code > 128 ? code - 128 : null };
    });
    const kernel = this.p.kernel;
    const cpuSpeed = this.p.host.profile.cpuSpeed;
    const keyDelayUs = server.config.getNumber('rdb-key-save-delay');
    let head: string | null = `$EOF:${mark}\r\n`;
    let ended = false;
    const step = (): void => {
      if (!child.alive) return;
      if (ended) {
        pipe.end(() => {
          if (child.alive) child.exit(0);
        });
        return;
      }
      let piece = head ?? '';
      head = null;
      const keysBefore = writer?.keysWritten ?? 0;
      const bytes = writer !== null ? writer.step(CHILD_STEP_BYTES) : null;
      if (bytes !== null) {
        piece += bytesFromArray(bytes);
      } else {
        // The whole file when there is no data to walk; then the closing mark.
        if (whole !== null) piece += bytesFromArray(whole);
        piece += mark;
        ended = true;
      }
      const cpuUs = Math.max(1, Math.round(((piece.length / 1024) * SAVE_US_PER_KB) / cpuSpeed));
      kernel.after(cpuUs + keySaveDelayUs((writer?.keysWritten ?? 0) - keysBefore, keyDelayUs), () => {
        if (child.alive) pipe.write(piece, step);
      });
    };
    kernel.at(Math.max(kernel.now, this.forkStartedUs), step);
    return 'started';
  }

  /** killRDBChild: SIGUSR1. The child's end is handled as usual, and is no failure of the save. */
  killChild(): void {
    const child = this.child;
    if (child === null || !child.alive) return;
    this.childOutcome = { ok: false, signal: SIGUSR1 };
    this.p.host.reap(child, 128 + SIGUSR1, 'killed');
  }

  /** Writes all of `bytes` at the file's position; throws DiskError. */
  private writeAll(fd: number, bytes: Uint8Array, path: string): void {
    let off = 0;
    while (off < bytes.length) {
      const n = this.disk.write(fd, bytes.subarray(off));
      if (n <= 0) throw new DiskError('ENOSPC', 'write', path);
      off += n;
    }
  }

  /** The child's last steps: fsync the temp file, rename it over dbfilename, sync the directory. */
  private syncAndInstall(child: SimProcess, fd: number, tmp: string, file: string): void {
    this.disk.fsync(fd, (err) => {
      if (!child.alive) return;
      if (err !== null) {
        this.p.log(`Write error saving DB on disk(fsync): ${err.message}`, 'warning', child.pid);
        this.discard(fd, tmp);
        child.exit(1);
        return;
      }
      if (!this.finish(fd, tmp, file)) {
        child.exit(1);
        return;
      }
      this.syncDir(file, (dirErr) => {
        if (!child.alive) return;
        if (dirErr !== null) {
          this.p.log(`Write error saving DB on disk(fsyncFileDir): ${dirErr}`, 'warning', child.pid);
          child.exit(1);
          return;
        }
        this.p.log('DB saved on disk', 'notice', child.pid);
        child.exit(0);
      });
    });
  }

  /**
   * What the child reports while it works (Redis's child info pipe): its
   * progress through the keys, and the copy-on-write memory the parent's
   * writes since the fork have cost, about one 4 KB page per change.
   */
  private reportProgress(): void {
    const server = this.server;
    const p = server.stats.persistence;
    p.currentSaveKeysTotal = this.childKeysTotal;
    p.currentSaveKeysProcessed = this.childWriter?.keysWritten ?? 0;
    p.currentForkPerc = this.childKeysTotal === 0 ? 0 : (p.currentSaveKeysProcessed / this.childKeysTotal) * 100;
    const cow = Math.min(usedMemory(server), Math.max(0, server.dirty - this.dirtyAtFork) * PAGE_BYTES);
    if (cow !== p.currentCowSize) p.currentCowSizeSinceUs = this.p.nowUs();
    p.currentCowSize = cow;
    if (cow > p.currentCowPeak) p.currentCowPeak = cow;
  }

  /**
   * checkChildrenDone's part for an RDB child that has ended: its figures,
   * its log line, and the listeners (the replicas waiting for it). False
   * when no RDB child has ended.
   */
  checkChildDone(): boolean {
    if (this.child === null || this.childOutcome === null) return false;
    const server = this.server;
    const p = server.stats.persistence;
    const nowS = Math.floor(this.p.nowUs() / 1e6);
    const { ok, signal } = this.childOutcome;
    const target = this.childTarget;
    const pid = this.child.pid;
    this.reportProgress();
    p.rdbLastCowSize = p.currentCowSize;
    p.currentCowSize = 0;
    p.currentCowPeak = 0;
    p.currentForkPerc = 0;
    p.currentSaveKeysProcessed = 0;
    p.currentSaveKeysTotal = 0;
    this.child = null;
    p.rdbBgsaveInProgress = false;
    p.rdbLastBgsaveTimeS = nowS - p.rdbBgsaveStartUnixS;
    p.rdbBgsaveStartUnixS = -1;
    if (target === 'socket') {
      // A transfer to replicas saves nothing: only its outcome is logged.
      if (ok) this.p.log('Background RDB transfer terminated with success');
      else if (signal !== null) this.p.log(`Background transfer terminated by signal ${signal}`, 'warning');
      else this.p.log('Background transfer error', 'warning');
    } else if (ok) {
      this.p.log('Background saving terminated with success');
      server.dirty -= this.dirtyAtFork;
      p.lastSaveUnixS = nowS;
      p.rdbLastBgsaveOk = true;
    } else if (signal !== null) {
      this.p.log(`Background saving terminated by signal ${signal}`, 'warning');
      try {
        this.disk.unlink(join(server.config.get('dir'), `temp-${pid}.rdb`));
      } catch {
        // The child had not opened its file yet.
      }
      if (signal !== SIGUSR1) p.rdbLastBgsaveOk = false;
    } else {
      this.p.log('Background saving error', 'warning');
      p.rdbLastBgsaveOk = false;
    }
    for (const l of this.childDoneListeners) l(ok, target);
    return true;
  }

  /** serverCron's part: a finished child, a scheduled BGSAVE, the save rules. */
  cron(): void {
    const server = this.server;
    const p = server.stats.persistence;
    const nowS = Math.floor(this.p.nowUs() / 1e6);
    if (this.child !== null && this.childOutcome === null) this.reportProgress();
    if (this.checkChildDone()) return;
    if (this.p.hasActiveChild()) return;
    if (this.bgsaveScheduled) {
      this.bgsaveScheduled = false;
      this.bgsave();
      return;
    }
    for (const rule of saveRules(server.config.get('save'))) {
      const since = nowS - lastSave(server);
      if (server.dirty >= rule.changes && since > rule.seconds && (nowS - this.lastBgsaveTryS > BGSAVE_RETRY_DELAY_S || p.rdbLastBgsaveOk)) {
        this.p.log(`${rule.changes} changes in ${rule.seconds} seconds. Saving...`);
        this.bgsave();
        break;
      }
    }
  }

  /** finishShutdown: a running child is killed. */
  stop(): void {
    if (this.child === null) return;
    this.p.log('There is a child saving an .rdb. Killing it!', 'warning');
    const c = this.child;
    this.child = null;
    this.server.stats.persistence.rdbBgsaveInProgress = false;
    c.signal('KILL');
  }

  /**
   * The final snapshot of prepareForShutdown, when save rules are set or
   * SAVE is asked, unless NOSAVE. A failed save refuses the shutdown
   * unless FORCE.
   */
  shutdown(request: ShutdownRequest, next: () => void): boolean {
    const flags = request.flags;
    const wantSave = !flags.nosave && (flags.save || saveRules(this.server.config.get('save')).length > 0);
    if (!wantSave) {
      next();
      return true;
    }
    this.p.log('Saving the final RDB snapshot before exiting.');
    const r = this.save((ok) => {
      if (ok || flags.force) {
        if (!ok) this.p.log('Error trying to save the DB. Exit anyway.', 'warning');
        next();
        return;
      }
      this.p.log("Error trying to save the DB, can't exit.", 'warning');
      request.fail();
    });
    if (r === 'ok') return true;
    if (flags.force) {
      this.p.log('Error trying to save the DB. Exit anyway.', 'warning');
      next();
      return true;
    }
    this.p.log("Error trying to save the DB, can't exit.", 'warning');
    return false;
  }

  /**
   * Loads dbfilename at start (rdbLoad), unless the AOF holds the dataset
   * (appendonly yes). Returns the loading time in microseconds, 0 when
   * there is no file, or how the server ends when the file cannot be
   * loaded: a last log line, and the exit code.
   */
  load(): LoadOutcome | null {
    if (this.server.config.getBool('appendonly')) return null;
    const { file } = this.paths();
    let bytes: Uint8Array;
    try {
      if (!this.disk.exists(file)) return { us: 0 };
      bytes = this.disk.readFile(file);
    } catch (e) {
      return { us: 0, error: `Fatal error loading the DB: ${e instanceof Error ? e.message : String(e)}. Exiting.` };
    }
    const server = this.server;
    const nowUs = this.p.nowUs();
    const replication = server.replication;
    replication.beforeRdbLoad();
    const contents = startLoaders().loadRdbIntoServer(
      server,
      bytes,
      rdbLoadOptions(server, {
        nowMs: Math.floor(nowUs / 1000),
        dropExpired: true,
        log: (line) => this.p.log(line),
        onExpired: (db, key) => replication.expiredOnLoad(db, key),
      }),
    );
    if (contents instanceof RdbError) return this.loadFailed(contents, bytes, Math.floor(nowUs / 1000));
    replication.afterRdbLoad(contents.aux);
    this.p.log(doneLoadingRdb(server, contents));
    // key-load-delay (a hidden parameter Redis's tests use to watch a server
    // while it loads) sleeps after every key read, expired ones included.
    const delayUs = keySaveDelayUs(contents.keysLoaded + contents.keysExpired, server.config.getNumber('key-load-delay'));
    const us = ((bytes.length / 1024) * LOAD_US_PER_KB) / this.p.host.profile.cpuSpeed + delayUs;
    return { us: Math.max(1, Math.round(us)) };
  }

  /**
   * A dump.rdb that cannot be loaded. A file that is not an RDB of a known
   * version fails with EINVAL, which loadDataFromDisk reports. A damaged
   * one goes through rdbReportError: the loader's line, then the server
   * runs redis-check-rdb on the file (its report on standard output) and
   * exits with the check's code.
   */
  private loadFailed(e: RdbError, bytes: Uint8Array, nowMs: number): LoadOutcome {
    if (e.code === 'bad-magic' || e.code === 'bad-version') {
      this.p.log(e.message, 'warning');
      return { us: 0, error: 'Fatal error loading the DB: Invalid argument. Exiting.' };
    }
    if (e.code !== 'checksum' && e.code !== 'short-read' && e.code !== 'corrupt' && e.code !== 'unknown-type') return { us: 0, error: e.message };
    const report: string[] = [];
    const name = this.server.config.get('dbfilename');
    // Without the check's code (never so where servers start from files), no report.
    const check = rdbCheck?.(bytes, name, {
      out: (text) => report.push(text),
      logWarning: (text) => report.push(serverLogLine(this.p.pid, nowMs, 'warning', text)),
      nowMs,
    });
    if (e.code === 'checksum') {
      this.p.log(e.detail, 'warning');
      this.p.log(`Internal error in RDB reading offset 0, function at rdb.c:${RDB_C_LINE_CRC} -> ${e.message}`, 'warning');
    } else if (e.code === 'short-read') {
      this.p.log('Short read or OOM loading DB. Unrecoverable error, aborting now.', 'warning');
      this.p.log(`Internal error in RDB reading offset 0, function at rdb.c:${RDB_C_LINE_EOF} -> ${e.message}`, 'warning');
    } else {
      // The check runs the same loader and meets the same damage: it knows which line of rdb.c reports it.
      const c = check?.state.corruption;
      this.p.log(`Internal error in RDB reading offset 0, function at rdb.c:${c?.line ?? RDB_C_LINE_EOF} -> ${c?.message ?? e.message}`, 'warning');
    }
    this.p.stdout(report.join(''));
    return { us: 0, exitCode: check?.outcome === 'ok' ? 0 : 1 };
  }
}

/**
 * redis-check-rdb's check, which a server runs on a dump.rdb it cannot
 * load. It comes with the code kept apart (emulator/commands/on-demand.ts),
 * which registers it; whoever starts a server from files loads that first.
 */
let rdbCheck: typeof checkRdb | null = null;

export function registerRdbCheck(check: typeof checkRdb): void {
  rdbCheck = check;
}

/** The `save` rules: "3600 1 300 100" -> [{seconds 3600, changes 1}, ...]. */
export function saveRules(text: string): Array<{ seconds: number; changes: number }> {
  const parts = text.trim() === '' ? [] : text.trim().split(/\s+/).map(Number);
  const out: Array<{ seconds: number; changes: number }> = [];
  for (let i = 0; i + 1 < parts.length; i += 2) out.push({ seconds: parts[i]!, changes: parts[i + 1]! });
  return out;
}

function lastSave(server: RedisServer): number {
  return server.stats.persistence.lastSaveUnixS ?? Math.floor(server.startMs / 1000);
}

function join(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}
