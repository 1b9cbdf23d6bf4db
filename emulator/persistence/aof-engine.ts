import { emptyData } from '../server/empty-data.js';
import type { AofCommands } from '../commands/persistence.js';
import type { RedisServer } from '../server/server.js';
import { PROPAGATE } from '../server/client.js';
import type { PersistenceStats } from '../server/stats.js';
import type { LoadOutcome, ProcessModule, ProcessServices, ShutdownRequest } from '../process/services.js';
import { emptyManifest, formatManifest, withoutHistory, type AofManifest } from './aof/manifest.js';
import { AofDir, errorText } from './aof-dir.js';
import { startLoaders } from './start-loading.js';
import { AofRewriter, type AofRewriteHost, type AofState } from './aof-rewrite.js';
import { openAtStart, prepareUpgrade, readManifestAtStart, runSteps, type FileStep } from './aof-startup.js';
import { AofWriter } from './aof-writer.js';
import { Snapshots } from './snapshots.js';
import type { ServerLogLevel } from '../server/log-line.js';

/**
 * Redis 7.0's append-only file, inside the simulated redis-server process
 * (src/aof.c, and the parts of src/server.c that drive it):
 *
 * - Writes reach it through the server's propagation, as records in the
 *   AOF buffer; before replies leave (beforeSleep) the buffer goes to the
 *   newest incremental file and is synced by the appendfsync policy
 *   (aof-writer.ts).
 * - BGREWRITEAOF and the auto-aof-rewrite rules fork a child that writes a
 *   new base (aof-rewrite.ts).
 * - At start, with appendonly yes, the files the manifest names are loaded
 *   instead of dump.rdb (aof-replay.ts), and the AOF is opened, a base being
 *   written first when there is nothing yet (aof-startup.ts).
 * - CONFIG SET appendonly yes starts with a rewrite; no stops the AOF.
 *
 * A module of the process (process/services.ts): `proc.addModule((s) => new AofEngine(s))`.
 */

