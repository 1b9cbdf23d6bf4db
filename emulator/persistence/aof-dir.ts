import { bytesToArray } from '../resp/bytes.js';
import type { RedisServer } from '../server/server.js';
import type { PersistenceStats } from '../server/stats.js';
import { DiskError, type FileSystem } from '../sim/disk.js';
import type { Host } from '../sim/host.js';
import { manifestFileName, tempManifestFileName } from './aof/manifest.js';

/**
 * The AOF's files on the simulated disk (src/aof.c): where they live, and
 * the synchronous file work Redis's main thread does and waits for. Redis
 * calls fsync() inline there, so in the simulation the thread is held
 * until the device answers, and whatever follows runs in the pass that
 * resumes.
 *
 *   files.writeManifest(text, (ok) => { ... });   // temp file, fsync, rename, directory fsync
 */

/** What the AOF needs from the redis-server process running it. */
export interface AofProcess {
  readonly server: RedisServer;
  readonly host: Host;
  readonly pid: number;
  readonly alive: boolean;
  /** Virtual time as the server's thread sees it. */
  nowUs(): number;
  /** Charges thread time (a fork, a write). */
  stall(us: number): void;
  /** Holds the thread until the returned function is called. */
  holdThreadForIo(): (after: () => void) => void;
  log(text: string, level?: 'notice' | 'warning'): void;
  exit(code: number): void;
}

/**
 * What the AOF's parts (the writer, the rewriter) share: the process they
 * run in, its AOF files, and the counters, clock and log they report to.
 */
export abstract class AofPart<P extends AofProcess = AofProcess> {
  constructor(
    protected readonly p: P,
    protected readonly files: AofDir,
  ) {}

  protected get stats(): PersistenceStats {
    return this.p.server.stats.persistence;
  }

  /** Unix seconds as the server's thread sees them. */
  protected unixtime(): number {
    return Math.floor(this.p.nowUs() / 1e6);
  }

  protected log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    this.p.log(text, level);
  }
}

/** The strerror text of a failed disk call. */
export function errorText(e: unknown): string {
  return e instanceof DiskError ? e.message : String(e);
}

export function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

export class AofDir {
  constructor(private readonly p: AofProcess) {}

  get disk(): FileSystem {
    return this.p.host.disk;
  }

  private get config() {
    return this.p.server.config;
  }

  /** `dir`: Redis's working directory, where rewrite children write their temp files. */
  get workDir(): string {
    return this.config.get('dir');
  }

  /** `appenddirname` as configured: Redis names paths relative to `dir` in its log. */
  get dirName(): string {
    return this.config.get('appenddirname');
  }

  get appendFilename(): string {
    return this.config.get('appendfilename');
  }

  get dirPath(): string {
    return joinPath(this.workDir, this.dirName);
  }

  /** A file of the multi-part AOF. */
  path(name: string): string {
    return joinPath(this.dirPath, name);
  }

  /** A file in `dir`. */
  workPath(name: string): string {
    return joinPath(this.workDir, name);
  }

  /** The path as Redis's log shows it (makePath(aof_dirname, name), relative to `dir`). */
  logPath(name: string): string {
    return joinPath(this.dirName, name);
  }

  dirExists(): boolean {
    try {
      return this.disk.stat(this.dirPath).isDirectory;
    } catch {
      return false;
    }
  }

  exists(path: string): boolean {
    try {
      return this.disk.exists(path);
    } catch {
      return false;
    }
  }

  /** dirCreateIfMissing: mkdir, an existing name is fine. Returns the strerror text on failure. */
  createDir(): string | null {
    try {
      this.disk.mkdir(this.dirPath);
      return null;
    } catch (e) {
      if (!(e instanceof DiskError && e.code === 'EEXIST')) return errorText(e);
      // A regular file of that name is not a directory: Redis fails with ENOTDIR before writing anything.
      return this.dirExists() ? null : errorText(new DiskError('ENOTDIR', 'mkdir', this.dirPath));
    }
  }

