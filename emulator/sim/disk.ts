import { decodeBase64, encodeBase64 } from './base64.js';
import type {
  DiskProfile,
  DiskStat,
  FaultOp,
  FileSystem,
  FsyncCallback,
  MkdirOptions,
  OpenFlags,
  OpenOptions,
} from './disk-api.js';
import { ProcessBuffer, writeAll } from './disk-buffer.js';
import { DiskError } from './disk-errors.js';
import { checkRead, closeFilesOfDeadProcess, openAccess, openFileOf, writeThrough, type OpenFile } from './disk-handle.js';
import { DirNode, FileNode, cloneTree, filesUnder, findNode, type FsNode } from './disk-file.js';
import { pathParts } from './disk-path.js';
import type { DiskSnapshot, HandleSnapshot } from './disk-snapshot.js';
import type { Kernel, SimEvent } from './kernel.js';

export * from './disk-api.js';
export { DiskError, STRERROR, type DiskErrorCode } from './disk-errors.js';
export { normalizePath } from './disk-path.js';
export type { DiskSnapshot } from './disk-snapshot.js';

/**
 * A simulated disk with three layers of data: each open handle's process
 * buffer, the OS page cache, and the durable medium.
 *
 *   const disk = new Disk(kernel, 'redis-1', DISK_PROFILES.hdd);
 *   const fd = disk.open('/data/appendonly.aof', 'a', pid);
 *   disk.write(fd, bytes);                 // in the page cache: survives kill -9
 *   disk.fsync(fd, (err) => { ... });      // durable 5 ms later: survives power loss
 *
 * What the model decides, and why:
 * - fsync. Fsyncs queue on the device and run one at a time; each takes
 *   fsyncUs plus the file's dirty bytes (counted when it is issued) over the
 *   write bandwidth. When it completes, everything then in that file's page
 *   cache becomes durable, including bytes written while it ran, which a real
 *   fsync may also carry.
 * - Directory entries. Creating, renaming and removing names changes the
 *   current tree at once; the durable tree follows as a whole, like a
 *   journal commit: at the completion of any fsync on this disk, or at a
 *   writeback pass once the oldest uncommitted change is over 30 s old. A
 *   name can thus become durable before its data, and a file renamed without
 *   fsync can come back empty after a power loss, as on ext4 with delayed
 *   allocation.
 * - Writeback. Every 5 s of virtual time (aligned to the world's start),
 *   files whose page cache has been dirty for more than 30 s are written back
 *   whole (Linux's dirty_writeback_centisecs=500 and
 *   dirty_expire_centisecs=3000, which also go by inode). Passes are
 *   scheduled only while something is dirty, so an idle disk leaves the
 *   kernel's queue empty. A pass makes data durable at once but keeps the
 *   device busy for bytes / writeBytesPerSec, delaying fsyncs behind it.
 * - Power loss. Every handle closes and every process buffer is lost; files
 *   and directories return to the durable tree and each file to its durable
 *   content; pending fsyncs never complete. The last write() to reach the
 *   page cache, if it is not yet durable and starts at or before the end of
 *   the file's durable content (so no hole would precede it), is torn: a
 *   prefix of kernel.random.below(length + 1) bytes of it reaches the medium
 *   (0 means none, length means all of it). Earlier unsynced writes are
 *   lost whole. The random draw happens only when such a write exists.
 * - Full disk. A write that needs more space than is free writes what fits
 *   and returns the short count, as write(2) does; a write of which nothing
 *   fits throws ENOSPC. Overwrites within a file need no space. Extending
 *   with truncate makes a sparse file and never fails. Space is the total
 *   size of files that have a name or an open handle.
 * - Faults. failNext('write') fails the next writes to the page cache (a
 *   buffered handle's writes reach it only when its buffer spills or is
 *   flushed); failNext('fsync') makes the next fsyncs complete on time with
 *   EIO and leave the data dirty, so a later fsync or writeback may still
 *   save it; failNext('rename') fails the next renames and changes nothing.
 * - Descriptors are numbered from 3 up and never reused on this disk, so a
 *   stale descriptor gives EBADF rather than someone else's file.
 * - Process kill. A killed process's fsyncs still complete (the kernel owns
 *   the I/O), but their callbacks never run.
 */
