/**
 * Why an RDB file or a DUMP payload could not be read. The codec returns
 * these as values; `message` is the text Redis logs for the same problem
 * (src/rdb.c), so a caller can show it or match on `code`.
 */
export type RdbErrorCode =
  /** The file does not start with "REDIS". */
  | 'bad-magic'
  /** The version after "REDIS" is not 1..10. */
  | 'bad-version'
  /** The data ends in the middle of something. */
  | 'short-read'
  /** The stored CRC64 differs from the computed one. */
  | 'checksum'
  /** A type byte names no value type or opcode this server knows. */
  | 'unknown-type'
  /** A length, string or encoded blob is malformed (rdbReportCorruptRDB). */
  | 'corrupt'
  /** SELECTDB names a database beyond the configured count. */
  | 'db-out-of-range'
  /** The same key appears twice in one database. */
  | 'duplicate-key'
  /** A module value or module aux data: no module can load it. */
  | 'unsupported'
  /** A function library that cannot be made (its name is taken, or its metadata is bad). */
  | 'function';

export class RdbError {
  constructor(
    readonly code: RdbErrorCode,
    readonly message: string,
    /** Byte offset where reading stopped, when known. */
    readonly offset = -1,
    /** What Redis logs before the error itself, when it says more (the checksums that differ). */
    readonly detail = '',
  ) {}
}

/**
 * Thrown inside the codec to unwind a deep read; never escapes it. The
 * public functions catch it and return the RdbError it carries.
 */
export class RdbAbort {
  constructor(readonly error: RdbError) {}
}

export function abort(code: RdbErrorCode, message: string, offset = -1, detail = ''): never {
  throw new RdbAbort(new RdbError(code, message, offset, detail));
}
