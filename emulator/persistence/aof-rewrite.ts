import {
  formatManifest,
  tempIncrFileName,
  tempRewriteFileName,
  withNewBase,
  withNewIncr,
  withRewrittenIncrAsHistory,
  type AofManifest,
} from './aof/manifest.js';
import { AofPart, errorText, type AofDir, type AofProcess } from './aof-dir.js';
import { forkRewriteChild, type AofRewriteChild } from './aof-rewrite-child.js';
import type { AofWriter } from './aof-writer.js';

/**
 * Background AOF rewrites (rewriteAppendOnlyFileBackground and
 * backgroundRewriteDoneHandler in src/aof.c, and serverCron's part):
 *
 * 1. The parent writes what is buffered, opens a new incremental file and
 *    records it in the manifest (a temp incr file instead while the AOF
 *    waits for its first rewrite), then forks.
 * 2. The child writes the dataset as it was at the fork to a temp file.
 * 3. serverCron notices the child's exit: the temp file becomes the new
 *    base, the files it covers become history in a new manifest, and are
 *    deleted.
 *
 * Automatic rewrites follow auto-aof-rewrite-percentage and -min-size, and
 * back off after repeated failures.
 */

/** aof_state: AOF_OFF, AOF_ON, AOF_WAIT_REWRITE (switched on, waiting for the first rewrite). */
export type AofState = 'off' | 'on' | 'wait-rewrite';

/** What a rewrite needs from the engine: its state, its manifest, its writer. */
export interface AofRewriteHost {
  state: AofState;
  manifest: AofManifest;
  readonly writer: AofWriter;
  /** aofDelHistoryFiles. */
  deleteHistory(next: () => void): void;
}

interface RunningRewrite {
  child: AofRewriteChild;
  /** The child's exit code, once it has exited. */
  exitCode: number | null;
}

/** AOF_REWRITE_LIMITE_THRESHOLD and _MAX_MINUTES: back off after three failed rewrites in a row, up to an hour. */
const FAILURES_BEFORE_LIMIT = 3;
const LIMIT_MAX_MINUTES = 60;

export class AofRewriter extends AofPart<AofProcess & { hasActiveChild(): boolean }> {
  private running: RunningRewrite | null = null;
  private limitDelayMinutes = 0;
  private limitUntilS = 0;

  constructor(
    p: AofProcess & { hasActiveChild(): boolean },
    files: AofDir,
    private readonly host: AofRewriteHost,
  ) {
    super(p, files);
  }

  /** A rewrite child runs (child_type == CHILD_TYPE_AOF). */
  get active(): boolean {
    return this.running !== null;
  }

  /** hasActiveChildProcess. */
  anyChildActive(): boolean {
    return this.p.hasActiveChild();
  }

  /** serverCron's part, in its order: a scheduled rewrite, a finished child, the automatic rule. */
  cron(): void {
    const server = this.p.server;
    if (!this.anyChildActive() && this.stats.aofRewriteScheduled && !this.limited()) this.start();
    if (server.threadBlocked) return;
    if (this.running !== null) {
      if (this.running.exitCode !== null) this.done(this.running);
    } else if (!this.anyChildActive()) {
      this.automatic();
    }
  }

