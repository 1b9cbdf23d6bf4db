/**
 * A front of the door: the simulated machines as src/ sees them. The page
 * draws hosts, links and disks and offers their faults; the lessons name
 * host and link profiles; the Node programs reuse the disk's buffer, errors
 * and paths over a real file system, and the network's error texts over
 * real sockets. Every module here is already part of the page's first load
 * (the world needs them), so this front adds nothing to it.
 *
 *   LINK_PROFILES.lan.rttUs;               // 271
 *   parseDurationUs('48ms');               // 48000
 *   normalizePath('/var/lib/redis/../x');  // "/var/lib/x"
 */
export { encodeBase64, decodeBase64 } from './base64.js';
export { CLIENT_CPU, type ClientCpuName } from './cpu.js';
export { checkRead, closeFilesOfDeadProcess, openAccess, openFileOf, writeThrough, type OpenFile } from './disk-handle.js';
export { DiskError, STRERROR, isDiskErrorCode } from './disk-errors.js';
export { normalizePath } from './disk-path.js';
export {
  Disk,
  type DiskStat,
  type FaultOp,
  type FileSystem,
  type FsyncCallback,
  type MkdirOptions,
  type OpenFlags,
  type OpenOptions,
} from './disk.js';
export { HOST_PROFILES, type Host } from './host.js';
export { LINK_PROFILES, parseBandwidth, parseDurationUs, type LinkProfile, type LinkProfileName } from './links.js';
export { NET_ERRORS, type Link } from './network.js';
export { RealtimeDriver } from './realtime.js';
export { Trace } from './trace.js';
export { WireRecorder, type WirePiece } from './wire.js';
