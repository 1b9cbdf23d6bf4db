/**
 * Redis's files decoded for display: RDB files and AOF files record by
 * record with the bytes each spans, manifests explained line by line, and
 * hexdump -C lines. Pure and incremental: a reader returns one record at a
 * time and can be resumed from any record it passed, so a viewer shows the
 * first page of a file of a million keys without reading the rest.
 */
export { RdbRecordReader, type RdbChecksum, type RdbKeyRecord, type RdbReaderState, type RdbRecord } from './rdb-records.js';
export { AofEntryReader, type AofEntry, type AofReaderState } from './aof-entries.js';
export { explainManifest, type ManifestExplanation, type ManifestLine } from './manifest-lines.js';
export { asciiColumn, hexByte, hexLines, hexLineText, hexOffset, HEX_LINE_BYTES, type HexLine } from './hex-lines.js';
export { fileKind, isText, type FileKind } from './file-kind.js';
export { AUX_FIELDS, rdbTypeInfo, type RdbTypeInfo } from './rdb-type-names.js';
export { quoteCut, summarizeValue, PREVIEW_BYTES, PREVIEW_ELEMENTS, type ValueSummary } from './value-summary.js';
