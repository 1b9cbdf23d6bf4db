import { encodeCommand, encodeSelect } from '../../resp/encode.js';

/**
 * What Redis 7.0 appends to the AOF for each write (feedAppendOnlyFile and
 * catAppendOnlyGenericCommand in src/aof.c): the command as a RESP array
 * of bulk strings, preceded by a SELECT whenever it targets another
 * database than the previous record, and, with aof-timestamp-enabled, by a
 * `#TS:<unix seconds>` annotation whenever the second has changed.
 *
 * 7.0 makes no AOF-specific translation: a record is exactly the command as
 * propagated to replicas, so relative expiries arrive here already made
 * absolute by the commands (SETEX k 100 v -> SET k v PXAT <ms>, EXPIRE ->
 * PEXPIREAT, GETEX EX -> PEXPIREAT, GETEX PERSIST -> PERSIST, INCRBYFLOAT ->
 * SET ... KEEPTTL, an expired key -> DEL), and a transaction or script with
 * several writes arrives wrapped in MULTI ... EXEC. Arguments keep the
 * case they were sent in.
 *
 *   const feed = new AofFeed();
 *   feed.append(0, ['set', 'a', '1']);  // "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nset\r\n..."
 *   feed.append(0, ['DEL', 'a']);       // "*2\r\n$3\r\nDEL\r\n$1\r\na\r\n"
 *
 * Records are byte strings; the caller turns them into bytes for its file.
 */

/** One command as a record: `*<argc>\r\n` then `$<len>\r\n<bytes>\r\n` per argument. */
export function aofRecord(argv: readonly string[]): string {
  return encodeCommand(argv);
}

/** The record Redis writes to switch databases: SELECT with the index in decimal. */
export function selectRecord(db: number): string {
  return encodeSelect(db);
}

/**
 * A timestamp annotation (genAofTimestampAnnotationIfNeeded); readers skip
 * lines starting with '#'. A rewrite with timestamps on starts the new base
 * with one; being made in the child, it does not change what the parent
 * last annotated.
 */
export function timestampAnnotation(unixSeconds: number): string {
  return `#TS:${unixSeconds}\r\n`;
}

/** The AOF writer's memory between records: the database of the last record and the last timestamp written. */
export class AofFeed {
  /** The database the last record was in; -1 forces a SELECT before the next record. */
  selectedDb = -1;
  /** The last timestamp annotated (server.aof_cur_timestamp). */
  private annotatedSeconds = 0;

  constructor(
    /** aof-timestamp-enabled. */
    public timestamps = false,
  ) {}

  /**
   * The bytes one propagated write adds to the AOF. `unixSeconds` is the
   * server's cached time (server.unixtime); it only matters with timestamps on.
   */
  append(db: number, argv: readonly string[], unixSeconds = 0): string {
    let out = '';
    if (this.timestamps && this.annotatedSeconds < unixSeconds) {
      this.annotatedSeconds = unixSeconds;
      out += timestampAnnotation(unixSeconds);
    }
    if (db !== this.selectedDb) {
      out += selectRecord(db);
      this.selectedDb = db;
    }
    return out + aofRecord(argv);
  }

  /**
   * Redis forgets the selected database when it opens a new incremental
   * file (BGREWRITEAOF) and when AOF is switched off, so the first record
   * of a new file always starts with SELECT.
   */
  forgetSelectedDb(): void {
    this.selectedDb = -1;
  }
}
