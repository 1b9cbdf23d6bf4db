import type { OpenFlags, OpenOptions } from './disk-api.js';
import { ProcessBuffer } from './disk-buffer.js';
import { DiskError } from './disk-errors.js';

/**
 * An open file description, as both file systems keep one: the simulated
 * disk (disk.ts) and the real directory the Node server writes into
 * (src/node/real-disk.ts). The rules of open(2), write(2) and read(2)
 * that do not depend on where the bytes go live here, once.
 */
export interface OpenFile {
  readonly fd: number;
  /** The path it was opened by, for errors and trace lines. */
  readonly path: string;
  readonly owner: number | undefined;
  pos: number;
  readonly readable: boolean;
  readonly writable: boolean;
  readonly append: boolean;
  /** The process's own stdio buffer in front of write(2), if it asked for one. */
  readonly buffer: ProcessBuffer | null;
}

/** What open(2) grants with these flags, and the stdio buffer the opener asked for. */
export function openAccess(flags: OpenFlags, opts: OpenOptions): Pick<OpenFile, 'readable' | 'writable' | 'append' | 'buffer'> {
  const writable = flags !== 'r';
  const bufferBytes = opts.bufferBytes ?? 0;
  return {
    readable: flags === 'r' || flags === 'r+',
    writable,
    append: flags === 'a',
    buffer: writable && bufferBytes > 0 ? new ProcessBuffer(bufferBytes) : null,
  };
}

/** The open file behind a descriptor, or EBADF. */
export function openFileOf<H extends OpenFile>(handles: ReadonlyMap<number, H>, fd: number, syscall: string): H {
  const h = handles.get(fd);
  if (h === undefined) throw new DiskError('EBADF', syscall);
  return h;
}

/**
 * fwrite(): through the handle's buffer when it has one, else straight to
 * write(2) (`sink`). A handle not opened for writing, or one on a
 * directory, gives EBADF.
 */
export function writeThrough(h: OpenFile, isDir: boolean, bytes: Uint8Array, sink: (bytes: Uint8Array) => number): number {
  if (!h.writable || isDir) throw new DiskError('EBADF', 'write', h.path);
  if (h.buffer === null) return sink(bytes);
  return h.buffer.write(bytes, sink);
}

/** The argument checks of read(2) and pread(2) on an open file. */
export function checkRead(h: OpenFile, isDir: boolean, length: number, position: number | undefined): void {
  if (!h.readable) throw new DiskError('EBADF', 'read', h.path);
  if (isDir) throw new DiskError('EISDIR', 'read', h.path);
  if (length < 0 || (position !== undefined && position < 0)) throw new DiskError('EINVAL', 'read', h.path);
}

/**
 * What the kernel does to the open files of a process that died: their
 * stdio buffers are lost and their descriptors closed (`close` releases
 * one), then a trace line says how many files and buffered bytes went.
 */
export function closeFilesOfDeadProcess<H extends OpenFile>(
  handles: ReadonlyMap<number, H>,
  pid: number,
  close: (h: H) => void,
  trace: (text: string) => void,
): void {
  let closed = 0;
  let dropped = 0;
  for (const h of handles.values()) {
    if (h.owner !== pid) continue;
    dropped += h.buffer?.drop() ?? 0;
    close(h);
    closed++;
  }
  if (closed !== 0) trace(`process ${pid}: ${closed} files closed, ${dropped} buffered bytes lost`);
}
