import { charWidth, textWidth } from './char-width.js';
import { choiceColumns } from './choice-columns.js';
import { isPlainText, type Key } from './key-input.js';
import type { Completion, LineAssist } from './line-assist.js';
import { LineHistory, type HistoryMatch, type HistoryRules } from './line-history.js';
import { visibleControls } from './sanitize.js';

/** What a key did that the terminal must act on. */
export type EditorEvent = { readonly kind: 'submit'; readonly line: string } | { readonly kind: 'eof' } | { readonly kind: 'interrupt' };

/** The line and the cursor, kept to come back to. */
interface Saved {
  readonly chars: readonly string[];
  readonly pos: number;
}

/** Tab pressed on a redis-cli line: the whole lines offered, and which one is shown (lines.length: the line as typed). */
interface Cycling {
  readonly kind: 'cycle';
  readonly lines: readonly string[];
  index: number;
  readonly original: Saved;
}

/** Ctrl-R: the text searched for and the history line found. */
interface Searching {
  readonly kind: 'search';
  query: string;
  match: HistoryMatch | null;
  failed: boolean;
  readonly original: Saved;
}

type Mode = { readonly kind: 'edit' } | Cycling | Searching;

const EDIT: Mode = { kind: 'edit' };

/** redis-cli's hint colour (linenoise's "\e[0;90;49m": bright black on the default background), then a reset. */
const HINT_ON = '\x1b[0;90;49m';
const HINT_OFF = '\x1b[0m';
const BELL = '\x07';

/**
 * The prompt's line editor, in the manner of linenoise (redis-cli's) and
 * readline: insertion anywhere, Backspace and Delete, the arrows, Home and
 * End, the Emacs control keys (Ctrl-A, E, B, F, K, U, W, T, L, P, N;
 * Ctrl-C; Ctrl-D), a history browsed with Up and Down, reverse search
 * with Ctrl-R, and with a program's LineAssist, Tab completion and a grey
 * hint after the line. It draws by rewriting the prompt and the line from
 * the prompt's first row, so a line longer than the terminal is wide wraps
 * and edits correctly.
 *
 *   const editor = new LineEditor((s) => term.write(s), term.cols);
 *   editor.start('127.0.0.1:6379> ');
 *   editor.handle({ kind: 'text', text: 'PING' });
 *   editor.handle({ kind: 'enter' });   // { kind: 'submit', line: 'PING' }
 */
export class LineEditor {
  private chars: string[] = [];
  private pos = 0;
  private prompt = '';
  /** Rows from the prompt's first row down to the cursor, as last drawn. */
  private cursorRow = 0;
  private readonly history = new LineHistory();
  /** The history line shown while browsing, or null on the line being typed. */
  private historyIndex: number | null = null;
  /** The line being typed, kept while the history is browsed. */
  private draft = '';
  /** History lines edited while browsing: the edits last until the next prompt, as in readline. */
  private edits = new Map<number, string>();
  private mode: Mode = EDIT;
  /** Whether the last key was Tab: a second Tab lists the choices. */
  private afterTab = false;
  /** The text of the last reverse search, which Ctrl-R Ctrl-R searches again. */
  private lastSearch = '';
  private assist: LineAssist | null = null;
  private active = false;
  /** Whether a hint is drawn after the line now. */
  private hintShown = false;
  /** The line's length in characters, and the prompt's and the line's width in columns, as last drawn. */
  private drawn: { readonly length: number; readonly width: number } | null = null;

  /**
   * @param settled told when what the editor drew is final: with the text
   *   that stays on the screen of the line just left (its prompt, the line,
   *   a suffix such as ^C, the row's end), which replaces the redraws made
   *   while it was edited; or with null after output that stays as it is
   *   (a list of choices, a cleared screen). A saved screen shown again at
   *   another width then holds no redraw computed for this one.
   */
  constructor(
    private readonly out: (s: string) => void,
    private cols = 80,
    private readonly settled: (finalText: string | null) => void = () => {},
  ) {}

  /** The text typed so far. */
  get line(): string {
    return this.chars.join('');
  }

  /** Whether a prompt waits for a line. */
  get editing(): boolean {
    return this.active;
  }

  /** Whether Tab means something now: there is a line to complete, or a completion or search under way. */
  get wantsTab(): boolean {
    return this.active && (this.chars.length !== 0 || this.mode.kind !== 'edit');
  }

