import { cString } from '../../../numbers/c-string.js';
/**
 * What redis-check-rdb remembers while it reads (the `rdbstate` of
 * src/redis-check-rdb.c) and how it reports: info lines with the offset,
 * and on an error a block with what it was doing, the key and type it was
 * reading, and the counts so far.
 */

/** What the checker was doing, in the words it prints ("While doing: read-key"). */
export type CheckDoing =
  | 'start'
  | 'read-type'
  | 'read-expire'
  | 'read-key'
  | 'read-object-value'
  | 'check-sum'
  | 'read-len'
  | 'read-aux'
  | 'read-module-aux'
  | 'read-functions';

/** Names of the type codes 0-18, as the tool prints them; 7 and 8 have none, 19 and up are "unknown". */
const TYPE_NAMES = [
  'string',
  'list-linked',
  'set-hashtable',
  'zset-v1',
  'hash-hashtable',
  'zset-v2',
  'module-value',
  '',
  '',
  'hash-zipmap',
  'list-ziplist',
  'set-intset',
  'zset-ziplist',
  'hash-ziplist',
  'quicklist',
  'stream',
  'hash-listpack',
  'zset-listpack',
  'quicklist-v2',
];

/**
 * A damaged value found by Redis's loader (rdbReportCorruptRDB or
 * rdbReportReadError): in check mode it prints the error block and ends
 * the process. Thrown from deep inside the reading, caught by the checker.
 */
export class RdbCorruption {
  constructor(
    /** The line in rdb.c that reports it. */
    readonly line: number,
    readonly message: string,
  ) {}
}

export function corrupt(line: number, message: string): never {
  throw new RdbCorruption(line, message);
}

/** vsnprintf into a 1024-byte buffer keeps 1023 bytes. */
export function clip(s: string): string {
  return s.length > 1023 ? s.slice(0, 1023) : s;
}

export class CheckState {
  doing: CheckDoing = 'start';
  /** The key being read, once it has been read. */
  key: string | null = null;
  /** The type being read; the tool's state starts zeroed, so it says "type 0" until the first key is done. */
  keyType = 0;
  keys = 0;
  expires = 0;
  alreadyExpired = 0;
  /** The loader's report that ended the check, when one did. */
  corruption: RdbCorruption | null = null;

  constructor(
    private readonly out: (text: string) => void,
    /** Bytes read so far, for the [offset N] of each line. */
    private readonly offset: () => number,
  ) {}

  info(message: string): void {
    this.out(`[offset ${this.offset()}] ${clip(message)}\n`);
  }

  showGenericInfo(): void {
    this.out(`[info] ${this.keys} keys read\n[info] ${this.expires} expires\n[info] ${this.alreadyExpired} already expired\n`);
  }

  error(message: string): void {
    let text = '--- RDB ERROR DETECTED ---\n';
    text += `[offset ${this.offset()}] ${clip(message)}\n`;
    text += `[additional info] While doing: ${this.doing}\n`;
    if (this.key !== null) text += `[additional info] Reading key '${cString(this.key)}'\n`;
    if (this.keyType !== -1) {
      const name = this.keyType >= 0 && this.keyType < TYPE_NAMES.length ? TYPE_NAMES[this.keyType] : 'unknown';
      text += `[additional info] Reading type ${this.keyType} (${name})\n`;
    }
    this.out(text);
    this.showGenericInfo();
  }

  /** rdbReportError in check mode: the loader's own message, with the offset it knows (always 0 here). */
  loaderError(c: RdbCorruption): void {
    this.corruption = c;
    this.error(`Internal error in RDB reading offset 0, function at rdb.c:${c.line} -> ${c.message}`);
  }
}
