import { charWidth, textWidth } from './char-width.js';
import type { Key } from './key-input.js';

/** What a key did that the terminal must act on. */
export type EditorEvent = { readonly kind: 'submit'; readonly line: string } | { readonly kind: 'eof' } | { readonly kind: 'interrupt' };

/** How many lines a terminal's history keeps, as linenoise (redis-cli's line editor) does. */
export const HISTORY_MAX_LINES = 100;

/**
 * The prompt's line editor, in the manner of linenoise and readline:
 * insertion anywhere, Backspace and Delete, the arrows, Home and End, a
 * history browsed with Up and Down, and the Emacs control keys (Ctrl-A,
 * E, B, F, K, U, W, L, P, N; Ctrl-C; Ctrl-D). It draws by rewriting the
 * prompt and the line from the prompt's first row, so a line longer than
 * the terminal is wide wraps and edits correctly.
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
  private promptWidth = 0;
  /** Rows from the prompt's first row down to the cursor, as last drawn. */
  private cursorRow = 0;
  private readonly history: string[] = [];
  /** The history entry shown while browsing, or null on the line being typed. */
  private historyIndex: number | null = null;
  /** The line being typed, kept while the history is browsed. */
  private draft = '';
  private active = false;

  constructor(
    private readonly out: (s: string) => void,
    private cols = 80,
  ) {}

  /** The text typed so far. */
  get line(): string {
    return this.chars.join('');
  }

  /** Whether a prompt waits for a line. */
  get editing(): boolean {
    return this.active;
  }

  /** Shows a prompt (display text, already safe for the terminal) and waits for a line. */
  start(prompt: string): void {
    this.prompt = prompt;
    this.promptWidth = textWidth(prompt);
    this.chars = [];
    this.pos = 0;
    this.cursorRow = 0;
    this.historyIndex = null;
    this.draft = '';
    this.active = true;
    this.refresh();
  }

  /** The terminal's new width: xterm.js has re-wrapped the rows, so only the cursor's row is recomputed. */
  setColumns(cols: number): void {
    if (cols < 1 || cols === this.cols) return;
    this.cols = cols;
    if (!this.active) return;
    this.cursorRow = Math.floor((this.promptWidth + this.widthBefore(this.pos)) / cols);
    this.refresh();
  }

  /** Adds a line to the history (not blank lines, nor the same line twice in a row). */
  addHistory(line: string): void {
    if (line.trim() === '' || this.history[this.history.length - 1] === line) return;
    this.history.push(line);
    if (this.history.length > HISTORY_MAX_LINES) this.history.shift();
  }

  /** The lines kept, oldest first. */
  historyLines(): readonly string[] {
    return this.history;
  }

  /** Acts on one key; returns what the terminal must do, if anything. */
  handle(key: Key): EditorEvent | null {
    if (!this.active) return null;
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
      case 'ctrl':
        return this.control(key.letter);
      case 'ignored':
        return null;
    }
  }

  /**
   * Leaves the line as it is drawn, the cursor after its end, and ends the
   * row with `suffix` (Ctrl-C's "^C"). The prompt is then inactive.
   */
  finish(suffix = ''): void {
    if (!this.active) return;
    this.active = false;
    this.pos = this.chars.length;
    const total = this.promptWidth + this.widthBefore(this.pos);
    this.refresh();
    // The refresh has already moved to a new row when the text filled the last one exactly.
    const atRowStart = total > 0 && total % this.cols === 0;
    this.out(suffix + (atRowStart && suffix === '' ? '' : '\r\n'));
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
      case 'p':
        return this.browse(-1);
      case 'n':
        return this.browse(1);
      case 'l':
        this.out('\x1b[H\x1b[2J');
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
    this.chars.splice(this.pos, 0, ...add);
    this.pos += add.length;
    this.refresh();
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

  private browse(step: -1 | 1): null {
    if (this.history.length === 0) return null;
    if (this.historyIndex === null) {
      if (step === 1) return null;
      this.draft = this.line;
      this.historyIndex = this.history.length;
    }
    const next = this.historyIndex + step;
    if (next < 0) return null;
    if (next >= this.history.length) {
      this.historyIndex = null;
      this.chars = Array.from(this.draft);
    } else {
      this.historyIndex = next;
      this.chars = Array.from(this.history[next]!);
    }
    this.pos = this.chars.length;
    this.refresh();
    return null;
  }

  private widthBefore(pos: number): number {
    let w = 0;
    for (let i = 0; i < pos; i++) w += charWidth(this.chars[i]!);
    return w;
  }

  /**
   * Rewrites prompt and line from the prompt's first row, then puts the
   * cursor at its column. xterm.js leaves the cursor on the last column
   * when text fills a row exactly; a new row is started by hand then, so
   * the arithmetic below holds.
   */
  private refresh(): void {
    const cols = this.cols;
    let s = this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : '';
    s += '\r\x1b[J' + this.prompt + this.line;
    const total = this.promptWidth + this.widthBefore(this.chars.length);
    if (total > 0 && total % cols === 0) s += '\r\n';
    const endRow = Math.floor(total / cols);
    const target = this.promptWidth + this.widthBefore(this.pos);
    const row = Math.floor(target / cols);
    const col = target % cols;
    if (endRow > row) s += `\x1b[${endRow - row}A`;
    s += '\r' + (col > 0 ? `\x1b[${col}C` : '');
    this.cursorRow = row;
    this.out(s);
  }
}