  /** Shows a prompt (display text, already safe for the terminal) and waits for a line. */
  start(prompt: string): void {
    this.prompt = prompt;
    this.chars = [];
    this.pos = 0;
    this.cursorRow = 0;
    this.historyIndex = null;
    this.draft = '';
    this.edits = new Map();
    this.mode = EDIT;
    this.afterTab = false;
    this.active = true;
    this.refresh();
  }

  /** The program's completion and hints (null: none). */
  setAssist(assist: LineAssist | null): void {
    this.assist = assist;
  }

  /** Draws the line again where it is, for a hint that can be shown now. */
  update(): void {
    if (this.active) this.refresh();
  }

  /** The terminal's new width: xterm.js has re-wrapped the rows, so only the cursor's row is recomputed. */
  setColumns(cols: number): void {
    if (cols < 1 || cols === this.cols) return;
    this.cols = cols;
    if (!this.active) return;
    this.cursorRow = Math.floor((textWidth(this.shownPrompt()) + this.widthBefore(this.pos)) / cols);
    this.refresh();
  }

  /** Adds a line that was run to the history; returns whether the history changed. */
  addHistory(line: string): boolean {
    return this.history.add(line);
  }

  /** The lines kept, oldest first. */
  historyLines(): readonly string[] {
    return this.history.lines();
  }

  /** Replaces the history (a saved one coming back). */
  setHistory(lines: readonly string[]): void {
    this.history.set(lines);
  }

  /** What the history keeps, by the program's rules. */
  setHistoryRules(rules: HistoryRules): void {
    this.history.setRules(rules);
  }

  /** Acts on one key; returns what the terminal must do, if anything. */
  handle(key: Key): EditorEvent | null {
    if (!this.active) return null;
    const afterTab = this.afterTab;
    this.afterTab = key.kind === 'tab';
    if (this.mode.kind === 'cycle' && this.cycleKey(this.mode, key)) return null;
    if (this.mode.kind === 'search') {
      const r = this.searchKey(this.mode, key);
      if (r !== 'pass') return r;
    }
    switch (key.kind) {
      case 'text':
        this.insert(key.text);
        return null;
      case 'enter':
        return this.submit();
      case 'backspace':
        return this.edit(() => this.pos > 0 && this.chars.splice(--this.pos, 1));
      case 'delete':
        return this.edit(() => this.pos < this.chars.length && this.chars.splice(this.pos, 1));
      case 'left':
        return this.moveTo(this.pos - 1);
      case 'right':
        return this.moveTo(this.pos + 1);
      case 'home':
        return this.moveTo(0);
      case 'end':
        return this.moveTo(this.chars.length);
      case 'wordLeft':
        return this.moveTo(this.wordStart());
      case 'wordRight':
        return this.moveTo(this.wordEnd());
      case 'wordRubout':
        return this.killBack(this.wordStart());
      case 'up':
        return this.browse(-1);
      case 'down':
        return this.browse(1);
      case 'tab':
        return this.complete(afterTab);
      case 'ctrl':
        return this.control(key.letter);
      case 'escape':
      case 'ignored':
        return null;
    }
  }

  /**
   * Leaves the line as it is drawn, without its hint, the cursor after its
   * end, and ends the row with `suffix` (Ctrl-C's "^C"). The prompt is then
   * inactive.
   */
  finish(suffix = ''): void {
    if (!this.active) return;
    this.leaveLine(suffix);
    this.active = false;
  }

  /** Draws the prompt and the line again on a cleared screen (Ctrl-L). */
  redraw(): void {
    this.cursorRow = 0;
    if (this.active) this.refresh();
  }

  /** Erases the prompt and the line from the screen, keeping them, so output can take their place. */
  hide(): void {
    if (!this.active) return;
    this.out((this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : '') + '\r\x1b[J');
    this.cursorRow = 0;
  }

  /** Draws the prompt and the line again after hide(), where the cursor now is. */
  show(): void {
    this.redraw();
  }

  private control(letter: string): EditorEvent | null {
    switch (letter) {
      case 'a':
        return this.moveTo(0);
      case 'e':
        return this.moveTo(this.chars.length);
      case 'b':
        return this.moveTo(this.pos - 1);
      case 'f':
        return this.moveTo(this.pos + 1);
      case 'k':
        return this.edit(() => this.chars.splice(this.pos));
      case 'u':
        return this.killBack(0);
      case 'w':
        return this.killBack(this.wordStart(/\s/));
      case 't':
        return this.transpose();
      case 'p':
        return this.browse(-1);
      case 'n':
        return this.browse(1);
      case 'r':
        return this.startSearch();
      case 'l':
        this.out('\x1b[H\x1b[2J');
        this.settled(null);
        this.redraw();
        return null;
      case 'c':
        return { kind: 'interrupt' };
      case 'd':
        if (this.chars.length === 0) return { kind: 'eof' };
        return this.edit(() => this.pos < this.chars.length && this.chars.splice(this.pos, 1));
      default:
        return null;
    }
  }