export class Disk implements FileSystem {
  private root: DirNode;
  private durableRoot: DirNode;
  /** When the oldest directory change not yet durable was made; -1 when none. */
  private namespaceDirtySinceUs = -1;
  private readonly handles = new Map<number, Handle>();
  private nextFd = 3;
  private used = 0;
  private full = false;
  private readonly failures: Record<FaultOp, number> = { write: 0, fsync: 0, rename: 0 };
  /** Files whose page cache differs from the medium, oldest first. */
  private readonly dirty = new Set<FileNode>();
  private writebackEvent: SimEvent | null = null;
  private deviceFreeUs: number;
  private readonly pending = new Set<PendingFsync>();
  // The last write that reached the page cache, while it is not durable.
  private lastWriteNode: FileNode | null = null;
  private lastWriteOffset = 0;
  private lastWriteLength = 0;

  constructor(
    readonly kernel: Kernel,
    readonly hostName: string,
    readonly profile: DiskProfile,
  ) {
    this.root = new DirNode(kernel.now);
    this.durableRoot = cloneTree(this.root);
    this.deviceFreeUs = kernel.now;
  }

  // ---- directories -------------------------------------------------------

  mkdir(path: string, opts: MkdirOptions = {}): void {
    const parts = pathParts(path);
    if (opts.recursive) {
      let dir = this.root;
      let made = false;
      for (let i = 0; i < parts.length; i++) {
        const next = dir.children.get(parts[i]!);
        if (next === undefined) {
          dir = this.link(dir, parts[i]!, new DirNode(this.kernel.now));
          made = true;
        } else if (next.kind === 'file') {
          throw new DiskError(i === parts.length - 1 ? 'EEXIST' : 'ENOTDIR', 'mkdir', path);
        } else {
          dir = next;
        }
      }
      if (made) this.kernel.trace.add(this.hostName, 'mkdir', path);
      return;
    }
    if (parts.length === 0) throw new DiskError('EEXIST', 'mkdir', path);
    const parent = this.parentDir(parts, 'mkdir', path);
    const name = parts[parts.length - 1]!;
    if (parent.children.has(name)) throw new DiskError('EEXIST', 'mkdir', path);
    this.link(parent, name, new DirNode(this.kernel.now));
    this.kernel.trace.add(this.hostName, 'mkdir', path);
  }

  readdir(path: string): string[] {
    const node = this.lookup(path, 'readdir');
    if (node.kind !== 'dir') throw new DiskError('ENOTDIR', 'readdir', path);
    return [...node.children.keys()].sort();
  }

  rmdir(path: string): void {
    const parts = pathParts(path);
    if (parts.length === 0) throw new DiskError('EBUSY', 'rmdir', path);
    const parent = this.parentDir(parts, 'rmdir', path);
    const name = parts[parts.length - 1]!;
    const node = parent.children.get(name);
    if (node === undefined) throw new DiskError('ENOENT', 'rmdir', path);
    if (node.kind !== 'dir') throw new DiskError('ENOTDIR', 'rmdir', path);
    if (node.children.size !== 0) throw new DiskError('ENOTEMPTY', 'rmdir', path);
    this.unlinkEntry(parent, name);
    this.kernel.trace.add(this.hostName, 'rmdir', path);
  }

  // ---- handles -----------------------------------------------------------

  open(path: string, flags: OpenFlags, owner?: number, opts: OpenOptions = {}): number {
    const parts = pathParts(path);
    let node: FsNode | undefined;
    if (parts.length === 0) {
      node = this.root;
    } else {
      const parent = this.parentDir(parts, 'open', path);
      const name = parts[parts.length - 1]!;
      node = parent.children.get(name);
      if (node !== undefined && flags === 'wx') throw new DiskError('EEXIST', 'open', path);
      if (node === undefined) {
        if (flags === 'r' || flags === 'r+') throw new DiskError('ENOENT', 'open', path);
        node = this.link(parent, name, new FileNode(this.kernel.now));
        this.kernel.trace.add(this.hostName, 'create', path);
      }
    }
    if (node.kind === 'dir') {
      if (flags !== 'r') throw new DiskError('EISDIR', 'open', path);
    } else {
      if (flags === 'w') this.resize(node, 0);
      node.opens++;
    }
    const handle: Handle = { fd: this.nextFd++, node, path, flags, owner, pos: 0, ...openAccess(flags, opts) };
    this.handles.set(handle.fd, handle);
    return handle.fd;
  }

