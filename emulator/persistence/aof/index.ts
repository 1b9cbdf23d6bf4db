/**
 * Redis 7.0's append-only file: the manifest of a multi-part AOF, the
 * records a write appends, and reading files back as the server does on
 * startup. Bytes in and bytes out; the server that uses them does the I/O.
 */
export * from './manifest.js';
export { AofFeed, aofRecord, selectRecord, timestampAnnotation } from './records.js';
export {
  AofCommandReader,
  hasRdbPreamble,
  loadAofFile,
  type AofLoadOptions,
  type AofLoadResult,
  type AofLoadStatus,
  type AofLogEntry,
  type AofOpenFailure,
  type AofReadResult,
  type AofReplayTarget,
} from './reader.js';
export { loadAofFiles, type AofFilesOptions, type AofFilesResult, type AofFilesStatus } from './loader.js';
export { rewriteAof, REWRITE_ITEMS_PER_COMMAND, type AofRewriteOptions } from './rewrite.js';
