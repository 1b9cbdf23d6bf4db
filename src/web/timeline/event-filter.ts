import type { TraceEntry } from '../../../emulator/sim/trace.js';
import type { EventLog } from './event-log.js';

/** Kinds of trace entries grouped the way a learner looks for them. */
export const KIND_GROUPS: ReadonlyArray<{ readonly id: string; readonly label: string; readonly kinds: readonly string[] }> = [
  { id: 'commands', label: 'Commands', kinds: ['cmd'] },
  { id: 'disk', label: 'Disk: writes, fsyncs, renames', kinds: ['create', 'rename', 'unlink', 'truncate', 'mkdir', 'rmdir', 'fsync', 'writeback'] },
  { id: 'processes', label: 'Processes: forks, exits, boots', kinds: ['spawn', 'exit', 'kill', 'boot'] },
  { id: 'faults', label: 'Faults and crashes', kinds: ['power-loss', 'torn-write', 'kill', 'eio', 'enospc', 'disk-full', 'flip-byte', 'fault', 'reset', 'partition'] },
  { id: 'network', label: 'Network', kinds: ['connect', 'close', 'reset', 'link', 'partition', 'heal'] },
  { id: 'replication', label: 'Replication: the steps of table 4.2', kinds: ['repl'] },
  { id: 'log', label: 'Server logs', kinds: ['log'] },
];

/** What the list shows: one host's entries (null: all), one kind or group ('group:disk') of them (null: all). */
export interface EventFilter {
  readonly host: string | null;
  readonly kind: string | null;
}

export const NO_FILTER: EventFilter = { host: null, kind: null };

/** Compaction of the matches array once this many dropped ones have piled up at its front. */
const COMPACT_AT = 4096;

/**
 * The entries of an event log that pass a filter, found incrementally: each
 * refresh() looks only at the entries added since the last one, and forgets
 * those the trace has dropped, so a busy world costs the page only its new
 * entries. Positions are absolute entry numbers (EventLog.firstIndex).
 */
export class FilteredEvents {
  private matches: number[] = [];
  /** matches[head] is the oldest match the trace still keeps. */
  private head = 0;
  /** The absolute number of the next entry to look at. */
  private scanned: number;
  private hostPattern: RegExp | null = null;
  private kinds: ReadonlySet<string> | null = null;
  /** Every kind seen, for the filter's choices. */
  readonly kindsSeen = new Set<string>();

  constructor(
    private log: EventLog,
    private current: EventFilter = NO_FILTER,
  ) {
    this.scanned = log.firstIndex;
    this.compile();
  }

  get filter(): EventFilter {
    return this.current;
  }

  /** Follows another log (the world was replaced), keeping the filter. */
  setLog(log: EventLog): void {
    this.log = log;
    this.kindsSeen.clear();
    this.restart();
  }

  setFilter(filter: EventFilter): void {
    if (filter.host === this.current.host && filter.kind === this.current.kind) return;
    this.current = filter;
    this.compile();
    this.restart();
  }

  /** Takes in the entries added since the last refresh; returns whether the list changed. */
  refresh(): boolean {
    const log = this.log;
    const first = log.firstIndex;
    const total = log.total;
    let changed = false;
    while (this.head < this.matches.length && this.matches[this.head]! < first) {
      this.head++;
      changed = true;
    }
    if (this.head >= COMPACT_AT) {
      this.matches = this.matches.slice(this.head);
      this.head = 0;
    }
    const entries = log.entries;
    for (let abs = Math.max(this.scanned, first); abs < total; abs++) {
      const e = entries[abs - first]!;
      this.kindsSeen.add(e.kind);
      if (this.accepts(e)) {
        this.matches.push(abs);
        changed = true;
      }
    }
    this.scanned = total;
    return changed;
  }

  /** How many entries pass. */
  get length(): number {
    return this.matches.length - this.head;
  }

  /** The i-th passing entry, oldest first. */
  entry(i: number): TraceEntry | undefined {
    const abs = this.matches[this.head + i];
    if (abs === undefined) return undefined;
    return this.log.entries[abs - this.log.firstIndex];
  }

  /** The absolute number of the i-th passing entry (a stable key). */
  position(i: number): number {
    return this.matches[this.head + i] ?? -1;
  }

  accepts(e: TraceEntry): boolean {
    if (this.kinds !== null && !this.kinds.has(e.kind)) return false;
    const host = this.current.host;
    if (host === null) return true;
    if (e.source === host) return true;
    // The network's and the simulation's entries name hosts in their text.
    return (e.source === 'net' || e.source === 'sim') && this.hostPattern!.test(e.text);
  }

  private restart(): void {
    this.matches = [];
    this.head = 0;
    this.scanned = this.log.firstIndex;
  }

  private compile(): void {
    const { host, kind } = this.current;
    this.hostPattern = host === null ? null : new RegExp(`(^|[^A-Za-z0-9_.-])${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_-])`);
    if (kind === null) this.kinds = null;
    else if (kind.startsWith('group:')) this.kinds = new Set(KIND_GROUPS.find((g) => `group:${g.id}` === kind)?.kinds ?? []);
    else this.kinds = new Set([kind]);
  }
}
