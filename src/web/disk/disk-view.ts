import type { FileSystem } from '../../../emulator/sim/index.js';
import { terminalText } from '../terminal/sanitize.js';

/**
 * A host's files as the disk view shows them: for each, what a reader sees
 * now, what is on the medium, and what only the page cache or a process's
 * buffer holds. Built from the file system's own stat(), which reads and
 * changes nothing, so the view can be rebuilt as often as the world moves.
 */
export interface FileView {
  /** The path as the disk knows it (a byte string), to open the file with. */
  readonly path: string;
  /** The path for display: UTF-8 decoded, control characters made visible. */
  readonly shownPath: string;
  /** What a reader sees now (the page cache). */
  readonly size: number;
  /** Bytes of the file as it is now that are on the medium: what a power loss now would keep. */
  readonly durableBytes: number;
  /** Bytes written but only in the page cache: lost to a power loss, kept when only the process dies. */
  readonly cachedBytes: number;
  /** Bytes still in a process's buffer (not even written): lost when that process dies. */
  readonly bufferedBytes: number;
  /** The size the file would have after a power loss now; 0 when it would not exist. */
  readonly sizeAfterPowerLoss: number;
  /** Whether the file would exist after a power loss now (its name may not be synced yet). */
  readonly survivesPowerLoss: boolean;
  readonly mtimeUs: number;
}

export interface DiskFilesView {
  readonly files: readonly FileView[];
  /** More files than MAX_FILES: the rest are left out. */
  readonly truncated: boolean;
}

/** Files listed per host, so a disk full of small files cannot slow the page down. */
export const MAX_FILES = 500;

/** Every file of a disk: each directory's files in name order, then its subdirectories. */
export function diskFiles(disk: FileSystem): DiskFilesView {
  const files: FileView[] = [];
  const walk = (dir: string): boolean => {
    let names: string[];
    try {
      names = disk.readdir(dir);
    } catch {
      return true;
    }
    // A directory's own files first, then its subdirectories, so that each directory's files stay together.
    const subdirs: string[] = [];
    for (const name of names) {
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
      let st;
      try {
        st = disk.stat(path);
      } catch {
        continue;
      }
      if (st.isDirectory) {
        subdirs.push(path);
        continue;
      }
      if (files.length === MAX_FILES) return false;
      files.push(fileView(path, st));
    }
    for (const path of subdirs) if (!walk(path)) return false;
    return true;
  };
  const complete = walk('/');
  return { files, truncated: !complete };
}

function fileView(path: string, st: ReturnType<FileSystem['stat']>): FileView {
  // A file whose name is not durable yet vanishes whole in a power loss.
  // Otherwise what differs from the medium: the bytes past its durable end,
  // or a span rewritten since the last sync, whichever is larger.
  const cachedBytes = st.durableExists ? Math.min(st.size, Math.max(st.dirtyBytes, st.size - st.durableSize)) : st.size;
  return {
    path,
    shownPath: terminalText(path),
    size: st.size,
    durableBytes: st.size - cachedBytes,
    cachedBytes,
    bufferedBytes: st.bufferedBytes,
    sizeAfterPowerLoss: st.durableExists ? st.durableSize : 0,
    survivesPowerLoss: st.durableExists,
    mtimeUs: st.mtimeUs,
  };
}

/** "1.2 KB", "512 B", "3.4 MB": a size at a glance (powers of 1024, as ls -lh). */
/**
 * A count with its thousands grouped ("1,000,000"), as toLocaleString('en')
 * writes it, without the browser's number formatting: its first use in a
 * page loads the locale's data, a task of tens of ms (84 ms in Chromium on
 * the loaded 2-core machine) when the file viewer opens on a big file.
 */
export function formatCount(n: number): string {
  const digits = String(Math.abs(Math.trunc(n)));
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 && grouped !== '0' ? `-${grouped}` : grouped;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}
