/**
 * The errors a disk reports, shaped like errno: a code, the call that failed
 * and the path it was given. Messages are Linux's strerror() texts, because
 * Redis prints exactly those in its log and in replies ("MISCONF ... No space
 * left on device").
 *
 *   throw new DiskError('ENOSPC', 'write', '/var/lib/redis/appendonly.aof');
 */
export const STRERROR = {
  ENOENT: 'No such file or directory',
  EEXIST: 'File exists',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  ENOTEMPTY: 'Directory not empty',
  ENOSPC: 'No space left on device',
  EIO: 'Input/output error',
  EBADF: 'Bad file descriptor',
  // Linux answers rmdir("/") and rename("/", ...) with EBUSY, and a rename of
  // a directory into itself or a negative length with EINVAL.
  EBUSY: 'Device or resource busy',
  EINVAL: 'Invalid argument',
  // What a real disk under `npm run server` can also answer (glibc's texts).
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EROFS: 'Read-only file system',
  ENAMETOOLONG: 'File name too long',
  EMFILE: 'Too many open files',
  ENFILE: 'Too many open files in system',
  ELOOP: 'Too many levels of symbolic links',
  EXDEV: 'Invalid cross-device link',
  EFBIG: 'File too large',
  EDQUOT: 'Disk quota exceeded',
} as const;

export type DiskErrorCode = keyof typeof STRERROR;

export class DiskError extends Error {
  override readonly name = 'DiskError';

  constructor(
    readonly code: DiskErrorCode,
    readonly syscall: string,
    readonly path?: string,
  ) {
    super(STRERROR[code]);
  }
}

export function isDiskErrorCode(code: unknown): code is DiskErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(STRERROR, code);
}