  private submit(): EditorEvent {
    const line = this.line;
    this.finish();
    return { kind: 'submit', line };
  }

  private insert(text: string): void {
    const add = Array.from(text);
    const atEnd = this.pos === this.chars.length;
    // Not splice(pos, 0, ...add): a pasted line of 200 KB is more arguments than a call can take.
    if (atEnd) for (const c of add) this.chars.push(c);
    else this.chars = this.chars.slice(0, this.pos).concat(add, this.chars.slice(this.pos));
    this.pos += add.length;
    if (atEnd && this.mode.kind === 'edit' && !this.hintShown) this.append(add);
    else this.refresh();
  }

  /**
   * Draws characters just added at the end of the line without drawing the
   * line again: a pasted line can be taller than the screen, and a redraw
   * cannot go back up past the screen's top row to where the prompt began.
   * A line still short enough for a hint is drawn again with its hint.
   */
  private append(add: readonly string[]): void {
    // Measured from the line as last drawn, so a paste of many keys does not measure the whole line for each.
    const drawnBefore = this.drawn !== null && this.drawn.length === this.chars.length - add.length;
    const total = drawnBefore ? this.drawn!.width + textWidth(add.join('')) : textWidth(this.shownPrompt()) + this.widthBefore(this.chars.length);
    this.drawn = { length: this.chars.length, width: total };
    if (total < this.cols && this.assist !== null) {
      this.refresh();
      return;
    }
    let s = add.join('');
    if (total > 0 && total % this.cols === 0) s += '\r\n';
    this.cursorRow = Math.floor(total / this.cols);
    this.out(s);
  }

  private edit(change: () => unknown): null {
    change();
    this.refresh();
    return null;
  }

  private moveTo(pos: number): null {
    const p = Math.max(0, Math.min(this.chars.length, pos));
    if (p !== this.pos) {
      this.pos = p;
      this.refresh();
    }
    return null;
  }

  /** Deletes from `from` up to the cursor. */
  private killBack(from: number): null {
    if (from >= this.pos) return null;
    this.chars.splice(from, this.pos - from);
    this.pos = from;
    this.refresh();
    return null;
  }

  /** Ctrl-T as linenoise does it: swaps the characters before and under the cursor, and moves on unless at the last one. */
  private transpose(): null {
    const p = this.pos;
    if (p === 0 || p >= this.chars.length) return null;
    [this.chars[p - 1], this.chars[p]] = [this.chars[p]!, this.chars[p - 1]!];
    if (p !== this.chars.length - 1) this.pos++;
    this.refresh();
    return null;
  }

  /** Where the word before the cursor starts: separators are `sep` (by default anything not a letter or digit). */
  private wordStart(sep: RegExp = /[^\p{L}\p{N}_]/u): number {
    let i = this.pos;
    while (i > 0 && sep.test(this.chars[i - 1]!)) i--;
    while (i > 0 && !sep.test(this.chars[i - 1]!)) i--;
    return i;
  }

  private wordEnd(): number {
    const sep = /[^\p{L}\p{N}_]/u;
    let i = this.pos;
    while (i < this.chars.length && sep.test(this.chars[i]!)) i++;
    while (i < this.chars.length && !sep.test(this.chars[i]!)) i++;
    return i;
  }

  /** Up and Down: another history line, the edits made to the one left kept until the next prompt. */
  private browse(step: -1 | 1): null {
    const count = this.history.length;
    if (count === 0) return null;
    let next: number;
    if (this.historyIndex === null) {
      if (step === 1) return null;
      this.draft = this.line;
      next = count - 1;
    } else {
      this.edits.set(this.historyIndex, this.line);
      next = this.historyIndex + step;
      if (next < 0) return null;
    }
    if (next >= count) {
      this.historyIndex = null;
      this.setLine(this.draft);
    } else {
      this.historyIndex = next;
      this.setLine(this.edits.get(next) ?? this.history.at(next)!);
    }
    this.refresh();
    return null;
  }

  private setLine(text: string, pos?: number): void {
    this.chars = Array.from(text);
    this.pos = pos ?? this.chars.length;
  }