  /** The size stat() reports, or null when the file cannot be stat'ed. */
  size(path: string): number | null {
    try {
      return this.disk.stat(path).size;
    } catch {
      return null;
    }
  }

  /**
   * Writes every byte with write(2) calls, as aofWrite does: returns how many
   * went to the page cache, and the error that stopped it, if any.
   */
  writeAll(fd: number, bytes: Uint8Array): { written: number; error: string | null } {
    let off = 0;
    while (off < bytes.length) {
      let n: number;
      try {
        n = this.disk.write(fd, bytes.subarray(off));
      } catch (e) {
        return { written: off, error: errorText(e) };
      }
      if (n <= 0) return { written: off, error: 'No space left on device' };
      off += n;
    }
    return { written: off, error: null };
  }

  /** Unlinks, ignoring a missing file (bg_unlink). */
  unlinkQuietly(path: string): void {
    try {
      this.disk.unlink(path);
    } catch {
      // Already gone.
    }
  }

  closeQuietly(fd: number): void {
    try {
      this.disk.close(fd);
    } catch {
      // A close cannot lose anything the AOF still needs.
    }
  }

  /**
   * fsync with the main thread waiting, as redis_fsync inline does. `done`
   * gets null or the strerror text, and runs inside the pass that resumes
   * (or at once, when the call fails before reaching the device).
   */
  fsyncHeld(fd: number | null, done: (err: string | null) => void): void {
    if (fd === null) {
      done('Bad file descriptor');
      return;
    }
    const release = this.p.holdThreadForIo();
    try {
      this.disk.fsync(fd, (err) => release(() => done(err === null ? null : err.message)));
    } catch (e) {
      release(() => done(errorText(e)));
    }
  }

  /** fsyncFileDir: syncs the directory holding `path`, so names changed in it are durable. */
  fsyncDirHeld(path: string, done: (err: string | null) => void): void {
    const dir = path.slice(0, Math.max(1, path.lastIndexOf('/')));
    let fd: number;
    try {
      fd = this.disk.open(dir, 'r', this.p.pid);
    } catch (e) {
      done(errorText(e));
      return;
    }
    this.fsyncHeld(fd, (err) => {
      this.closeQuietly(fd);
      done(err);
    });
  }

  /**
   * writeAofManifestFile: the text goes to a temp file, which is synced,
   * renamed over the manifest, and the directory synced. `done(ok)`; each
   * failure is logged as Redis logs it.
   */
  writeManifest(text: string, done: (ok: boolean) => void): void {
    const tmpName = tempManifestFileName(this.appendFilename);
    const name = manifestFileName(this.appendFilename);
    const tmp = this.path(tmpName);
    const target = this.path(name);
    let fd: number;
    try {
      fd = this.disk.open(tmp, 'w', this.p.pid);
    } catch (e) {
      this.p.log(`Can't open the AOF manifest file ${tmpName}: ${errorText(e)}`, 'warning');
      done(false);
      return;
    }
    const w = this.writeAll(fd, bytesToArray(text));
    if (w.error !== null) {
      this.p.log(`Error trying to write the temporary AOF manifest file ${tmpName}: ${w.error}`, 'warning');
      this.closeQuietly(fd);
      done(false);
      return;
    }
    this.fsyncHeld(fd, (err) => {
      if (err !== null) {
        this.p.log(`Fail to fsync the temp AOF file ${tmpName}: ${err}.`, 'warning');
        this.closeQuietly(fd);
        done(false);
        return;
      }
      try {
        this.disk.rename(tmp, target);
      } catch (e) {
        this.p.log(`Error trying to rename the temporary AOF manifest file ${tmpName} into ${name}: ${errorText(e)}`, 'warning');
        this.closeQuietly(fd);
        done(false);
        return;
      }
      this.fsyncDirHeld(target, (dirErr) => {
        this.closeQuietly(fd);
        if (dirErr !== null) this.p.log(`Fail to fsync AOF directory ${this.logPath(name)}: ${dirErr}.`, 'warning');
        done(dirErr === null);
      });
    });
  }
}
