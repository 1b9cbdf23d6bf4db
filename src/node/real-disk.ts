import {
  appendFileSync,
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { checkRead, closeFilesOfDeadProcess, DiskError, isDiskErrorCode, normalizePath, openAccess, openFileOf, writeThrough } from '../../emulator/sim/index.js';
import type { DiskStat, FaultOp, FileSystem, FsyncCallback, MkdirOptions, OpenFile, OpenFlags, OpenOptions } from '../../emulator/sim/index.js';
import type { Kernel } from '../../emulator/sim/kernel.js';

/**
 * A host's disk on the real file system: the host's paths live under a
 * folder, and the calls are Node's synchronous fs calls, so `npm run server`
 * persists to real files. Same interface and semantics as the simulated
 * Disk where the operating system provides them:
 *
 *   const disk = new RealDisk(kernel, 'redis-1', '/var/tmp/workbook/redis-1');
 *   const fd = disk.open('/data/appendonly.aof', 'a', pid);
 *   disk.write(fd, bytes);
 *   disk.fsync(fd, (err) => { ... });   // a real fsync; `done` runs as a kernel event at now
 *
 * The process buffer is ours, as in the simulation. The page cache and the
 * medium are the operating system's and cannot be told apart from here, so
 * stat reports durableSize = size and dirtyBytes = 0. Power loss, a full
 * disk and injected EIO cannot be arranged on a real disk and throw.
 *
 * Paths resolve lexically first ('..' at the root stays at the root), so no
 * path leaves the folder by name; a symbolic link placed inside that points
 * outside is refused. Operating-system errors become DiskErrors with
 * Linux's strerror() text (EACCES "Permission denied", EROFS "Read-only
 * file system"), as Redis prints them; a code outside that table is thrown
 * as Node raised it.
 */
export class RealDisk implements FileSystem {
  private readonly root: string;
  private readonly handles = new Map<number, RealHandle>();
  private nextFd = 3;

  constructor(
    readonly kernel: Kernel,
    readonly hostName: string,
    rootDir: string,
  ) {
    mkdirSync(rootDir, { recursive: true });
    this.root = realpathSync(rootDir);
  }

  mkdir(path: string, opts: MkdirOptions = {}): void {
    const real = this.real(path);
    const existed = opts.recursive ? this.exists(path) : false;
    this.sys('mkdir', path, () => mkdirSync(real, { recursive: opts.recursive ?? false }));
    if (!existed) this.kernel.trace.add(this.hostName, 'mkdir', path);
  }

  readdir(path: string): string[] {
    const real = this.real(path);
    return this.sys('readdir', path, () => readdirSync(real)).sort();
  }

  rmdir(path: string): void {
    if (normalizePath(path) === '/') throw new DiskError('EBUSY', 'rmdir', path);
    const real = this.real(path);
    this.sys('rmdir', path, () => rmdirSync(real));
    this.kernel.trace.add(this.hostName, 'rmdir', path);
  }

  open(path: string, flags: OpenFlags, owner?: number, opts: OpenOptions = {}): number {
    const real = this.real(path);
    const creates = flags !== 'r' && flags !== 'r+' && !this.exists(path);
    const realFd = this.sys('open', path, () => openSync(real, flags, 0o644));
    let isDir: boolean;
    try {
      isDir = fstatSync(realFd).isDirectory();
    } catch (e) {
      closeSync(realFd);
      throw this.toDiskError(e, 'open', path);
    }
    if (creates) this.kernel.trace.add(this.hostName, 'create', path);
    const h: RealHandle = { fd: this.nextFd++, realFd, path, owner, pos: 0, isDir, ...openAccess(flags, opts) };
    this.handles.set(h.fd, h);
    return h.fd;
  }

  write(fd: number, bytes: Uint8Array): number {
    const h = this.handle(fd, 'write');
    return writeThrough(h, h.isDir, bytes, (b) => this.handleWrite(h, b));
  }

  flush(fd: number): void {
    const h = this.handle(fd, 'flush');
    h.buffer?.flush((b) => this.handleWrite(h, b));
  }

  read(fd: number, length: number, position?: number): Uint8Array {
    const h = this.handle(fd, 'read');
    checkRead(h, h.isDir, length, position);
    this.flush(fd);
    const start = position ?? h.pos;
    const buf = new Uint8Array(length);
    const n = this.sys('read', h.path, () => readSync(h.realFd, buf, 0, length, start));
    if (position === undefined) h.pos = start + n;
    return buf.slice(0, n);
  }

  ftruncate(fd: number, length: number): void {
    const h = this.handle(fd, 'ftruncate');
    if (!h.writable || h.isDir || length < 0) throw new DiskError('EINVAL', 'ftruncate', h.path);
    this.sys('ftruncate', h.path, () => ftruncateSync(h.realFd, length));
    this.kernel.trace.add(this.hostName, 'truncate', `${h.path} to ${length} bytes`);
  }

  fstat(fd: number): DiskStat {
    const h = this.handle(fd, 'fstat');
    return this.toStat(
      this.sys('fstat', h.path, () => fstatSync(h.realFd)),
      h.buffer?.length ?? 0,
    );
  }

  close(fd: number): void {
    const h = this.handle(fd, 'close');
    try {
      this.flush(fd);
    } finally {
      this.handles.delete(fd);
      this.sys('close', h.path, () => closeSync(h.realFd));
    }
  }

  fsync(fd: number, done: FsyncCallback): void {
    this.sync(fd, done, 'fsync');
  }

  fdatasync(fd: number, done: FsyncCallback): void {
    this.sync(fd, done, 'fdatasync');
  }

  readFile(path: string): Uint8Array {
    const real = this.real(path);
    const data = this.sys('read', path, () => readFileSync(real));
    return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
  }

  writeFile(path: string, bytes: Uint8Array): void {
    const real = this.real(path);
    const creates = !this.exists(path);
    this.sys('write', path, () => writeFileSync(real, bytes));
    if (creates) this.kernel.trace.add(this.hostName, 'create', path);
  }

  appendFile(path: string, bytes: Uint8Array): void {
    const real = this.real(path);
    const creates = !this.exists(path);
    this.sys('write', path, () => appendFileSync(real, bytes));
    if (creates) this.kernel.trace.add(this.hostName, 'create', path);
  }

  rename(from: string, to: string): void {
    if (normalizePath(from) === '/' || normalizePath(to) === '/') throw new DiskError('EBUSY', 'rename', from);
    const realFrom = this.real(from);
    const realTo = this.real(to);
    this.sys('rename', from, () => renameSync(realFrom, realTo));
    this.kernel.trace.add(this.hostName, 'rename', `${from} -> ${to}`);
  }

  unlink(path: string): void {
    if (normalizePath(path) === '/') throw new DiskError('EISDIR', 'unlink', path);
    const real = this.real(path);
    this.sys('unlink', path, () => unlinkSync(real));
    this.kernel.trace.add(this.hostName, 'unlink', path);
  }

  truncate(path: string, length: number): void {
    const real = this.real(path);
    if (length < 0) throw new DiskError('EINVAL', 'truncate', path);
    this.sys('truncate', path, () => truncateSync(real, length));
    this.kernel.trace.add(this.hostName, 'truncate', `${path} to ${length} bytes`);
  }

  exists(path: string): boolean {
    const real = this.real(path);
    try {
      statSync(real);
      return true;
    } catch {
      return false;
    }
  }

  stat(path: string): DiskStat {
    const real = this.real(path);
    const st = this.sys('stat', path, () => statSync(real));
    let buffered = 0;
    for (const h of this.handles.values()) {
      if (h.buffer !== null && h.buffer.length !== 0 && sameFile(fstatSync(h.realFd), st)) buffered += h.buffer.length;
    }
    return this.toStat(st, buffered);
  }

  du(path = '/'): number {
    const real = this.real(path);
    const walk = (p: string): number => {
      const st = lstatSync(p);
      if (!st.isDirectory()) return st.isFile() ? st.size : 0;
      let total = 0;
      for (const name of readdirSync(p)) total += walk(join(p, name));
      return total;
    };
    return this.sys('du', path, () => walk(real));
  }

  get usedBytes(): number {
    return this.du('/');
  }

  killProcess(pid: number): void {
    const close = (h: RealHandle): void => {
      this.handles.delete(h.fd);
      closeSync(h.realFd);
    };
    closeFilesOfDeadProcess(this.handles, pid, close, (text) => this.kernel.trace.add(this.hostName, 'kill', text));
  }

  powerLoss(): void {
    throw new Error('power loss is not possible on a real disk');
  }

  setFull(_full: boolean): void {
    throw new Error('filling the disk is not possible on a real disk');
  }

  failNext(_op: FaultOp, _count?: number): void {
    throw new Error('injecting I/O errors is not possible on a real disk');
  }

  flipByte(path: string, offset?: number, mask = 0xff): void {
    const real = this.real(path);
    const st = this.sys('flip', path, () => statSync(real));
    if (st.isDirectory()) throw new DiskError('EISDIR', 'flip', path);
    const at = offset ?? (st.size > 0 ? this.kernel.random.below(st.size) : 0);
    if (!(at >= 0 && at < st.size)) throw new RangeError(`no byte at offset ${at} of ${path} (${st.size} bytes)`);
    this.sys('flip', path, () => {
      const fd = openSync(real, 'r+');
      try {
        const one = new Uint8Array(1);
        readSync(fd, one, 0, 1, at);
        one[0]! ^= mask & 0xff;
        writeSync(fd, one, 0, 1, at);
      } finally {
        closeSync(fd);
      }
    });
    this.kernel.trace.add(this.hostName, 'flip-byte', `${path} offset ${at}`);
  }

  // ---- internals ---------------------------------------------------------

  /** The real path for a host path, refusing one that a symbolic link leads out of the folder. */
  private real(path: string): string {
    const normal = normalizePath(path);
    const full = normal === '/' ? this.root : join(this.root, normal.slice(1));
    // The nearest existing ancestor (or the path itself) must resolve inside.
    let probe = full;
    for (;;) {
      let resolved: string | null = null;
      try {
        resolved = realpathSync(probe);
      } catch {
        // A dangling symbolic link cannot be checked: refuse it.
        if (isSymlink(probe)) throw new Error(`${path} is a dangling symbolic link on host ${this.hostName}`);
      }
      if (resolved !== null) {
        // A disk rooted at / holds every path of the machine.
        if (this.root !== sep && resolved !== this.root && !resolved.startsWith(this.root + sep)) {
          throw new Error(`${path} leads outside the disk of host ${this.hostName}`);
        }
        return full;
      }
      if (probe === this.root) return full;
      probe = dirname(probe);
    }
  }

  private handle(fd: number, syscall: string): RealHandle {
    return openFileOf(this.handles, fd, syscall);
  }

  private handleWrite(h: RealHandle, bytes: Uint8Array): number {
    const n = this.sys('write', h.path, () =>
      writeSync(h.realFd, bytes, 0, bytes.length, h.append ? null : h.pos),
    );
    h.pos += n;
    return n;
  }

  private sync(fd: number, done: FsyncCallback, syscall: string): void {
    const h = this.handle(fd, syscall);
    let err: DiskError | null = null;
    try {
      fsyncSync(h.realFd);
      this.kernel.trace.add(this.hostName, 'fsync', `${h.path}: durable`);
    } catch (e) {
      err = this.toDiskError(e, syscall, h.path);
      this.kernel.trace.add(this.hostName, 'eio', `${syscall} ${h.path} failed: ${err.message}`);
    }
    this.kernel.at(this.kernel.now, () => done(err));
  }

  /** Runs a Node fs call, turning its errno into a DiskError for this host's path. */
  private sys<T>(syscall: string, path: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw this.toDiskError(e, syscall, path);
    }
  }

  private toDiskError(e: unknown, syscall: string, path: string): DiskError {
    const code = (e as NodeJS.ErrnoException | null)?.code;
    if (isDiskErrorCode(code)) return new DiskError(code, syscall, path);
    throw e;
  }

  private toStat(st: Stats, bufferedBytes: number): DiskStat {
    return {
      isDirectory: st.isDirectory(),
      size: st.size,
      durableSize: st.size,
      durableExists: true,
      dirtyBytes: 0,
      bufferedBytes,
      mtimeUs: Math.round(st.mtimeMs * 1000),
    };
  }
}

interface RealHandle extends OpenFile {
  readonly realFd: number;
  readonly isDir: boolean;
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
