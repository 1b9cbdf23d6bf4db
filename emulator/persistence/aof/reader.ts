import { bytesFromArray } from '../../resp/bytes.js';
import { CFile, strtolValue } from './c-stdio.js';
import { cString } from '../../numbers/c-string.js';

/**
 * Reading an AOF file back as Redis 7.0 does on startup
 * (loadSingleAppendOnlyFile in src/aof.c): the optional RDB part at the
 * start, then command after command, with the file's end judged the way
 * Redis judges it. The result carries the warnings Redis logs, so the
 * server that uses it can print them with its own log prefix.
 *
 *   const r = loadAofFile('appendonly.aof.1.incr.aof', bytes, { loadTruncated: true, oldStyle: false }, target);
 *   // target.truncate(52) was called; r.status === 'truncated'; r.log[0].text ===
 *   //   '!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!'
 */

/** serverLog levels the loader uses: '#' warnings and '*' notices. */
export interface AofLogEntry {
  level: 'warning' | 'notice';
  text: string;
}

/** How reading the next command went. */
export type AofReadResult =
  | { kind: 'command'; argv: string[]; /** The offset just after the command. */ end: number }
  /** The file ended cleanly, between two commands. */
  | { kind: 'end' }
  /** The file ended in the middle of a command: a torn write. */
  | { kind: 'short-read' }
  /** Bytes that cannot be a command: Redis's "Bad file format". */
  | { kind: 'format-error' }
  /** A read failed before the end of the file; in memory, only a NUL right after '*' leads here. */
  | { kind: 'read-error' };

/** The outcomes without data, shared rather than made for every call. */
const END: AofReadResult = Object.freeze({ kind: 'end' });
const SHORT_READ: AofReadResult = Object.freeze({ kind: 'short-read' });
const FORMAT_ERROR: AofReadResult = Object.freeze({ kind: 'format-error' });
const READ_ERROR: AofReadResult = Object.freeze({ kind: 'read-error' });

/** Redis reads each line with a buffer of this size (AOF_ANNOTATION_LINE_MAX_LEN). */
const LINE_BUFFER = 1024;

/**
 * Commands from an AOF, one at a time. Lines starting with '#' (timestamp
 * annotations) are skipped. Like Redis, it trusts the lengths: it does
 * not check that an argument is followed by CRLF, only that two more bytes
 * exist, and it reads `$<n>` with strtol, ignoring what follows the digits.
 */
export class AofCommandReader {
  private readonly f: CFile;

  constructor(bytes: Uint8Array, start = 0) {
    this.f = new CFile(bytes);
    this.f.seek(start);
  }

  get offset(): number {
    return this.f.tell();
  }

  next(): AofReadResult {
    const f = this.f;
    const data = f.data;
    // Lines are kept as offsets into the file: [start, end).
    let start: number;
    let end: number;
    do {
      start = f.pos;
      end = f.fgetsEnd(LINE_BUFFER);
      if (end < 0) return END;
    } while (data[start] === 0x23 /* '#' */);
    if (data[start] !== 0x2a /* '*' */) return FORMAT_ERROR;
    if (end - start < 2 || data[start + 1] === 0) return f.eof ? SHORT_READ : READ_ERROR;
    // atoi: strtol cut to an int.
    const count = strtolValue(data, start + 1, end);
    const argc = typeof count === 'number' ? count | 0 : Number(BigInt.asIntN(32, count));
    if (argc < 1) return FORMAT_ERROR;
    const argv: string[] = [];
    for (let j = 0; j < argc; j++) {
      start = f.pos;
      end = f.fgetsEnd(LINE_BUFFER);
      if (end < 0) return this.readError();
      if (data[start] !== 0x24 /* '$' */) return FORMAT_ERROR;
      // The length is an unsigned long: a negative one wraps to a size no
      // allocation can satisfy, which ends the real server; here it can
      // only be a damaged tail, so it reads as one.
      const len = strtolValue(data, start + 1, end);
      if (len < 0 || len > f.size) {
        f.skip(f.size);
        return this.readError();
      }
      const n = Number(len);
      const at = f.pos;
      if (n !== 0 && f.skip(n) < n) return this.readError();
      if (f.skip(2) < 2) return this.readError();
      argv.push(n === 0 ? '' : bytesFromArray(data, at, at + n));
    }
    return { kind: 'command', argv, end: f.tell() };
  }