  write(fd: number, bytes: Uint8Array): number {
    const h = this.handle(fd, 'write');
    return writeThrough(h, h.node.kind === 'dir', bytes, (b) => this.handleWrite(h, b));
  }

  flush(fd: number): void {
    const h = this.handle(fd, 'flush');
    h.buffer?.flush((b) => this.handleWrite(h, b));
  }

  read(fd: number, length: number, position?: number): Uint8Array {
    const h = this.handle(fd, 'read');
    const node = h.node;
    checkRead(h, node.kind === 'dir', length, position);
    if (node.kind === 'dir') throw new DiskError('EISDIR', 'read', h.path);
    // A handle that also writes sees its own buffered bytes, as stdio
    // flushes before switching from writing to reading.
    this.flush(fd);
    const start = position ?? h.pos;
    const out = start >= node.size ? new Uint8Array(0) : node.bytes.slice(start, Math.min(node.size, start + length));
    if (position === undefined) h.pos = start + out.length;
    return out;
  }

  ftruncate(fd: number, length: number): void {
    const h = this.handle(fd, 'ftruncate');
    if (!h.writable || h.node.kind !== 'file' || length < 0) throw new DiskError('EINVAL', 'ftruncate', h.path);
    this.resize(h.node, length);
    this.kernel.trace.add(this.hostName, 'truncate', `${h.path} to ${length} bytes`);
  }

  fstat(fd: number): DiskStat {
    const h = this.handle(fd, 'fstat');
    // A handle names an inode, not a path: its durable figures are the
    // inode's own, whatever its name would be after a power loss.
    const node = h.node;
    if (node.kind === 'dir') return this.dirStat(node, true);
    return {
      isDirectory: false,
      size: node.size,
      durableSize: node.durableSize,
      durableExists: true,
      dirtyBytes: node.dirtyBytes,
      bufferedBytes: this.bufferedOn(node),
      mtimeUs: node.mtimeUs,
    };
  }

  close(fd: number): void {
    const h = this.handle(fd, 'close');
    try {
      this.flush(fd);
    } finally {
      this.release(h);
    }
  }

  fsync(fd: number, done: FsyncCallback): void {
    this.startSync(fd, done, 'fsync');
  }

  fdatasync(fd: number, done: FsyncCallback): void {
    this.startSync(fd, done, 'fdatasync');
  }

  // ---- whole files -------------------------------------------------------

  readFile(path: string): Uint8Array {
    const node = this.lookup(path, 'open');
    if (node.kind === 'dir') throw new DiskError('EISDIR', 'read', path);
    return node.content().slice();
  }

  writeFile(path: string, bytes: Uint8Array): void {
    const node = this.fileForWriting(path);
    this.resize(node, 0);
    writeAll(bytes, (b) => this.pageWrite(node, node.size, b, path));
  }

  appendFile(path: string, bytes: Uint8Array): void {
    const node = this.fileForWriting(path);
    writeAll(bytes, (b) => this.pageWrite(node, node.size, b, path));
  }

  rename(from: string, to: string): void {
    const fromParts = pathParts(from);
    const toParts = pathParts(to);
    if (fromParts.length === 0 || toParts.length === 0) throw new DiskError('EBUSY', 'rename', from);
    const fromParent = this.parentDir(fromParts, 'rename', from);
    const fromName = fromParts[fromParts.length - 1]!;
    const node = fromParent.children.get(fromName);
    if (node === undefined) throw new DiskError('ENOENT', 'rename', from);
    const toParent = this.parentDir(toParts, 'rename', to);
    const toName = toParts[toParts.length - 1]!;
    const old = toParent.children.get(toName);
    if (old === node) return;
    if (node.kind === 'dir') {
      const inside = toParts.length > fromParts.length && fromParts.every((p, i) => p === toParts[i]);
      if (inside) throw new DiskError('EINVAL', 'rename', from);
      if (old !== undefined && old.kind === 'file') throw new DiskError('ENOTDIR', 'rename', to);
      if (old !== undefined && old.kind === 'dir' && old.children.size !== 0) {
        throw new DiskError('ENOTEMPTY', 'rename', to);
      }
    } else if (old !== undefined && old.kind === 'dir') {
      throw new DiskError('EISDIR', 'rename', to);
    }
    if (this.failures.rename > 0) {
      this.failures.rename--;
      this.kernel.trace.add(this.hostName, 'eio', `rename ${from} -> ${to} failed`);
      throw new DiskError('EIO', 'rename', from);
    }
    if (old !== undefined) this.unlinkEntry(toParent, toName);
    fromParent.children.delete(fromName);
    fromParent.mtimeUs = this.kernel.now;
    toParent.children.set(toName, node);
    toParent.mtimeUs = this.kernel.now;
    this.namespaceChanged();
    this.kernel.trace.add(this.hostName, 'rename', `${from} -> ${to}`);
  }

