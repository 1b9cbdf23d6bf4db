import type { DiskProfile, FaultOp, OpenFlags } from './disk-api.js';
import type { DirSnapshot, FileSnapshot } from './disk-file.js';

/**
 * A disk as plain data, for checkpoints (JSON.stringify-able). File
 * contents are base64; files are listed once and referred to by index from
 * both trees and from the handles, so a file that is open and named, or
 * named in both trees, stays one file after a restore.
 */
export interface DiskSnapshot {
  version: 1;
  hostName: string;
  profile: DiskProfile;
  files: FileSnapshot[];
  /** The tree readers see now. */
  root: DirSnapshot;
  /** The tree a power loss would leave. */
  durableRoot: DirSnapshot;
  namespaceDirtySinceUs: number;
  handles: HandleSnapshot[];
  nextFd: number;
  full: boolean;
  failures: Record<FaultOp, number>;
  deviceFreeUs: number;
  /** The write a power loss would tear, if any. */
  lastWrite: { file: number; offset: number; length: number } | null;
}

export interface HandleSnapshot {
  fd: number;
  /** Index into files, or null for a directory (found again by path). */
  file: number | null;
  path: string;
  flags: OpenFlags;
  owner: number | null;
  pos: number;
  bufferBytes: number;
  /** The process buffer's bytes, base64. */
  buffered: string;
}