  private readError(): AofReadResult {
    return this.f.eof ? SHORT_READ : READ_ERROR;
  }
}

/** Whether a file starts like an RDB file: an RDB base, or an old single-file AOF with an RDB preamble. */
export function hasRdbPreamble(bytes: Uint8Array): boolean {
  return bytes.length >= 5 && bytes[0] === 0x52 && bytes[1] === 0x45 && bytes[2] === 0x44 && bytes[3] === 0x49 && bytes[4] === 0x53;
}

/** What replaying a file does to the server: provided by the server that loads it. */
export interface AofReplayTarget {
  /** Whether the server has this command (lookupCommand, subcommands included); an unknown one stops the load. */
  knows(argv: string[]): boolean;
  /** Runs one command outside a transaction, as the AOF client (its reply, even an error, is discarded). */
  run(argv: string[]): void;
  /** Runs what was queued between MULTI and EXEC, as EXEC does. */
  runTransaction(queued: string[][]): void;
  /**
   * Loads the RDB at the start of the file (rdbLoadRio with the AOF
   * preamble flag) and says how many bytes it took, or that it failed and
   * whether it failed because the data ended. A real 7.0.15 exits inside
   * the RDB loader on any damage (it logs the error and runs its RDB check
   * on the file), so a caller faithful to it ends the process there.
   */
  loadRdb(bytes: Uint8Array): { ok: true; length: number } | { ok: false; atEof: boolean };
  /** Truncates the file to `length` bytes; returns the strerror text on failure. */
  truncate(length: number): string | null;
}

export interface AofLoadOptions {
  /** aof-load-truncated. */
  loadTruncated: boolean;
  /** The file is the old single-file AOF (its name is appendfilename itself), not a part of a multi-part AOF. */
  oldStyle: boolean;
  /** The strerror text for a read that failed before the end of the file (Redis prints errno, often stale). */
  readErrorText?: string;
}

/** loadSingleAppendOnlyFile's outcomes (AOF_OK, AOF_TRUNCATED, ...). */
export type AofLoadStatus = 'ok' | 'truncated' | 'empty' | 'not-exist' | 'open-error' | 'failed';

export interface AofLoadResult {
  status: AofLoadStatus;
  log: AofLogEntry[];
  /** Commands replayed, transactions counted by their commands. */
  commands: number;
}

/** A file that could not be opened: missing (ENOENT), or another error with its strerror text. */
export interface AofOpenFailure {
  missing: boolean;
  error: string;
}

const warning = (text: string): AofLogEntry => ({ level: 'warning', text });
const notice = (text: string): AofLogEntry => ({ level: 'notice', text });

function isCommand(argv0: string, name: string): boolean {
  // Only a name of that length, or one a NUL cuts there, can match: most
  // commands are told apart without making a lowercase copy.
  if (argv0.length !== name.length && (argv0.length < name.length || argv0.charCodeAt(name.length) !== 0)) return false;
  return cString(argv0).toLowerCase() === name;
}

/**
 * Loads one AOF file into `target` as loadSingleAppendOnlyFile does.
 *
 * - A file that ends inside a command is a short read. With
 *   aof-load-truncated yes it is cut after the last whole command and
 *   counts as loaded ('truncated'); without, loading fails.
 * - A file that ends inside MULTI ... EXEC is treated the same way, cut
 *   before the MULTI ("Revert incomplete MULTI/EXEC transaction").
 * - Bytes that cannot be a command fail the load ("Bad file format").
 * - An unknown command fails the load.
 */