  unlink(path: string): void {
    const parts = pathParts(path);
    if (parts.length === 0) throw new DiskError('EISDIR', 'unlink', path);
    const parent = this.parentDir(parts, 'unlink', path);
    const name = parts[parts.length - 1]!;
    const node = parent.children.get(name);
    if (node === undefined) throw new DiskError('ENOENT', 'unlink', path);
    if (node.kind === 'dir') throw new DiskError('EISDIR', 'unlink', path);
    this.unlinkEntry(parent, name);
    this.kernel.trace.add(this.hostName, 'unlink', path);
  }

  truncate(path: string, length: number): void {
    const node = this.lookup(path, 'truncate');
    if (node.kind === 'dir') throw new DiskError('EISDIR', 'truncate', path);
    if (length < 0) throw new DiskError('EINVAL', 'truncate', path);
    this.resize(node, length);
    this.kernel.trace.add(this.hostName, 'truncate', `${path} to ${length} bytes`);
  }

  exists(path: string): boolean {
    return findNode(this.root, pathParts(path)) !== undefined;
  }

  stat(path: string): DiskStat {
    const node = this.lookup(path, 'stat');
    const durable = findNode(this.durableRoot, pathParts(path));
    if (node.kind === 'dir') return this.dirStat(node, durable !== undefined);
    return {
      isDirectory: false,
      size: node.size,
      durableSize: durable === undefined ? 0 : durable.kind === 'dir' ? DIR_SIZE : durable.durableSize,
      durableExists: durable !== undefined,
      dirtyBytes: node.dirtyBytes,
      bufferedBytes: this.bufferedOn(node),
      mtimeUs: node.mtimeUs,
    };
  }

  du(path = '/'): number {
    const node = this.lookup(path, 'du');
    if (node.kind === 'file') return node.size;
    let total = 0;
    for (const f of filesUnder(node)) total += f.size;
    return total;
  }

  get usedBytes(): number {
    return this.used;
  }

  get freeBytes(): number {
    return this.full ? 0 : Math.max(0, this.profile.capacityBytes - this.used);
  }

  /** Whether setFull(true) is in force: writes that need space fail with ENOSPC. */
  get isFull(): boolean {
    return this.full;
  }

  /** How many calls of each kind failNext() has yet to fail, for the panels. */
  get pendingFailures(): Readonly<Record<FaultOp, number>> {
    return { ...this.failures };
  }

  /** What the file at `path` would hold after a power loss now; null when it would not exist. */
  readDurableFile(path: string): Uint8Array | null {
    const node = findNode(this.durableRoot, pathParts(path));
    if (node === undefined) return null;
    if (node.kind === 'dir') throw new DiskError('EISDIR', 'read', path);
    return node.durableContent().slice();
  }

  /** Fsyncs issued and not yet completed. */
  get pendingFsyncs(): number {
    return this.pending.size;
  }

  // ---- crashes and faults ------------------------------------------------

  killProcess(pid: number): void {
    closeFilesOfDeadProcess(this.handles, pid, (h) => this.release(h), (text) => this.kernel.trace.add(this.hostName, 'kill', text));
    for (const p of this.pending) if (p.owner === pid) p.done = null;
  }