export class AofEngine implements ProcessModule, AofCommands, AofRewriteHost {
  state: AofState = 'off';
  manifest: AofManifest = emptyManifest();
  readonly writer: AofWriter;
  private readonly files: AofDir;
  private readonly rewriter: AofRewriter;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly p: ProcessServices) {
    this.files = new AofDir(p);
    this.writer = new AofWriter(p, this.files, {
      on: () => this.state !== 'off',
      keeping: () => this.state === 'on' || (this.state === 'wait-rewrite' && this.rewriter.active),
      anyChildActive: () => this.rewriter.anyChildActive(),
    });
    this.rewriter = new AofRewriter(p, this.files, this);
    const server = p.server;
    server.aof = this;
    server.config.onApply('appendonly', (v) => this.applyAppendonly(v));
    server.config.onApply('aof-disable-auto-gc', (v) => {
      if (v === 'no') this.deleteHistory(() => {});
      return null;
    });
  }

  private get server(): RedisServer {
    return this.p.server;
  }

  /** The RDB child, if one runs: the AOF waits for it (one child at a time). */
  private get rdbChildActive(): boolean {
    return this.p.module(Snapshots)?.childActive === true;
  }

  private get stats(): PersistenceStats {
    return this.p.server.stats.persistence;
  }

  private log(text: string, level: ServerLogLevel = 'notice'): void {
    this.p.log(text, level);
  }

  get childActive(): boolean {
    return this.rewriter.active;
  }

  private subscribe(): void {
    this.unsubscribe ??= this.server.onPropagate((db, argv) => this.writer.append(db, argv), PROPAGATE.AOF);
  }

  private unsubscribeWrites(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  // ---- the process's moments -------------------------------------------------

  beforeSleep(): void {
    if (this.state === 'off' || this.server.threadBlocked) return;
    this.writer.flush(false);
  }

  cron(): void {
    const server = this.server;
    if (server.threadBlocked) return;
    this.rewriter.cron();
    if (server.threadBlocked || this.state === 'off') return;
    this.writer.cron();
  }

  /**
   * finishShutdown's AOF part: a rewrite child is killed, the buffer written
   * and the file synced. Redis calls fsync on its main thread, so the
   * shutdown goes on (and the process exits) only once the data is on the
   * device: a power loss right after a clean exit loses nothing.
   */
  shutdown(request: ShutdownRequest, next: () => void): boolean {
    const force = request.flags.force;
    if (this.state === 'off') {
      if (this.rewriter.active) this.rewriter.kill();
      next();
      return true;
    }
    if (this.rewriter.active) {
      // The AOF was just switched on and its first file is not written:
      // exiting now would leave no AOF with the dataset.
      if (this.state === 'wait-rewrite') {
        if (!force) {
          this.p.log("Writing initial AOF, can't exit.", 'warning');
          return false;
        }
        this.p.log('Writing initial AOF. Exit anyway.', 'warning');
      }
      this.p.log('There is a child rewriting the AOF. Killing it!', 'warning');
      this.rewriter.kill();
    }
    this.log('Calling fsync() on the AOF file.');
    const writer = this.writer;
    writer.flush(true, () => {}, false);
    const report = (text: string): void => this.log(`Fail to fsync the AOF file: ${text}.`, 'warning');
    if (writer.fd === null) {
      next();
      return true;
    }
    const release = this.p.holdThreadForIo();
    try {
      this.files.disk.fsync(writer.fd, (err) => {
        release(() => {
          if (err !== null) report(err.message);
          next();
        });
      });
    } catch (e) {
      report(errorText(e));
      release(next);
    }
    return true;
  }

  exit(): void {
    this.unsubscribeWrites();
  }

  /**
   * DEBUG LOADAOF (src/debug.c): write out the buffer, empty the dataset,
   * read the manifest again and load the files, as at start. False when
   * they cannot be loaded: redis-server then exits.
   */
  debugLoadAof(): boolean {
    if (this.state !== 'off') this.writer.flush(true, () => {}, false);
    const server = this.server;
    emptyData(server, -1, { functions: true });
    const read = readManifestAtStart(this.p, this.files);
    if (typeof read === 'string') return false;
    this.manifest = read;
    const loaded = startLoaders().loadAofAtStart(this.p, this.files, this.manifest, (name) => this.files.path(name));
    if (loaded.error !== undefined || (loaded.status !== 'ok' && loaded.status !== 'empty' && loaded.status !== 'truncated')) return false;
    server.dirty = 0;
    this.p.log('Append Only File loaded by DEBUG LOADAOF', 'warning');
    return true;
  }

  /** main()'s first AOF step: the manifest is read whether the AOF is on or not (aofLoadManifestFromDisk). */
  prepare(): string | null {
    const read = readManifestAtStart(this.p, this.files);
    if (typeof read === 'string') return read;
    this.manifest = read;
    return null;
  }

  /**
   * main()'s other AOF steps: load the files when appendonly is yes
   * (dump.rdb is then ignored, even with no AOF yet), open the AOF for
   * appending, and delete history files. The file work that must be
   * durable holds the thread until the disk is done.
   */
  load(): LoadOutcome | null {
    const files = this.files;
    const steps: FileStep[] = [];
    const deleteHistory: FileStep = (next) => this.deleteHistory(next);
    if (!this.server.config.getBool('appendonly')) {
      runSteps([deleteHistory]);
      return null;
    }
    const die = (): void => this.writer.die();
    const upgrade = prepareUpgrade(this.p, files, this.manifest, steps, die);
    if (typeof upgrade === 'string') return { us: 0, error: upgrade };
    if (upgrade !== null) this.manifest = upgrade.manifest;
    const from = upgrade?.from ?? null;
    const loaded = startLoaders().loadAofAtStart(this.p, files, this.manifest, (name) => (from !== null && name === files.appendFilename ? from : files.path(name)));
    if (loaded.error !== undefined) return { us: 0, error: loaded.error };
    if (loaded.status === 'ok' || loaded.status === 'truncated') {
      this.stats.aofCurrentSize = loaded.totalBytes;
      this.stats.aofBaseSize = loaded.baseBytes;
    }
    // loadDataFromDisk reports the whole loading before the incr file is opened for appending.
    const loadedUs = loaded.status === 'ok' || loaded.status === 'truncated' ? loaded.us : 0;
    if (loaded.status !== 'not-exist') this.log(`DB loaded from append only file: ${(loadedUs / 1e6).toFixed(3)} seconds`);
    const opened = openAtStart(this.p, files, this.manifest, steps, die);
    if (typeof opened === 'string') return { us: 0, error: opened };
    this.manifest = opened.manifest;
    const writer = this.writer;
    writer.fd = opened.fd;
    writer.lastIncrSize = opened.incrSize;
    writer.lastIncrFsyncOffset = opened.incrSize;
    this.state = 'on';
    this.subscribe();
    steps.push(deleteHistory);
    runSteps(steps);
    return { us: loaded.us, loadedLine: null };
  }

  /** aofDelHistoryFiles: history files go, and the manifest forgets them. */
  deleteHistory(next: () => void): void {
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

  // ---- commands and CONFIG SET appendonly -------------------------------------------

  /** BGREWRITEAOF. */
  bgrewriteaof(inExec: boolean, answer: (ok: boolean) => void): 'started' | 'pending' | 'scheduled' | 'in-progress' | 'error' {
    if (this.rewriter.active) return 'in-progress';
    if (this.rdbChildActive || inExec) {
      this.stats.aofRewriteScheduled = true;
      // Asked for by hand: it may run at once even after failures.
      this.stats.aofRewritesConsecutiveFailures = 0;
      return 'scheduled';
    }
    return this.rewriter.start(answer);
  }

  private applyAppendonly(value: string): string | null {
    if (value === 'no' && this.state !== 'off') this.stopAppendOnly();
    else if (value === 'yes' && this.state === 'off' && !this.startAppendOnly()) return 'Unable to turn on AOF. Check server logs.';
    return null;
  }

  /** Whether the running command is inside EXEC (server.in_exec). */
  private inExec(): boolean {
    for (const c of this.server.clients.values()) if (c.inExec) return true;
    return false;
  }

  /** startAppendOnly: the AOF waits for a first rewrite, which starts now or when the other child is done. */
  private startAppendOnly(): boolean {
    const p = this.stats;
    this.state = 'wait-rewrite';
    this.subscribe();
    if (this.rdbChildActive) {
      p.aofRewriteScheduled = true;
      this.log('AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.', 'warning');
    } else if (this.inExec()) {
      p.aofRewriteScheduled = true;
      this.log('AOF was enabled during a transaction. An AOF background was scheduled to start when possible.', 'warning');
    } else {
      if (this.rewriter.active) {
        this.log('AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.', 'warning');
        this.rewriter.kill();
      }
      if (this.rewriter.start() === 'error') {
        this.state = 'off';
        this.unsubscribeWrites();
        this.log(
          "Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.", 'warning',
        );
        return false;
      }
    }
    this.writer.lastFsyncS = Math.floor(this.p.nowUs() / 1e6);
    this.writer.forgetErrors();
    return true;
  }

  /**
   * A replica about to load its primary's snapshot stops its AOF (what it
   * logged is about to be replaced); false when it was off.
   */
  stopForSync(): boolean {
    if (this.state === 'off') return false;
    this.stopAppendOnly();
    return true;
  }

  /**
   * restartAOFAfterSYNC: with appendonly yes, the AOF starts again from a
   * rewrite of the data just loaded. False when it cannot start.
   */
  restartAfterSync(): boolean {
    if (!this.server.config.getBool('appendonly') || this.state !== 'off') return true;
    return this.startAppendOnly();
  }

  /** stopAppendOnly: write and sync what is left (the thread waits), close, forget the rest. */
  private stopAppendOnly(): void {
    const writer = this.writer;
    const files = this.files;
    const fd = writer.fd;
    writer.flush(true, () =>
      files.fsyncHeld(fd, (err) => {
        if (err !== null) this.log(`Fail to fsync the AOF file: ${err}`, 'warning');
        else writer.lastFsyncS = Math.floor(this.p.nowUs() / 1e6);
        if (fd !== null) files.closeQuietly(fd);
      }),
    );
    writer.fd = null;
    writer.feed.forgetSelectedDb();
    this.state = 'off';
    this.unsubscribeWrites();
    this.stats.aofRewriteScheduled = false;
    writer.lastIncrSize = 0;
    writer.lastIncrFsyncOffset = 0;
    this.rewriter.kill();
    writer.clearBuffer();
    writer.updateErrorState();
  }
}