  private saved(): Saved {
    return { chars: [...this.chars], pos: this.pos };
  }

  private restore(s: Saved): void {
    this.chars = [...s.chars];
    this.pos = s.pos;
  }

  // ---- Tab ----

  private complete(afterTab: boolean): null {
    const assist = this.assist;
    if (assist === null) return null;
    const cursor = this.chars.slice(0, this.pos).join('').length;
    const offer: Completion = assist.complete(this.line, cursor);
    if (offer.kind === 'lines') {
      const lines = offer.lines.filter(isPlainText);
      if (lines.length === 0) return this.beep();
      this.mode = { kind: 'cycle', lines, index: 0, original: this.saved() };
      this.setLine(lines[0]!);
      this.refresh();
      return null;
    }
    const matches = offer.matches.filter((m) => isPlainText(m.text));
    if (matches.length === 0) return this.beep();
    const start = Array.from(this.line.slice(0, offer.start)).length;
    const typed = this.chars.slice(start, this.pos).join('');
    if (matches.length === 1) {
      const m = matches[0]!;
      this.replaceWord(start, m.text + (m.final ? ' ' : ''));
      return null;
    }
    const common = commonPrefix(matches.map((m) => m.text));
    if (common.length > typed.length && common.startsWith(typed)) {
      this.replaceWord(start, common);
      return null;
    }
    if (!afterTab) return this.beep();
    this.leaveLine('');
    this.out(choiceColumns(matches.map((m) => visibleControls(m.display)), this.cols) + '\r\n');
    this.settled(null);
    this.cursorRow = 0;
    this.refresh();
    return null;
  }

  private replaceWord(start: number, text: string): void {
    const add = Array.from(text);
    this.chars = this.chars.slice(0, start).concat(add, this.chars.slice(this.pos));
    this.pos = start + add.length;
    this.refresh();
  }

  /**
   * A key while Tab cycles through whole lines, as linenoise takes it: Tab
   * shows the next line (after the last, the line as typed, with a beep),
   * Escape goes back to the line as typed; any other key keeps the line
   * shown and then does what it does. Returns whether the key was used up.
   */
  private cycleKey(c: Cycling, key: Key): boolean {
    if (key.kind === 'tab') {
      c.index = (c.index + 1) % (c.lines.length + 1);
      if (c.index === c.lines.length) {
        this.restore(c.original);
        this.out(BELL);
      } else {
        this.setLine(c.lines[c.index]!);
      }
      this.refresh();
      return true;
    }
    this.mode = EDIT;
    if (key.kind === 'escape') {
      this.restore(c.original);
      this.refresh();
      return true;
    }
    return false;
  }

  // ---- Ctrl-R ----

  private startSearch(): null {
    this.mode = { kind: 'search', query: '', match: null, failed: false, original: this.saved() };
    this.refresh();
    return null;
  }

  /**
   * A key during a reverse search, as readline's reverse-i-search takes it:
   * typed text narrows the search, Backspace widens it, Ctrl-R finds an
   * older line (or, with nothing typed, searches again for the last text),
   * Escape and Ctrl-G give up and bring back the line as it was. Enter runs
   * the line found; any other key keeps it for editing and then does what
   * it does. Returns 'pass' for a key the editor must then handle.
   */
  private searchKey(s: Searching, key: Key): EditorEvent | null | 'pass' {
    switch (key.kind) {
      case 'text':
        s.query += key.text;
        this.findFrom(s, s.match?.index ?? this.history.length - 1);
        return null;
      case 'backspace':
        if (s.query === '') return null;
        s.query = Array.from(s.query).slice(0, -1).join('');
        if (s.query === '') {
          s.failed = false;
          this.refresh();
        } else {
          this.findFrom(s, this.history.length - 1);
        }
        return null;
      case 'escape':
        this.endSearch(s, true);
        return null;
      case 'ignored':
        return null;
      case 'ctrl':
        if (key.letter === 'r') {
          if (s.query === '') {
            if (this.lastSearch === '') return null;
            s.query = this.lastSearch;
            this.findFrom(s, this.history.length - 1);
          } else {
            this.findFrom(s, (s.match?.index ?? this.history.length) - 1);
          }
          return null;
        }
        if (key.letter === 'g') {
          this.endSearch(s, true);
          return null;
        }
        if (key.letter === 'l') {
          this.out('\x1b[H\x1b[2J');
          this.settled(null);
          this.redraw();
          return null;
        }
        this.endSearch(s, key.letter === 'c');
        return 'pass';
      default:
        this.endSearch(s, false);
        return 'pass';
    }
  }