  powerLoss(): void {
    const now = this.kernel.now;
    let lostBytes = 0;
    let lostBuffered = 0;
    for (const node of this.dirty) lostBytes += node.dirtyBytes;
    for (const h of this.handles.values()) lostBuffered += h.buffer?.length ?? 0;

    // The torn write's bytes are read before the page cache goes.
    const tornNode = this.lastWriteNode;
    let tornBytes: Uint8Array | null = null;
    const tornOffset = this.lastWriteOffset;
    if (tornNode !== null && tornNode.dirty && tornOffset <= tornNode.durableSize) {
      tornBytes = tornNode.bytes.slice(tornOffset, tornOffset + this.lastWriteLength);
    }
    this.lastWriteNode = null;

    for (const p of this.pending) this.kernel.cancel(p.event);
    this.pending.clear();
    this.deviceFreeUs = now;
    this.kernel.cancel(this.writebackEvent);
    this.writebackEvent = null;
    for (const h of this.handles.values()) h.buffer?.drop();
    this.handles.clear();

    for (const node of this.dirty) node.revert();
    this.dirty.clear();
    this.root = cloneTree(this.durableRoot);
    this.namespaceDirtySinceUs = -1;
    this.recount();

    this.kernel.trace.add(
      this.hostName,
      'power-loss',
      `${lostBytes} bytes in the page cache and ${lostBuffered} in process buffers lost`,
    );
    // The torn write lands only if its file came through the power loss.
    const tornPath = tornNode !== null && tornBytes !== null ? this.pathOf(tornNode) : null;
    if (tornNode !== null && tornBytes !== null && tornPath !== null) {
      const kept = this.kernel.random.below(tornBytes.length + 1);
      if (kept > 0) {
        tornNode.write(tornOffset, tornBytes.subarray(0, kept), now);
        tornNode.sync();
        this.recount();
      }
      this.kernel.trace.add(
        this.hostName,
        'torn-write',
        `${tornPath}: ${kept} of ${tornBytes.length} bytes of the last write at offset ${tornOffset} reached the disk`,
      );
    }
  }

  setFull(full: boolean): void {
    if (full === this.full) return;
    this.full = full;
    this.kernel.trace.add(this.hostName, 'disk-full', full ? 'no space left' : 'space available again');
  }

  failNext(op: FaultOp, count = 1): void {
    this.failures[op] += count;
    this.kernel.trace.add(this.hostName, 'fault', `the next ${this.failures[op]} ${op} calls will fail with EIO`);
  }

  flipByte(path: string, offset?: number, mask = 0xff): void {
    const node = this.lookup(path, 'flip');
    if (node.kind === 'dir') throw new DiskError('EISDIR', 'flip', path);
    const limit = Math.max(node.size, node.durableSize);
    const at = offset ?? (limit > 0 ? this.kernel.random.below(limit) : 0);
    if (!(at >= 0 && at < limit)) throw new RangeError(`no byte at offset ${at} of ${path} (${limit} bytes)`);
    node.flip(at, mask & 0xff);
    this.kernel.trace.add(this.hostName, 'flip-byte', `${path} offset ${at}`);
  }

  // ---- checkpoints -------------------------------------------------------

  /**
   * The disk as plain data. Fsyncs in flight are not part of it: after a
   * restore their data is still dirty and their callbacks never run, so
   * whoever waited for them must not wait on a restored disk.
   */
  snapshot(): DiskSnapshot {
    const ids = new Map<FileNode, number>();
    const files: FileNode[] = [];
    const fileId = (f: FileNode): number => {
      let id = ids.get(f);
      if (id === undefined) {
        id = files.length;
        ids.set(f, id);
        files.push(f);
      }
      return id;
    };
    const root = this.root.toSnapshot(fileId);
    const durableRoot = this.durableRoot.toSnapshot(fileId);
    const handles: HandleSnapshot[] = [];
    for (const h of this.handles.values()) {
      handles.push({
        fd: h.fd,
        file: h.node.kind === 'file' ? fileId(h.node) : null,
        path: h.path,
        flags: h.flags,
        owner: h.owner ?? null,
        pos: h.pos,
        bufferBytes: h.buffer?.capacityBytes ?? 0,
        buffered: h.buffer === null ? '' : encodeBase64(h.buffer.contents()),
      });
    }
    // A torn write matters only for a file a power loss would keep, which
    // the durable tree has already listed.
    const last = this.lastWriteNode;
    const lastWrite =
      last !== null && ids.has(last)
        ? { file: ids.get(last)!, offset: this.lastWriteOffset, length: this.lastWriteLength }
        : null;
    return {
      version: 1,
      hostName: this.hostName,
      profile: { ...this.profile },
      files: files.map((f) => f.toSnapshot(encodeBase64)),
      root,
      durableRoot,
      namespaceDirtySinceUs: this.namespaceDirtySinceUs,
      handles,
      nextFd: this.nextFd,
      full: this.full,
      failures: { ...this.failures },
      deviceFreeUs: this.deviceFreeUs,
      lastWrite,
    };
  }

