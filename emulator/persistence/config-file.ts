import { DiskError } from '../sim/disk-errors.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import type { ProcessServices } from '../process/services.js';

/**
 * The configuration file a process was started with, as CONFIG REWRITE
 * (and Sentinel's flush) replaces it: the new text goes to a temporary file
 * beside it, which is synced, renamed over the old one, and the directory
 * synced, so that a crash at any moment leaves the old file or the new one
 * (rewriteConfigOverwriteFile in src/config.c). The thread waits for both
 * syncs, as Redis's blocking fsync makes it.
 */
export class ConfigFileWriter {
  constructor(
    private readonly p: ProcessServices,
    readonly path: string,
    /** Which rewrite of this process this is: mkostemp's six random letters, made deterministic. */
    private readonly rewrites: number,
  ) {}

  /** The file's text, null when it does not exist; throws DiskError on other failures. */
  read(): string | null {
    try {
      return bytesFromArray(this.p.host.disk.readFile(this.path));
    } catch (e) {
      if (e instanceof DiskError && e.code === 'ENOENT') return null;
      throw e;
    }
  }

  /**
   * Replaces the file with `text`; returns null, or the strerror text of a
   * failure before the syncs. When it returned null, `done` runs once the
   * file is in place and its directory synced (null), or with the strerror
   * text of the sync or rename that failed.
   */
  write(text: string, done: (error: string | null) => void = () => {}): string | null {
    const disk = this.p.host.disk;
    const tmp = `${this.path}.${tempSuffix(this.p.pid, this.rewrites)}`;
    let fd: number;
    try {
      fd = disk.open(tmp, 'w', this.p.pid);
    } catch (e) {
      const why = errorText(e);
      this.p.log(`Could not create tmp config file (${why})`, 'warning');
      return why;
    }
    try {
      const bytes = bytesToArray(text);
      for (let off = 0; off < bytes.length; ) off += disk.write(fd, bytes.subarray(off));
      disk.flush(fd);
    } catch (e) {
      const why = errorText(e);
      this.p.log(`Failed after writing (0) bytes to tmp config file (${why})`, 'warning');
      this.discard(fd, tmp);
      return why;
    }
    const release = this.p.holdThreadForIo();
    disk.fsync(fd, (err) => {
      release(() => {
        if (err !== null) {
          this.p.log(`Could not sync tmp config file to disk (${err.message})`, 'warning');
          this.discard(fd, tmp);
          done(err.message);
          return;
        }
        try {
          disk.close(fd);
          disk.rename(tmp, this.path);
        } catch (e) {
          const why = errorText(e);
          this.p.log(`Could not rename tmp config file (${why})`, 'warning');
          this.discard(null, tmp);
          done(why);
          return;
        }
        this.syncDir(done);
      });
    });
    return null;
  }

  /** fsyncFileDir: the rename reaches the disk too. */
  private syncDir(done: (error: string | null) => void): void {
    const dir = this.path.slice(0, Math.max(1, this.path.lastIndexOf('/')));
    syncPath(this.p, dir, (err) => {
      if (err !== null) this.p.log(`Could not sync config file dir (${err})`, 'warning');
      done(err);
    });
  }

  private discard(fd: number | null, tmp: string): void {
    const disk = this.p.host.disk;
    try {
      if (fd !== null) disk.close(fd);
    } catch {
      // The close reports the failure already seen.
    }
    try {
      disk.unlink(tmp);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Opens a file or directory, syncs it as a blocking fsync does (the
 * thread held until it is done) and closes it; `done` gets null, or the
 * strerror text of what failed.
 */
export function syncPath(p: ProcessServices, path: string, done: (error: string | null) => void): void {
  const disk = p.host.disk;
  let fd: number;
  try {
    fd = disk.open(path, 'r');
  } catch (e) {
    done(errorText(e));
    return;
  }
  const release = p.holdThreadForIo();
  disk.fsync(fd, (err) => {
    release(() => {
      try {
        disk.close(fd);
      } catch {
        // Closing a file opened for reading loses nothing.
      }
      done(err === null ? null : err.message);
    });
  });
}

function errorText(e: unknown): string {
  if (e instanceof DiskError) return e.message;
  throw e;
}

/** Six letters and digits, like mkostemp's XXXXXX, from the pid and the rewrite's number. */
function tempSuffix(pid: number, n: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let x = (pid * 7919 + n * 104729) >>> 0;
  let out = '';
  for (let i = 0; i < 6; i++) {
    out += alphabet[x % alphabet.length];
    x = Math.floor(x / alphabet.length) + (i + 1) * 31;
  }
  return out;
}
