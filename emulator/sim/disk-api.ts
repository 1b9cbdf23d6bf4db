import type { DiskError } from './disk-errors.js';

/**
 * What every disk offers, simulated (Disk) or real (src/node's RealDisk): a
 * small POSIX-like file system over absolute paths, with file descriptors,
 * a per-handle process buffer, fsync that completes as a kernel event, and
 * the crashes and faults lessons inflict.
 */

/** How a device performs. */
export interface DiskProfile {
  readonly kind: 'hdd' | 'ssd' | 'nvme';
  /** How long one fsync (a cache flush to stable media) takes on the device. */
  readonly fsyncUs: number;
  /** How fast the device takes data being written back. */
  readonly writeBytesPerSec: number;
  readonly capacityBytes: number;
}

const GB = 1_000_000_000;

export const DISK_PROFILES = {
  /**
   * A 7200 rpm spinning disk. Redis in Action section 4.1.2 gives "roughly
   * 200 writes/second for a spinning disk" with appendfsync always, so one
   * fsync is 5 ms. Such drives stream about 100-150 MB/s sequentially.
   */
  hdd: { kind: 'hdd', fsyncUs: 5_000, writeBytesPerSec: 120_000_000, capacityBytes: 100 * GB },
  /**
   * A SATA SSD: "maybe a few tens of thousands" of syncs per second (the same
   * section), so 50 us each; SATA 3 caps streaming near 550 MB/s.
   */
  ssd: { kind: 'ssd', fsyncUs: 50, writeBytesPerSec: 500_000_000, capacityBytes: 100 * GB },
  /**
   * An NVMe SSD. The book predates them; the figures are our assumption for a
   * drive with power-loss protection, which acknowledges a flush from its
   * protected cache: 20 us per fsync and 2 GB/s.
   */
  nvme: { kind: 'nvme', fsyncUs: 20, writeBytesPerSec: 2_000_000_000, capacityBytes: 100 * GB },
} as const satisfies Record<DiskProfile['kind'], DiskProfile>;

/**
 * 'r' read; 'r+' read and write; 'w' write, created or truncated; 'wx' write,
 * created, failing with EEXIST when the name exists; 'a' append, created.
 * Like fopen's modes, and like the O_ flags they stand for.
 */
export type OpenFlags = 'r' | 'r+' | 'w' | 'wx' | 'a';

export interface OpenOptions {
  /**
   * Size of the handle's process buffer (stdio's FILE* buffer); 0 or absent
   * sends every write straight to the page cache, as the write syscall does.
   */
  bufferBytes?: number;
}

export interface MkdirOptions {
  /** Create missing parents, and accept a directory that already exists. */
  recursive?: boolean;
}

export interface DiskStat {
  isDirectory: boolean;
  /** What a reader sees now: the page-cache view. */
  size: number;
  /** The size this path would have after a power loss now (0 when it would not exist). */
  durableSize: number;
  /** Whether this path would exist after a power loss now. */
  durableExists: boolean;
  /** Bytes in the page cache not yet durable. */
  dirtyBytes: number;
  /** Bytes still in process buffers of handles open on this file. */
  bufferedBytes: number;
  mtimeUs: number;
}

export type FsyncCallback = (err: DiskError | null) => void;

/** Operations that failNext() can make fail with EIO. */
export type FaultOp = 'write' | 'fsync' | 'rename';

export interface FileSystem {
  readonly hostName: string;

  mkdir(path: string, opts?: MkdirOptions): void;
  /** Entry names, sorted. */
  readdir(path: string): string[];
  rmdir(path: string): void;

  /** Opens a file (or, with 'r', a directory, to fsync it) for process `owner`; returns a descriptor. */
  open(path: string, flags: OpenFlags, owner?: number, opts?: OpenOptions): number;
  /**
   * Writes through the handle. Unbuffered, it is the write syscall: it
   * returns how many bytes went to the page cache, fewer on a nearly full
   * disk, and throws when none could. Buffered, it returns bytes.length or
   * throws.
   */
  write(fd: number, bytes: Uint8Array): number;
  /** Moves the process buffer to the page cache (fflush). */
  flush(fd: number): void;
  /** Reads from `position`, or from the handle's position and moves it. */
  read(fd: number, length: number, position?: number): Uint8Array;
  ftruncate(fd: number, length: number): void;
  fstat(fd: number): DiskStat;
  /** Flushes the process buffer and closes; the handle is closed even when the flush fails. */
  close(fd: number): void;
  /**
   * Makes the file's page-cache data durable; `done` runs as a kernel event
   * when the device has finished. Bytes still in the process buffer are not
   * included: flush first, as with fflush before fsync.
   */
  fsync(fd: number, done: FsyncCallback): void;
  fdatasync(fd: number, done: FsyncCallback): void;

  readFile(path: string): Uint8Array;
  writeFile(path: string, bytes: Uint8Array): void;
  appendFile(path: string, bytes: Uint8Array): void;
  /** Atomically gives `from` the name `to`, replacing what was there. */
  rename(from: string, to: string): void;
  unlink(path: string): void;
  truncate(path: string, length: number): void;
  exists(path: string): boolean;
  stat(path: string): DiskStat;
  /** Total size of the files under `path` (default '/'). */
  du(path?: string): number;
  readonly usedBytes: number;

  /** The process died: its buffers are lost, its handles closed; the page cache stays. */
  killProcess(pid: number): void;
  /** The machine lost power: only durable data remains. */
  powerLoss(): void;
  /** Makes every write that needs new space fail with ENOSPC, or stops doing so. */
  setFull(full: boolean): void;
  /** The next `count` (default 1) operations of this kind fail with EIO. */
  failNext(op: FaultOp, count?: number): void;
  /** Silently corrupts one byte (XOR `mask`, default 0xff), at `offset` or a random one. */
  flipByte(path: string, offset?: number, mask?: number): void;
}