  /** A disk from a snapshot, attached to `kernel` (whose clock may have moved on). */
  static restore(kernel: Kernel, hostName: string, s: DiskSnapshot): Disk {
    if (s.version !== 1) throw new RangeError(`unknown disk snapshot version ${String(s.version)}`);
    const disk = new Disk(kernel, hostName, s.profile);
    const files = s.files.map((f) => FileNode.fromSnapshot(f, decodeBase64));
    disk.root = DirNode.fromSnapshot(s.root, files);
    disk.durableRoot = DirNode.fromSnapshot(s.durableRoot, files);
    disk.namespaceDirtySinceUs = s.namespaceDirtySinceUs;
    for (const hs of s.handles) {
      const node: FsNode =
        hs.file === null ? findDir(disk.root, hs.path) ?? new DirNode(kernel.now) : files[hs.file]!;
      const writable = hs.flags !== 'r';
      const h: Handle = {
        fd: hs.fd,
        node,
        path: hs.path,
        flags: hs.flags,
        owner: hs.owner ?? undefined,
        pos: hs.pos,
        readable: hs.flags === 'r' || hs.flags === 'r+',
        writable,
        append: hs.flags === 'a',
        buffer: writable && hs.bufferBytes > 0 ? new ProcessBuffer(hs.bufferBytes) : null,
      };
      h.buffer?.load(decodeBase64(hs.buffered));
      disk.handles.set(h.fd, h);
    }
    disk.nextFd = s.nextFd;
    disk.full = s.full;
    Object.assign(disk.failures, s.failures);
    disk.deviceFreeUs = Math.max(s.deviceFreeUs, kernel.now);
    if (s.lastWrite !== null) {
      disk.lastWriteNode = files[s.lastWrite.file]!;
      disk.lastWriteOffset = s.lastWrite.offset;
      disk.lastWriteLength = s.lastWrite.length;
    }
    disk.recount();
    for (const f of files) if (f.dirty) disk.dirty.add(f);
    if (disk.dirty.size !== 0 || disk.namespaceDirtySinceUs >= 0) disk.scheduleWriteback();
    return disk;
  }

  // ---- internals ---------------------------------------------------------

  private handle(fd: number, syscall: string): Handle {
    return openFileOf(this.handles, fd, syscall);
  }

  /** The syscall-level write of a handle, at its position or at the end. */
  private handleWrite(h: Handle, bytes: Uint8Array): number {
    const node = h.node as FileNode;
    const offset = h.append ? node.size : h.pos;
    const n = this.pageWrite(node, offset, bytes, h.path);
    h.pos = offset + n;
    return n;
  }

  /** Puts bytes in the page cache: the write system call. */
  private pageWrite(node: FileNode, offset: number, bytes: Uint8Array, path: string): number {
    if (this.failures.write > 0) {
      this.failures.write--;
      this.kernel.trace.add(this.hostName, 'eio', `write ${path} failed`);
      throw new DiskError('EIO', 'write', path);
    }
    let n = bytes.length;
    if (n === 0) return 0;
    const growth = offset + n - node.size;
    if (growth > 0) {
      const free = this.freeBytes;
      if (growth > free) {
        const fit = node.size + free - offset;
        if (fit <= 0) {
          this.kernel.trace.add(this.hostName, 'enospc', `write ${path}: no space for ${n} bytes`);
          throw new DiskError('ENOSPC', 'write', path);
        }
        this.kernel.trace.add(this.hostName, 'enospc', `write ${path}: ${fit} of ${n} bytes written`);
        n = fit;
        bytes = bytes.subarray(0, n);
      }
    }
    const before = node.size;
    if (node.write(offset, bytes, this.kernel.now)) this.markDirty(node);
    if (node.live) this.used += node.size - before;
    this.lastWriteNode = node;
    this.lastWriteOffset = offset;
    this.lastWriteLength = n;
    return n;
  }

