import type { AofEntry, RdbRecord } from '../../../emulator/persistence/inspect/index.js';

/**
 * What a whole file holds, gathered record by record as the background
 * scan reads it: counts per database and type for an RDB, commands and
 * how the file ends for an AOF. The viewer shows it above the pages and
 * fills it in as the scan goes.
 */
export class RdbSummary {
  version = 0;
  readonly aux: Array<[string, string]> = [];
  /** Keys and keys with a TTL, per database. */
  readonly dbs = new Map<number, { keys: number; expires: number }>();
  readonly types = new Map<string, number>();
  functions = 0;
  keys = 0;
  /** The end marker or the error reading stopped at, once reached. */
  end: Extract<RdbRecord, { kind: 'eof' | 'error' }> | null = null;
  /** Where the scan has got to, in bytes. */
  bytesRead = 0;

  add(rec: RdbRecord): void {
    this.bytesRead = rec.end;
    switch (rec.kind) {
      case 'header':
        this.version = rec.version;
        break;
      case 'aux':
        this.aux.push([rec.key, rec.value]);
        break;
      case 'function':
        this.functions++;
        break;
      case 'key': {
        this.keys++;
        const db = this.dbs.get(rec.db) ?? { keys: 0, expires: 0 };
        db.keys++;
        if (rec.expireAtMs !== undefined) db.expires++;
        this.dbs.set(rec.db, db);
        this.types.set(rec.type, (this.types.get(rec.type) ?? 0) + 1);
        break;
      }
      case 'eof':
      case 'error':
        this.end = rec;
        break;
    }
  }
}

export class AofSummary {
  commands = 0;
  annotations = 0;
  /** Keys in an RDB preamble or base. */
  readonly preamble = new RdbSummary();
  hasPreamble = false;
  /** Commands by name (lower case), most frequent first when read through `topCommands`. */
  private readonly byName = new Map<string, number>();
  /** A torn command, bytes that are not a command, or a broken preamble, once reached. */
  end: Extract<AofEntry, { kind: 'torn' | 'bad-format' | 'bad-preamble' }> | null = null;
  /** The first entry that is not wholly on the medium, and its index: where a power loss now would cut. */
  firstUnsynced: { index: number; entry: AofEntry } | null = null;
  bytesRead = 0;

  constructor(private readonly durableLength: number) {}

  add(e: AofEntry, index: number): void {
    this.bytesRead = e.end;
    if (this.firstUnsynced === null && e.end > this.durableLength) this.firstUnsynced = { index, entry: e };
    switch (e.kind) {
      case 'rdb':
        this.hasPreamble = true;
        this.preamble.add(e.record);
        break;
      case 'command': {
        this.commands++;
        const name = (e.argv[0] ?? '').toLowerCase();
        this.byName.set(name, (this.byName.get(name) ?? 0) + 1);
        break;
      }
      case 'annotation':
        this.annotations++;
        break;
      case 'torn':
      case 'bad-format':
      case 'bad-preamble':
        this.end = e;
        break;
    }
  }

  /** The most frequent command names, with their counts. */
  topCommands(n: number): Array<[string, number]> {
    return [...this.byName].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
  }
}
