import type { ProcessServices } from '../process/services.js';
import { ConfigFileWriter, syncPath } from '../persistence/config-file.js';
import { DiskError } from '../sim/disk-errors.js';

/**
 * How a sentinel saves its state (sentinelFlushConfig in src/sentinel.c):
 * rewriteConfig replaces sentinel.conf through a synced temporary file
 * renamed over it, as CONFIG REWRITE does, then the file itself is opened
 * and synced once more. Only then is the state safe from a power cut.
 *
 * Redis blocks for each flush; here the thread is held while the syncs
 * run, and the code that asked goes on at once. A flush asked for while
 * another is still being written waits its turn, so that the file ends
 * with the last state and each rewrite starts from the text the previous
 * one wrote, as in Redis. The log says the state was saved when the flush
 * is asked for, at the place Redis's log has it; a sync that fails later
 * adds Redis's warning.
 */
export class SentinelConfigFile {
  /** The text being written now, and the ones waiting behind it. */
  private writing: string | null = null;
  private readonly waiting: string[] = [];
  /** How many rewrites this process has made: the temporary files' names come from it. */
  private rewrites = 0;

  constructor(
    private readonly p: ProcessServices,
    readonly path: string,
  ) {}

  /**
   * Rewrites the file with `build(old)`, where `old` is the file's text (or
   * the one a flush under way will leave). Null, or the strerror text of
   * what failed at once.
   */
  flush(build: (old: string | null) => string): string | null {
    let old: string | null;
    if (this.writing === null) {
      try {
        old = new ConfigFileWriter(this.p, this.path, this.rewrites).read();
      } catch (e) {
        if (!(e instanceof DiskError)) throw e;
        return this.failed(e.message);
      }
    } else old = this.waiting[this.waiting.length - 1] ?? this.writing;
    const text = build(old);
    if (this.writing !== null) this.waiting.push(text);
    else {
      const err = this.start(text);
      if (err !== null) return this.failed(err);
    }
    this.p.log('Sentinel new configuration saved on disk', 'notice');
    return null;
  }

  private start(text: string): string | null {
    this.writing = text;
    const err = new ConfigFileWriter(this.p, this.path, ++this.rewrites).write(text, (e) => {
      if (e !== null) this.next(e);
      else this.syncFile();
    });
    if (err !== null) this.writing = null;
    return err;
  }

  /** sentinelFlushConfig's own open, fsync and close of the file rewriteConfig left. */
  private syncFile(): void {
    syncPath(this.p, this.path, (err) => this.next(err));
  }

  /** The flush under way ended (with the strerror text of its failure): the next one starts. */
  private next(error: string | null): void {
    this.writing = null;
    if (error !== null) this.failed(error);
    const text = this.waiting.shift();
    if (text === undefined) return;
    const err = this.start(text);
    if (err !== null) this.next(err);
  }

  private failed(why: string): string {
    this.p.log(`WARNING: Sentinel was not able to save the new configuration on disk!!!: ${why}`, 'warning');
    return why;
  }
}