  private resize(node: FileNode, length: number): void {
    const before = node.size;
    if (node.setSize(length, this.kernel.now)) this.markDirty(node);
    if (node.live) this.used += node.size - before;
    if (this.lastWriteNode === node) this.lastWriteNode = null;
  }

  private startSync(fd: number, done: FsyncCallback, syscall: string): void {
    const h = this.handle(fd, syscall);
    const node = h.node;
    const now = this.kernel.now;
    const bytes = node.kind === 'file' ? node.dirtyBytes : 0;
    const start = Math.max(now, this.deviceFreeUs);
    const finish = start + this.profile.fsyncUs + Math.round((bytes * 1e6) / this.profile.writeBytesPerSec);
    this.deviceFreeUs = finish;
    const fails = this.failures.fsync > 0;
    if (fails) this.failures.fsync--;
    const p: PendingFsync = { event: null, done, owner: h.owner };
    p.event = this.kernel.at(finish, () => {
      this.pending.delete(p);
      const ms = ((finish - now) / 1000).toFixed(3);
      let err: DiskError | null = null;
      if (fails) {
        this.kernel.trace.add(this.hostName, 'eio', `${syscall} ${h.path} failed after ${ms} ms`);
        err = new DiskError('EIO', syscall, h.path);
      } else {
        const synced = node.kind === 'file' ? node.dirtyBytes : 0;
        if (node.kind === 'file') this.syncNode(node);
        const names = this.commitNamespace();
        this.kernel.trace.add(
          this.hostName,
          'fsync',
          `${h.path}: ${synced} bytes${names ? ' and directory changes' : ''} durable after ${ms} ms`,
        );
      }
      p.done?.(err);
    });
    this.pending.add(p);
  }

  private syncNode(node: FileNode): void {
    node.sync();
    this.dirty.delete(node);
    if (this.lastWriteNode === node) this.lastWriteNode = null;
  }

  private commitNamespace(): boolean {
    if (this.namespaceDirtySinceUs < 0) return false;
    this.durableRoot = cloneTree(this.root);
    this.namespaceDirtySinceUs = -1;
    return true;
  }

  private markDirty(node: FileNode): void {
    this.dirty.add(node);
    this.scheduleWriteback();
  }

  private namespaceChanged(): void {
    if (this.namespaceDirtySinceUs < 0) this.namespaceDirtySinceUs = this.kernel.now;
    this.scheduleWriteback();
  }

  private scheduleWriteback(): void {
    if (this.writebackEvent !== null) return;
    const k = this.kernel;
    const next = k.startUs + (Math.floor((k.now - k.startUs) / WRITEBACK_EVERY_US) + 1) * WRITEBACK_EVERY_US;
    this.writebackEvent = k.at(next, () => this.writeback());
  }

  private writeback(): void {
    this.writebackEvent = null;
    const now = this.kernel.now;
    let files = 0;
    let bytes = 0;
    for (const node of this.dirty) {
      if (now - node.dirtySinceUs <= DIRTY_EXPIRE_US) continue;
      bytes += node.dirtyBytes;
      files++;
      this.syncNode(node);
    }
    const namesExpired = this.namespaceDirtySinceUs >= 0 && now - this.namespaceDirtySinceUs > DIRTY_EXPIRE_US;
    const names = namesExpired && this.commitNamespace();
    if (files !== 0 || names) {
      this.deviceFreeUs = Math.max(now, this.deviceFreeUs) + Math.round((bytes * 1e6) / this.profile.writeBytesPerSec);
      this.kernel.trace.add(
        this.hostName,
        'writeback',
        `${bytes} bytes of ${files} files${names ? ' and directory changes' : ''} written back`,
      );
    }
    if (this.dirty.size !== 0 || this.namespaceDirtySinceUs >= 0) this.scheduleWriteback();
  }

  /** The directory holding the last component of `parts` (which must not be empty). */
  private parentDir(parts: readonly string[], syscall: string, path: string): DirNode {
    let dir = this.root;
    for (let i = 0; i < parts.length - 1; i++) {
      const next = dir.children.get(parts[i]!);
      if (next === undefined) throw new DiskError('ENOENT', syscall, path);
      if (next.kind !== 'dir') throw new DiskError('ENOTDIR', syscall, path);
      dir = next;
    }
    return dir;
  }

