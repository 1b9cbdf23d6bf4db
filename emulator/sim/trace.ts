/**
 * The world's record of what happened and when: connections opened and
 * reset, commands run, files written and synced, crashes, partitions. Lesson
 * checks and the timeline read the entries; determinism tests compare the
 * hash, which covers every entry ever added even after old ones are dropped
 * from the window kept in memory.
 */
export interface TraceEntry {
  /** Microseconds since the world began. */
  readonly t: number;
  /** Who: a host name, 'sim' or 'net'. */
  readonly source: string;
  /** What kind of event: 'cmd', 'connect', 'reset', 'fsync', 'crash'... */
  readonly kind: string;
  readonly text: string;
  /**
   * For a command: the id of the client's end of the connection it came
   * on (Socket.id), so a viewer can tell whose command it was. Not part of
   * the text nor of the hash.
   */
  readonly socket?: number;
}

/**
 * An entry whose text the trace hashes where its pieces lie and makes
 * only when something reads it (Trace.addText): a command's line is about
 * 80 characters, and most are never read. A subclass holds the pieces.
 */
export abstract class TextLaterEntry implements TraceEntry {
  t = 0;
  source = '';
  kind = '';
  socket: number | undefined = undefined;
  private made: string | undefined = undefined;

  /** Feeds the text's characters, in order, to `h`: exactly those of makeText(). */
  abstract hashInto(h: TraceHash): void;
  protected abstract makeText(): string;

  get text(): string {
    return (this.made ??= this.makeText());
  }
}

/** What a TextLaterEntry feeds its characters to. */
export interface TraceHash {
  /** One character (a UTF-16 code unit). */
  char(c: number): void;
  /** Every character of `s`, in order. */
  chars(s: string): void;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

export type TraceListener = (entry: TraceEntry) => void;

export class Trace implements TraceHash {
  /**
   * Whether traces made from now on hash their entries. Tests, replays
   * and the command-line tools compare worlds by hash(); the page reads
   * no hash, and hashing every command's two lines there was a twentieth
   * of lesson 16's benchmark, so the page turns it off before it makes a
   * world. What a world does never depends on it.
   */
  static hashByDefault = true;
  /** Whether this trace hashes its entries (see hashByDefault). */
  readonly hashing = Trace.hashByDefault;
  /** Entries kept in memory (the newest `limit`). */
  readonly entries: TraceEntry[] = [];
  limit = 20_000;
  /** Whether every command is recorded ('cmd' entries); off for big benchmarks. */
  commands = true;
  count = 0;
  /**
   * Every entry of the kinds given to keep(), since the world began: the
   * window above drops old entries, and what is read from these (the
   * acknowledged-writes ledger) must not depend on when it is read.
   */
  readonly kept: TraceEntry[] = [];
  private keepKinds: ReadonlySet<string> = new Set();
  private h1 = 0x811c9dc5;
  private h2 = 0x01000193;
  private listeners: TraceListener[] = [];

  constructor(private readonly elapsedUs: () => number) {}

  add(source: string, kind: string, text: string, socket?: number): void {
    const entry: TraceEntry = socket === undefined ? { t: this.elapsedUs(), source, kind, text } : { t: this.elapsedUs(), source, kind, text, socket };
    this.count++;
    if (this.hashing) {
      this.mixHead(entry);
      this.chars(text);
      this.char(NEWLINE);
    }
    this.push(entry);
  }

  /**
   * As add(), with a text hashed where its pieces are and made only when
   * the entry's `text` is read: the same hash as add(source, kind,
   * entry.text). Sets the entry's time, source, kind and socket.
   */
  addText(source: string, kind: string, entry: TextLaterEntry, socket?: number): void {
    entry.t = this.elapsedUs();
    entry.source = source;
    entry.kind = kind;
    entry.socket = socket;
    this.count++;
    if (this.hashing) {
      this.mixHead(entry);
      entry.hashInto(this);
      this.char(NEWLINE);
    }
    this.push(entry);
  }

  /**
   * The hash reads `${t} ${source} ${kind} ${text}\n` a character at a
   * time; mixing the parts in turn reads the same characters without
   * joining them into one string first (a copy per entry).
   */
  private mixHead(entry: TraceEntry): void {
    this.chars(String(entry.t));
    this.char(SPACE);
    this.chars(entry.source);
    this.char(SPACE);
    this.chars(entry.kind);
    this.char(SPACE);
  }

  private push(entry: TraceEntry): void {
    const kind = entry.kind;
    const entries = this.entries;
    entries.push(entry);
    if (this.keepKinds.has(kind)) this.kept.push(entry);
    if (entries.length > this.limit * 1.25) entries.splice(0, entries.length - this.limit);
    for (const l of this.listeners) l(entry);
  }

  /** Keeps every entry of these kinds from now on (see `kept`). */
  keep(kinds: Iterable<string>): void {
    this.keepKinds = new Set(kinds);
  }

  /** A hex digest of every entry so far (two interleaved FNV-1a hashes). */
  hash(): string {
    if (!this.hashing) throw new Error('this trace does not hash its entries (Trace.hashByDefault was off when its world was made)');
    return (this.h1 >>> 0).toString(16).padStart(8, '0') + (this.h2 >>> 0).toString(16).padStart(8, '0');
  }

  /** Entries of one kind (optionally from one source), oldest first. */
  find(kind: string, source?: string): TraceEntry[] {
    return this.entries.filter((e) => e.kind === kind && (source === undefined || e.source === source));
  }

  subscribe(listener: TraceListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** The entries as text, one per line: `<ms> <source> <kind> <text>`. */
  format(entries: readonly TraceEntry[] = this.entries): string {
    return entries.map((e) => `${(e.t / 1000).toFixed(3)} ${e.source} ${e.kind} ${e.text}`).join('\n');
  }

  char(c: number): void {
    const a = Math.imul(this.h1 ^ c, 0x01000193);
    this.h2 = Math.imul(this.h2 ^ (c + 0x9e), 0x01000193) ^ (a >>> 15);
    this.h1 = a;
  }

  chars(s: string): void {
    let a = this.h1;
    let b = this.h2;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ (c + 0x9e), 0x01000193) ^ (a >>> 15);
    }
    this.h1 = a;
    this.h2 = b;
  }
}