  /**
   * rewriteAppendOnlyFileBackground. When the start waits for the disk
   * (syncing the new manifest, which Redis does on its main thread) it is
   * 'pending' and `answer` is told the outcome later, so BGREWRITEAOF can
   * still answer with the error.
   */
  start(answer?: (ok: boolean) => void): 'started' | 'pending' | 'error' {
    if (this.anyChildActive()) return 'error';
    const p = this.stats;
    const files = this.files;
    const dirErr = files.createDir();
    if (dirErr !== null) {
      this.log(`Can't open or create append-only dir ${files.dirName}: ${dirErr}`, 'warning');
      p.aofLastBgrewriteOk = false;
      return 'error';
    }
    const writer = this.host.writer;
    writer.feed.forgetSelectedDb();
    let returned = false;
    let failedAtOnce = false;
    let startedAtOnce = false;
    writer.flush(true, () =>
      this.openNewIncr((opened) => {
        if (!opened) {
          p.aofLastBgrewriteOk = false;
          if (!returned) failedAtOnce = true;
          else answer?.(false);
          return;
        }
        p.aofRewrites++;
        const child = forkRewriteChild(this.p, files);
        const run: RunningRewrite = { child, exitCode: null };
        this.running = run;
        child.exitListeners.push((code) => {
          run.exitCode ??= code;
        });
        this.log(`Background append only file rewriting started by pid ${child.pid}`);
        p.aofRewriteScheduled = false;
        p.aofRewriteInProgress = true;
        p.aofRewriteStartUnixS = this.unixtime();
        if (returned) answer?.(true);
        else startedAtOnce = true;
      }),
    );
    returned = true;
    if (failedAtOnce) return 'error';
    return startedAtOnce ? 'started' : 'pending';
  }