  private lookup(path: string, syscall: string): FsNode {
    const parts = pathParts(path);
    if (parts.length === 0) return this.root;
    const node = this.parentDir(parts, syscall, path).children.get(parts[parts.length - 1]!);
    if (node === undefined) throw new DiskError('ENOENT', syscall, path);
    return node;
  }

  private fileForWriting(path: string): FileNode {
    const parts = pathParts(path);
    if (parts.length === 0) throw new DiskError('EISDIR', 'open', path);
    const parent = this.parentDir(parts, 'open', path);
    const name = parts[parts.length - 1]!;
    const node = parent.children.get(name);
    if (node === undefined) {
      this.kernel.trace.add(this.hostName, 'create', path);
      return this.link(parent, name, new FileNode(this.kernel.now));
    }
    if (node.kind === 'dir') throw new DiskError('EISDIR', 'open', path);
    return node;
  }

  private link<T extends FsNode>(parent: DirNode, name: string, node: T): T {
    parent.children.set(name, node);
    parent.mtimeUs = this.kernel.now;
    if (node.kind === 'file') node.links = 1;
    this.namespaceChanged();
    return node;
  }

  private unlinkEntry(parent: DirNode, name: string): void {
    const node = parent.children.get(name)!;
    parent.children.delete(name);
    parent.mtimeUs = this.kernel.now;
    if (node.kind === 'file') {
      node.links = 0;
      if (!node.live) this.used -= node.size;
    }
    this.namespaceChanged();
  }

  private release(h: Handle): void {
    this.handles.delete(h.fd);
    const node = h.node;
    if (node.kind !== 'file') return;
    node.opens--;
    if (!node.live) this.used -= node.size;
  }

  /** Recomputes names, handles and space from the trees (after a power loss or a restore). */
  private recount(): void {
    for (const h of this.handles.values()) {
      if (h.node.kind === 'file') {
        h.node.links = 0;
        h.node.opens = 0;
      }
    }
    for (const f of filesUnder(this.root)) {
      f.links = 1;
      f.opens = 0;
    }
    for (const h of this.handles.values()) if (h.node.kind === 'file') h.node.opens++;
    const counted = new Set<FileNode>();
    let used = 0;
    for (const f of filesUnder(this.root)) {
      counted.add(f);
      used += f.size;
    }
    for (const h of this.handles.values()) {
      if (h.node.kind === 'file' && !counted.has(h.node)) {
        counted.add(h.node);
        used += h.node.size;
      }
    }
    this.used = used;
  }

  private bufferedOn(node: FileNode): number {
    let n = 0;
    for (const h of this.handles.values()) if (h.node === node) n += h.buffer?.length ?? 0;
    return n;
  }

  private dirStat(node: DirNode, durableExists: boolean): DiskStat {
    return {
      isDirectory: true,
      size: DIR_SIZE,
      durableSize: durableExists ? DIR_SIZE : 0,
      durableExists,
      dirtyBytes: 0,
      bufferedBytes: 0,
      mtimeUs: node.mtimeUs,
    };
  }

  /** Where a file lives in the current tree, for trace lines. */
  private pathOf(target: FileNode): string | null {
    const search = (dir: DirNode, prefix: string): string | null => {
      for (const [name, node] of dir.children) {
        if (node === target) return prefix + name;
        if (node.kind === 'dir') {
          const found = search(node, `${prefix}${name}/`);
          if (found !== null) return found;
        }
      }
      return null;
    };
    return search(this.root, '/');
  }
}

/** Linux's flusher wakes every 5 s (dirty_writeback_centisecs=500). */
const WRITEBACK_EVERY_US = 5_000_000;
/** Data older than 30 s is written back (dirty_expire_centisecs=3000). */
const DIRTY_EXPIRE_US = 30_000_000;
/** What stat reports as a directory's size, as ext4 does for a small one. */
const DIR_SIZE = 4096;

interface Handle extends OpenFile {
  readonly node: FsNode;
  readonly flags: OpenFlags;
}

interface PendingFsync {
  event: SimEvent | null;
  /** Cleared when the owner dies: the sync still happens, nobody hears of it. */
  done: FsyncCallback | null;
  readonly owner: number | undefined;
}

function findDir(root: DirNode, path: string): DirNode | undefined {
  const node = findNode(root, pathParts(path));
  return node?.kind === 'dir' ? node : undefined;
}