export function loadAofFile(name: string, file: Uint8Array | AofOpenFailure, opts: AofLoadOptions, target: AofReplayTarget): AofLoadResult {
  const log: AofLogEntry[] = [];
  const result = (status: AofLoadStatus, commands = 0): AofLoadResult => ({ status, log, commands });
  if (!(file instanceof Uint8Array)) {
    if (file.missing) {
      log.push(warning(`The append log file ${name} doesn't exist: ${file.error}`));
      return result('not-exist');
    }
    log.push(warning(`Fatal error: can't open the append log file ${name} for reading: ${file.error}`));
    return result('open-error');
  }
  if (file.length === 0) return result('empty');

  let start = 0;
  let validUpTo = 0;
  let validBeforeMulti = 0;
  let commands = 0;
  const uxeof = (): AofLoadResult => {
    if (opts.loadTruncated) {
      log.push(warning(`!!! Warning: short read while loading the AOF file ${name}!!!`));
      log.push(warning(`!!! Truncating the AOF ${name} at offset ${validUpTo} !!!`));
      const err = target.truncate(validUpTo);
      if (err === null) {
        log.push(warning(`AOF ${name} loaded anyway because aof-load-truncated is enabled`));
        return result('truncated', commands);
      }
      log.push(warning(`Error truncating the AOF file ${name}: ${err}`));
    }
    log.push(
      warning(
        `Unexpected end of file reading the append only file ${name}. You can: ` +
          '1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. ' +
          "2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.",
      ),
    );
    return result('failed', commands);
  };
  const readerr = (atEof: boolean): AofLoadResult => {
    if (atEof) return uxeof();
    log.push(warning(`Unrecoverable error reading the append only file ${name}: ${opts.readErrorText ?? 'Success'}`));
    return result('failed', commands);
  };

  if (hasRdbPreamble(file)) {
    log.push(notice(opts.oldStyle ? 'Reading RDB preamble from AOF file...' : 'Reading RDB base file on AOF loading...'));
    const rdb = target.loadRdb(file);
    if (!rdb.ok) {
      log.push(
        warning(
          opts.oldStyle
            ? `Error reading the RDB preamble of the AOF file ${name}, AOF loading aborted`
            : `Error reading the RDB base file ${name}, AOF loading aborted`,
        ),
      );
      return readerr(rdb.atEof);
    }
    start = rdb.length;
    if (opts.oldStyle) log.push(notice('Reading the remaining AOF tail...'));
  }

  const reader = new AofCommandReader(file, start);
  let queued: string[][] | null = null;
  for (;;) {
    const r = reader.next();
    if (r.kind === 'end') break;
    if (r.kind === 'short-read') return uxeof();
    if (r.kind === 'read-error') return readerr(false);
    if (r.kind === 'format-error') {
      log.push(
        warning(
          `Bad file format reading the append only file ${name}: ` +
            'make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>',
        ),
      );
      return result('failed', commands);
    }
    const argv = r.argv;
    if (!target.knows(argv)) {
      log.push(warning(`Unknown command '${cString(argv[0]!)}' reading the append only file ${name}`));
      return result('failed', commands);
    }
    if (isCommand(argv[0]!, 'multi')) validBeforeMulti = validUpTo;
    // The AOF client queues everything but EXEC while in MULTI, even MULTI
    // and DISCARD, as a client whose commands skip processCommand would.
    if (queued !== null && !isCommand(argv[0]!, 'exec')) {
      queued.push(argv);
    } else if (queued !== null) {
      target.runTransaction(queued);
      commands += queued.length;
      queued = null;
    } else if (isCommand(argv[0]!, 'multi')) {
      queued = [];
    } else {
      target.run(argv);
      commands++;
    }
    if (opts.loadTruncated) validUpTo = r.end;
  }
  if (queued !== null) {
    log.push(warning(`Revert incomplete MULTI/EXEC transaction in AOF file ${name}`));
    validUpTo = validBeforeMulti;
    return uxeof();
  }
  return result('ok', commands);
}