  /**
   * openNewIncrAofForAppend: writes after the fork go to a new incremental
   * file (recorded in the manifest first), or, while waiting for the first
   * rewrite, to a temp one.
   */
  private openNewIncr(done: (ok: boolean) => void): void {
    const host = this.host;
    if (host.state === 'off') {
      done(true);
      return;
    }
    const files = this.files;
    let name: string;
    let next: AofManifest | null = null;
    if (host.state === 'wait-rewrite') {
      name = tempIncrFileName(files.appendFilename);
    } else {
      const r = withNewIncr(host.manifest, files.appendFilename);
      next = r.manifest;
      name = r.name;
    }
    let fd: number;
    try {
      fd = files.disk.open(files.path(name), 'w', this.p.pid);
    } catch (e) {
      this.log(`Can't open the append-only file ${name}: ${errorText(e)}`, 'warning');
      done(false);
      return;
    }
    const switchTo = (): void => {
      this.log(`Creating AOF incr file ${name} on background rewrite`);
      host.writer.switchTo(fd);
      if (next !== null) host.manifest = next;
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
  kill(): void {
    const run = this.running;
    if (run === null) return;
    const pid = run.child.pid;
    this.log(`Killing running AOF rewrite child: ${pid}`);
    this.running = null;
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
  private done(run: RunningRewrite): void {
    const p = this.stats;
    const files = this.files;
    const host = this.host;
    const pid = run.child.pid;
    const code = run.exitCode!;
    this.running = null;
    p.aofRewriteInProgress = false;
    const failed = (): void => {
      p.aofLastBgrewriteOk = false;
      p.aofRewritesConsecutiveFailures++;
    };
    const cleanup = (): void => {
      this.removeTempFiles(pid);
      if (host.state === 'wait-rewrite') {
        host.writer.clearBuffer();
        const temp = tempIncrFileName(files.appendFilename);
        this.log(`Removing the temp incr aof file ${temp} in the background`);
        files.unlinkQuietly(files.path(temp));
      }
      p.aofLastRewriteTimeS = this.unixtime() - p.aofRewriteStartUnixS;
      p.aofRewriteStartUnixS = -1;
      // Still waiting to switch the AOF on: try again.
      if (host.state === 'wait-rewrite') p.aofRewriteScheduled = true;
    };
    if (code === 0) {
      this.install(pid, failed, cleanup);
    } else if (code <= 128) {
      failed();
      this.log('Background AOF rewrite terminated with error', 'warning');
      cleanup();
    } else {
      failed();
      this.log(`Background AOF rewrite terminated by signal ${code - 128}`, 'warning');
      cleanup();
    }
  }

  /** The child's file becomes the new base; the files it covers become history and are deleted. */
  private install(pid: number, failed: () => void, cleanup: () => void): void {
    const files = this.files;
    const disk = files.disk;
    const host = this.host;
    const p = this.stats;
    this.log('Background AOF rewrite terminated with success');
    const tmpName = tempRewriteFileName(pid);
    const base = withNewBase(host.manifest, files.appendFilename, this.p.server.config.getBool('aof-use-rdb-preamble'));
    let next = base.manifest;
    const basePath = files.path(base.name);
    try {
      disk.rename(files.workPath(tmpName), basePath);
    } catch (e) {
      this.log(`Error trying to rename the temporary AOF base file ${tmpName} into ${files.logPath(base.name)}: ${errorText(e)}`, 'warning');
      failed();
      cleanup();
      return;
    }
    this.log(`Successfully renamed the temporary AOF base file ${tmpName} into ${base.name}`);
    let newIncrPath: string | null = null;
    if (host.state === 'wait-rewrite') {
      const tempIncr = tempIncrFileName(files.appendFilename);
      const incr = withNewIncr(next, files.appendFilename);
      next = incr.manifest;
      try {
        disk.rename(files.path(tempIncr), files.path(incr.name));
      } catch (e) {
        this.log(`Error trying to rename the temporary AOF incr file ${files.logPath(tempIncr)} into ${files.logPath(incr.name)}: ${errorText(e)}`, 'warning');
        files.unlinkQuietly(basePath);
        failed();
        cleanup();
        return;
      }
      newIncrPath = files.path(incr.name);
      this.log(`Successfully renamed the temporary AOF incr file ${tempIncr} into ${incr.name}`);
    }
    next = withRewrittenIncrAsHistory(next, host.writer.fd !== null);
    files.writeManifest(formatManifest(next), (ok) => {
      if (!ok) {
        files.unlinkQuietly(basePath);
        if (newIncrPath !== null) files.unlinkQuietly(newIncrPath);
        failed();
        cleanup();
        return;
      }
      host.manifest = next;
      if (host.state !== 'off') {
        p.aofCurrentSize = (files.size(basePath) ?? 0) + host.writer.lastIncrSize;
        p.aofBaseSize = p.aofCurrentSize;
      }
      host.deleteHistory(() => {
        p.aofLastBgrewriteOk = true;
        p.aofRewritesConsecutiveFailures = 0;
        this.log('Background AOF rewrite finished successfully');
        if (host.state === 'wait-rewrite') {
          host.state = 'on';
          host.writer.updateErrorState();
        }
        cleanup();
      });
    });
  }

  /** serverCron's auto-aof-rewrite-percentage / -min-size rule. */
  private automatic(): void {
    const cfg = this.p.server.config;
    const p = this.stats;
    const perc = cfg.getNumber('auto-aof-rewrite-percentage');
    if (this.host.state !== 'on' || perc === 0 || p.aofCurrentSize <= cfg.getNumber('auto-aof-rewrite-min-size')) return;
    const base = p.aofBaseSize !== 0 ? p.aofBaseSize : 1;
    const growth = Math.trunc((p.aofCurrentSize * 100) / base) - 100;
    if (growth >= perc && !this.limited()) {
      this.log(`Starting automatic rewriting of AOF on ${growth}% growth`);
      this.start();
    }
  }

  /** aofRewriteLimited: after repeated failures, automatic rewrites wait 1, 2, 4 ... up to 60 minutes. */
  private limited(): boolean {
    if (this.stats.aofRewritesConsecutiveFailures < FAILURES_BEFORE_LIMIT) {
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
    this.limitDelayMinutes = Math.min(LIMIT_MAX_MINUTES, this.limitDelayMinutes === 0 ? 1 : this.limitDelayMinutes * 2);
    this.limitUntilS = nowS + this.limitDelayMinutes * 60;
    this.log(`Background AOF rewrite has repeatedly failed and triggered the limit, will retry in ${this.limitDelayMinutes} minutes`, 'warning');
    return true;
  }
}