  /** Looks for the query from history line `from` back; on failure the line found before stays, with a beep. */
  private findFrom(s: Searching, from: number): void {
    const found = this.history.searchBack(s.query, from);
    if (found === null) {
      s.failed = true;
      this.out(BELL);
    } else {
      s.failed = false;
      s.match = found;
      const line = this.history.at(found.index)!;
      this.setLine(line, Array.from(line.slice(0, found.at)).length);
    }
    this.refresh();
  }

  /** Back to editing: with the line found (browsing goes on from it), or the line as it was. */
  private endSearch(s: Searching, giveUp: boolean): void {
    this.mode = EDIT;
    if (s.query !== '') this.lastSearch = s.query;
    if (giveUp || s.match === null) {
      this.restore(s.original);
    } else {
      this.draft = s.original.chars.join('');
      this.historyIndex = s.match.index;
    }
    this.refresh();
  }

  // ---- drawing ----

  private beep(): null {
    this.out(BELL);
    return null;
  }

  /** The prompt as shown now: the program's, or the reverse search's. */
  private shownPrompt(): string {
    const m = this.mode;
    if (m.kind !== 'search') return this.prompt;
    return `${m.failed ? '(failed reverse-i-search)' : '(reverse-i-search)'}\`${m.query}': `;
  }

  private widthBefore(pos: number): number {
    let w = 0;
    for (let i = 0; i < pos; i++) w += charWidth(this.chars[i]!);
    return w;
  }

  /** Draws the line without its hint, puts the cursor after its end, and ends the row with `suffix`. */
  private leaveLine(suffix: string): void {
    const drawn = this.pos === this.chars.length && !this.hintShown;
    this.pos = this.chars.length;
    const total = textWidth(this.shownPrompt()) + this.widthBefore(this.pos);
    // Already on the screen as it must stay (no hint to take away, the
    // cursor at the end): drawing it again could not reach a prompt that
    // has scrolled above the screen.
    if (!drawn) this.refresh(false);
    // The refresh has already moved to a new row when the text filled the last one exactly.
    const atRowStart = total > 0 && total % this.cols === 0;
    this.out(suffix + (atRowStart && suffix === '' ? '' : '\r\n'));
    this.cursorRow = 0;
    this.settled(this.shownPrompt() + this.line + suffix + '\r\n');
  }

  /**
   * The grey hint for the line, cut to the room left on the prompt's row,
   * as linenoise shows it: none once the line reaches the row's end.
   */
  private hintText(lineEnd: number): string {
    if (this.assist === null || this.mode.kind === 'search' || lineEnd >= this.cols) return '';
    const hint = this.assist.hint(this.line);
    if (hint === null || hint === '') return '';
    let room = this.cols - lineEnd;
    let out = '';
    for (const ch of visibleControls(hint)) {
      const w = charWidth(ch);
      if (w > room) break;
      out += ch;
      room -= w;
    }
    return out;
  }

  /**
   * Rewrites prompt and line from the prompt's first row, then puts the
   * cursor at its column. xterm.js leaves the cursor on the last column
   * when text fills a row exactly; a new row is started by hand then, so
   * the arithmetic below holds. A hint never wraps: it is cut to the row.
   */
  private refresh(withHint = true): void {
    const cols = this.cols;
    const prompt = this.shownPrompt();
    const promptWidth = textWidth(prompt);
    let s = this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : '';
    s += '\r\x1b[J' + prompt + this.line;
    const total = promptWidth + this.widthBefore(this.chars.length);
    this.drawn = { length: this.chars.length, width: total };
    const hint = withHint ? this.hintText(total) : '';
    this.hintShown = hint !== '';
    if (hint !== '') s += HINT_ON + hint + HINT_OFF;
    else if (total > 0 && total % cols === 0) s += '\r\n';
    const endRow = Math.floor(total / cols);
    const target = promptWidth + this.widthBefore(this.pos);
    const row = Math.floor(target / cols);
    const col = target % cols;
    if (endRow > row) s += `\x1b[${endRow - row}A`;
    s += '\r' + (col > 0 ? `\x1b[${col}C` : '');
    this.cursorRow = row;
    this.out(s);
  }
}

/** The longest start the texts share. */
function commonPrefix(texts: readonly string[]): string {
  let prefix = texts[0] ?? '';
  for (const t of texts) {
    let i = 0;
    while (i < prefix.length && i < t.length && prefix[i] === t[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}
