/** What a terminal's history keeps: how many lines, and which lines it leaves out. */
export interface HistoryRules {
  readonly maxLines: number;
  /** Lines that start with a blank stay out of the history (bash's HISTCONTROL=ignorespace). */
  readonly ignoreLeadingSpace: boolean;
}

/**
 * redis-cli's history is linenoise's: the last 100 lines
 * (LINENOISE_DEFAULT_HISTORY_MAX_LEN), a line equal to the one before it
 * left out (linenoiseHistoryAdd).
 */
export const REDIS_CLI_HISTORY: HistoryRules = { maxLines: 100, ignoreLeadingSpace: false };

/** bash as Debian's default ~/.bashrc sets it up: HISTSIZE=1000, HISTCONTROL=ignoreboth. */
export const BASH_HISTORY: HistoryRules = { maxLines: 1000, ignoreLeadingSpace: true };

/** The rules of the program a terminal runs, by its name. */
export function historyRulesFor(programName: string): HistoryRules {
  return programName === 'bash' ? BASH_HISTORY : REDIS_CLI_HISTORY;
}

/** Where a reverse search found its text: the history line and the offset of the text in it. */
export interface HistoryMatch {
  readonly index: number;
  readonly at: number;
}

/**
 * The lines a terminal remembers, oldest first.
 *
 *   const h = new LineHistory(REDIS_CLI_HISTORY);
 *   h.add('SET a 1');            // true
 *   h.add('SET a 1');            // false: the same line as the last one
 *   h.searchBack('a', 0);        // { index: 0, at: 4 }
 */
export class LineHistory {
  private entries: string[] = [];

  constructor(private rules: HistoryRules = REDIS_CLI_HISTORY) {}

  get length(): number {
    return this.entries.length;
  }

  /** The line at `index` (0 is the oldest). */
  at(index: number): string | undefined {
    return this.entries[index];
  }

  lines(): readonly string[] {
    return this.entries;
  }

  /** Other rules from now on; the oldest lines go if there are now too many. */
  setRules(rules: HistoryRules): void {
    this.rules = rules;
    this.trim();
  }

  /** Adds a line that was run; returns whether the history changed. */
  add(line: string): boolean {
    if (line.trim() === '') return false;
    if (this.rules.ignoreLeadingSpace && /^\s/.test(line)) return false;
    if (this.entries[this.entries.length - 1] === line) return false;
    this.entries.push(line);
    this.trim();
    return true;
  }

  /**
   * Replaces the lines (a saved history coming back). They were kept under
   * the rules of the program that ran them, so they are taken as they are.
   */
  set(lines: readonly string[]): void {
    this.entries = lines.filter((l) => typeof l === 'string' && l.trim() !== '');
  }

  /**
   * The newest line at or before `from` that holds `text`, and where in it
   * the last occurrence starts, as readline's reverse-i-search finds it;
   * null if none.
   */
  searchBack(text: string, from: number): HistoryMatch | null {
    if (text === '') return null;
    for (let i = Math.min(from, this.entries.length - 1); i >= 0; i--) {
      const at = this.entries[i]!.lastIndexOf(text);
      if (at >= 0) return { index: i, at };
    }
    return null;
  }

  private trim(): void {
    const extra = this.entries.length - this.rules.maxLines;
    if (extra > 0) this.entries.splice(0, extra);
  }
}
