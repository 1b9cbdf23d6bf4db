import type { FileSystem } from '../sim/disk-api.js';
import { DiskError } from '../sim/disk-errors.js';
import { normalizePath } from '../sim/disk-path.js';

/**
 * Files as the command-line tools open them: a path relative to the
 * working directory, and the outcome of fopen as the tool sees it. On
 * Linux, fopen for reading succeeds on a directory and only the first
 * read fails, which the tools report differently from a failed open.
 */

export type ToolFile =
  | { kind: 'file'; bytes: Uint8Array }
  | { kind: 'dir' }
  /** fopen failed; `message` is strerror(errno). */
  | { kind: 'error'; message: string };

/** The absolute path for a path as given on the command line. */
export function resolveToolPath(cwd: string, path: string): string {
  return normalizePath(path.startsWith('/') ? path : `${cwd}/${path}`);
}

export function openToolFile(fs: FileSystem, cwd: string, path: string): ToolFile {
  if (path === '') return { kind: 'error', message: 'No such file or directory' };
  const abs = resolveToolPath(cwd, path);
  try {
    if (fs.stat(abs).isDirectory) return { kind: 'dir' };
    return { kind: 'file', bytes: fs.readFile(abs) };
  } catch (e) {
    if (e instanceof DiskError) return { kind: 'error', message: e.message };
    throw e;
  }
}
