/**
 * The RDB codec: Redis 7.0's file and DUMP formats, bytes in and bytes
 * out, with no I/O of its own. What the emulator saves reads back into
 * the same dataset; what Redis 7.0.15 saves, the emulator reads; and for
 * the same dataset and encodings the emulator writes the same bytes.
 */
export { RdbError, type RdbErrorCode } from './errors.js';
export { crc64, Crc64 } from './crc64.js';
export { lzfCompress, lzfDecompress } from '../../keyspace/encoding/lzf.js';
export { writeRdb, type RdbAux, type RdbDatabase, type RdbKey, type RdbWriteOptions } from './file-writer.js';
export { readRdb, type LoadedKey, type RdbContents, type RdbKeySink, type RdbReadOptions } from './file-reader.js';
export { createDumpPayload, loadDumpPayload, verifyDumpPayload } from './dump-payload.js';
export { serializedObjectLength, objectType, type ValueWriteOptions } from './value-writer.js';
export type { ValueReadOptions } from './value-reader.js';
export { RDB_VERSION } from './types.js';
