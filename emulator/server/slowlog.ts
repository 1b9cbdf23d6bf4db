/**
 * The slow log (src/slowlog.c): the latest commands whose run took at
 * least `slowlog-log-slower-than` microseconds, newest first, at most
 * `slowlog-max-len` of them. Durations are the thread's time in the
 * command, which in a simulated world is the virtual time the CPU model
 * charged for it (plus what it stalled: a fork, DEBUG SLEEP).
 */

/** Redis keeps at most this many arguments of a logged command (SLOWLOG_ENTRY_MAX_ARGC). */
const MAX_ARGC = 32;
/** ... and at most this many bytes of each (SLOWLOG_ENTRY_MAX_STRING). */
const MAX_STRING = 128;

export interface SlowlogEntry {
  readonly id: number;
  /** Unix seconds when the command ended. */
  readonly timeS: number;
  readonly durationUs: number;
  /** The arguments as logged: trimmed, sensitive ones redacted. */
  readonly argv: readonly string[];
  /** The client's address, "ip:port" (getClientPeerId). */
  readonly peer: string;
  /** The client's name, or "". */
  readonly name: string;
}

export class SlowLog {
  /** Newest first. */
  entries: SlowlogEntry[] = [];
  /** The id the next entry gets; never reset, not even by SLOWLOG RESET. */
  private nextId = 0;

  /**
   * Logs a command if it was slow enough (slowlogPushEntryIfNeeded), then
   * trims the log to `maxLen`, which Redis does on every push, logged or not.
   * A negative `slowerThanUs` disables the log.
   */
  push(argv: readonly string[], durationUs: number, who: { peer: string; name: string; timeS: number }, slowerThanUs: number, maxLen: number): void {
    if (slowerThanUs < 0) return;
    if (durationUs >= slowerThanUs) {
      this.entries.unshift({ id: this.nextId++, timeS: who.timeS, durationUs, argv: trimmedArgs(argv), peer: who.peer, name: who.name });
    }
    this.trim(maxLen);
  }

  /** What push does for a command that was not slow enough: only the trim to `maxLen`. */
  trim(maxLen: number): void {
    if (this.entries.length > maxLen) this.entries.length = maxLen;
  }

  reset(): void {
    this.entries = [];
  }
}

/** The arguments as an entry keeps them: the first 31 and a count of the rest, each cut at 128 bytes. */
function trimmedArgs(argv: readonly string[]): string[] {
  const argc = Math.min(argv.length, MAX_ARGC);
  const out: string[] = [];
  for (let j = 0; j < argc; j++) {
    if (argc !== argv.length && j === argc - 1) {
      out.push(`... (${argv.length - argc + 1} more arguments)`);
      continue;
    }
    const a = argv[j]!;
    out.push(a.length > MAX_STRING ? `${a.slice(0, MAX_STRING)}... (${a.length - MAX_STRING} more bytes)` : a);
  }
  return out;
}
