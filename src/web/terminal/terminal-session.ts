import { utf8ToBytes } from '../../../emulator/resp/index.js';
import { parseKeys, type Key } from './key-input.js';
import { LineEditor } from './line-editor.js';
import { historyRulesFor } from './line-history.js';
import type { ProgramWrite, TerminalProgram } from './programs.js';
import { isClearScreen, styledText, terminalText, visibleControls } from './sanitize.js';

/** The screen cleared, scrollback too, as `clear` does. */
const CLEAR = '\x1b[H\x1b[2J\x1b[3J';

/** Output kept for a new view of the tab: about the scrollback xterm.js keeps. */
const TRANSCRIPT_MAX_CHARS = 1 << 20;

type State = 'starting' | 'prompt' | 'running' | 'ended';

/** What a terminal writes to the screen: xterm.js's write, or a test's buffer. */
export type TerminalSink = (text: string) => void;

/**
 * One terminal tab without its screen: a program, the line editor in front
 * of it, and the type-ahead. It outlives the xterm.js view that shows it
 * (a hidden tab keeps running, and a new view replays what was shown).
 *
 * Keys typed while a line runs wait and are edited at the next prompt, the
 * way a real terminal buffers type-ahead, so a pasted block of lines runs
 * one line after the other. Ctrl-C goes to the running program at once.
 * When the program ends (quit, exit, Ctrl-D, or Ctrl-C killing redis-cli),
 * Enter starts it again; the history is kept.
 */
export class TerminalSession {
  private program: TerminalProgram | null = null;
  private readonly editor: LineEditor;
  private state: State = 'starting';
  private pending = new KeyQueue();
  private sink: TerminalSink | null = null;
  /** What was shown, newest last, so a new view of the tab starts where the old one was. */
  private transcript: string[] = [];
  private transcriptChars = 0;
  private endsWithNewline = true;
  /** Characters ever shown, and that count when the prompt now shown began: a saved screen ends there. */
  private shownChars = 0;
  private promptAt = 0;
  /** That count when what the editor drew was last final: its redraws since then give way to their result (settle). */
  private settledAt = 0;
  /** Bumped when the program is replaced or dropped, so late results of the old one are ignored. */
  private generation = 0;
  private cols = 80;
  private readonly historyListeners = new Set<(lines: readonly string[]) => void>();
  /** The loading of completion and hint data last waited for, so the line is drawn again once when it arrives. */
  private assistLoading: Promise<void> | null = null;

  constructor(
    readonly id: string,
    readonly title: string,
    private readonly makeProgram: (write: ProgramWrite, columns: number) => TerminalProgram,
  ) {
    this.editor = new LineEditor(
      (s) => this.display(s),
      this.cols,
      (finalText) => this.settle(finalText),
    );
  }

  /** Starts the program; its first prompt follows. */
  start(): void {
    void this.launch();
  }

  /**
   * Starts a terminal saved earlier (a reload, a rewind): the screen as it
   * was, then the program (which the factory makes taking up its saved
   * state) and its prompt, or, if it had ended, the offer to start it again.
   */
  resume(screen: string, ended: boolean): void {
    this.transcript = screen === '' ? [] : [screen];
    this.transcriptChars = screen.length;
    this.shownChars = this.promptAt = this.settledAt = screen.length;
    this.endsWithNewline = screen === '' || screen.endsWith('\n') || screen.endsWith('\r');
    if (ended) this.state = 'ended';
    else void this.launch();
  }

  /**
   * What to save of the screen: what was shown, without the prompt and
   * the line being edited when the terminal waits at its prompt (resume()
   * draws them again), and whether the program has ended. With
   * `beforeRunningLine`, a line that is running is left out too, with its
   * prompt and output so far: the screen as it was before it was typed.
   */
  screen(opts: { beforeRunningLine?: boolean } = {}): { text: string; ended: boolean } {
    const all = this.transcript.join('');
    this.transcript = all === '' ? [] : [all];
    const cut = this.state === 'prompt' || (this.state === 'running' && opts.beforeRunningLine === true);
    if (!cut) return { text: all, ended: this.state === 'ended' };
    return { text: all.slice(0, Math.max(0, all.length - (this.shownChars - this.promptAt))), ended: false };
  }

  /** Shows the terminal on a screen: what was shown so far is drawn first. */
  attach(sink: TerminalSink): void {
    this.sink = sink;
    const shown = this.transcript.join('');
    this.transcript = shown === '' ? [] : [shown];
    if (shown !== '') sink(shown);
  }

  detach(sink: TerminalSink): void {
    if (this.sink === sink) this.sink = null;
  }

  /** The screen's width in columns. */
  resize(cols: number): void {
    this.cols = cols;
    this.editor.setColumns(cols);
  }

  /** What was typed or pasted, as xterm.js reports it. */
  input(data: string): void {
    // A restored program may be waiting for a reply before its first prompt: Ctrl-C reaches it too.
    if ((this.state === 'running' || this.state === 'starting') && data.includes('\x03')) {
      this.pending.clear();
      this.interrupt();
      return;
    }
    this.pending.push(parseKeys(data));
    this.drain();
  }

  /** Whether its program is running a line (a MONITOR or SUBSCRIBE stays there until Ctrl-C). */
  get running(): boolean {
    return this.state === 'running';
  }

  /** Runs a line as if typed and followed by Enter. */
  sendLine(line: string): void {
    this.input(line.replace(/[\r\n]+/g, ' ') + '\r');
  }

  /** The lines of the history, oldest first (a copy). */
  history(): string[] {
    return [...this.editor.historyLines()];
  }

  /** Puts back a saved history (oldest first); listeners are not told, the lines being theirs. */
  setHistory(lines: readonly string[]): void {
    this.editor.setHistory(lines);
  }

  /**
   * Calls `listener` with the whole history each time a line is added to
   * it (a line run that the program keeps). Returns the unsubscribe.
   *
   *   const off = session.onHistoryChange((lines) => save(session.id, lines));
   */
  onHistoryChange(listener: (lines: readonly string[]) => void): () => void {
    this.historyListeners.add(listener);
    return () => this.historyListeners.delete(listener);
  }

  /**
   * Whether Tab is for the terminal now (there is typed text to complete,
   * or a completion or search under way); otherwise Tab moves the focus on.
   */
  wantsTab(): boolean {
    return this.pending.size !== 0 || (this.state === 'prompt' && this.editor.wantsTab);
  }

  /** Closes the tab: the program ends without a word. */
  dispose(): void {
    this.generation++;
    this.program?.close();
    this.program = null;
    this.state = 'ended';
    this.sink = null;
  }

  private async launch(): Promise<void> {
    const gen = ++this.generation;
    this.state = 'starting';
    const program = this.makeProgram((bytes, styled) => {
      if (gen === this.generation) this.programOutput(bytes, styled === true);
    }, this.cols);
    this.program = program;
    this.editor.setHistoryRules(historyRulesFor(program.name));
    try {
      await program.start();
    } catch (e) {
      this.failure(e);
    }
    if (gen !== this.generation) return;
    this.showPrompt();
  }

  private drain(): void {
    while (this.pending.size !== 0) {
      if (this.state === 'ended') {
        const key = this.pending.shift();
        if (key.kind === 'enter') {
          void this.launch();
          return;
        }
        continue;
      }
      if (this.state !== 'prompt') return;
      const event = this.editor.handle(this.pending.shift());
      if (event === null) continue;
      if (event.kind === 'submit') void this.run(event.line);
      else if (event.kind === 'eof') void this.endOfInput();
      else {
        this.editor.finish('^C');
        this.showPrompt();
      }
    }
  }

  private async run(line: string): Promise<void> {
    const program = this.program!;
    const gen = this.generation;
    this.state = 'running';
    let result: { history: boolean; exit?: number };
    try {
      result = await program.runLine(utf8ToBytes(line));
    } catch (e) {
      this.failure(e);
      result = { history: true };
    }
    if (gen !== this.generation) return;
    if (result.history && this.editor.addHistory(line)) {
      const lines = this.editor.historyLines();
      for (const l of this.historyListeners) l(lines);
    }
    if (result.exit !== undefined) this.ended(program.name);
    else this.showPrompt();
  }

  private async endOfInput(): Promise<void> {
    const program = this.program!;
    const gen = this.generation;
    this.editor.finish();
    this.state = 'running';
    const result = await program.endOfInput();
    if (gen !== this.generation) return;
    if (result.exit !== undefined) this.ended(program.name);
    else this.showPrompt();
  }

  private interrupt(): void {
    const program = this.program;
    if (program === null) return;
    if (program.interrupt() === 'exit') this.ended(program.name);
  }

  private showPrompt(): void {
    // Like zsh and fish, start the prompt on a line of its own when output ended mid-line.
    if (!this.endsWithNewline) this.display('\r\n');
    this.state = 'prompt';
    this.useAssist();
    this.promptAt = this.settledAt = this.shownChars;
    this.editor.start(terminalText(this.program!.prompt));
    this.drain();
  }

  /** The program's completion and hints for this prompt; once their data arrives, the line shows its hint. */
  private useAssist(): void {
    const assist = this.program?.assist?.() ?? null;
    this.editor.setAssist(assist);
    const loading = assist?.ready;
    if (loading === undefined || loading === this.assistLoading) return;
    this.assistLoading = loading;
    const gen = this.generation;
    void loading.then(() => {
      if (gen === this.generation && this.state === 'prompt') this.editor.update();
    });
  }

  private ended(name: string): void {
    this.generation++;
    this.program?.close();
    this.program = null;
    this.state = 'ended';
    if (!this.endsWithNewline) this.display('\r\n');
    this.display(`\x1b[2m[${name} has ended: press Enter to start it again]\x1b[22m\r\n`);
    this.drain();
  }

  private failure(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.display(`${this.endsWithNewline ? '' : '\r\n'}terminal: internal error: ${visibleControls(message)}\r\n`);
  }

  /** A program's bytes: made safe, except a whole clear-screen request, which is honoured. */
  private programOutput(bytes: string, styled = false): void {
    if (bytes === '') return;
    // Output that comes while the prompt waits (nothing does yet, but a
    // program may print on its own) goes above the prompt, which follows it.
    const atPrompt = this.state === 'prompt';
    if (atPrompt) this.editor.hide();
    if (isClearScreen(bytes)) this.display(CLEAR);
    else this.display(styled ? styledText(bytes) : terminalText(bytes));
    if (atPrompt) {
      if (!this.endsWithNewline) this.display('\r\n');
      this.promptAt = this.settledAt = this.shownChars;
      this.editor.show();
    }
  }

  private display(text: string): void {
    if (text === '') return;
    // Whether the cursor is now at the start of a row.
    this.endsWithNewline = text.endsWith('\n') || text.endsWith('\r') || text === CLEAR;
    this.transcript.push(text);
    this.transcriptChars += text.length;
    this.shownChars += text.length;
    if (this.transcriptChars > TRANSCRIPT_MAX_CHARS) this.trimTranscript();
    this.sink?.(text);
  }

  /**
   * What the editor drew since the prompt began is final. With the text
   * that stays, the redraws made while the line was edited (each sized for
   * this screen's width) give way to it in the transcript, so the screen
   * saved and shown again, at any width, holds each line once; the screen
   * shown now is not touched, it shows that text already.
   */
  private settle(finalText: string | null): void {
    if (finalText !== null) {
      let drop = this.shownChars - this.settledAt;
      while (drop > 0 && this.transcript.length > 0) {
        const last = this.transcript[this.transcript.length - 1]!;
        if (last.length <= drop) {
          this.transcript.pop();
          drop -= last.length;
          this.transcriptChars -= last.length;
        } else {
          this.transcript[this.transcript.length - 1] = last.slice(0, last.length - drop);
          this.transcriptChars -= drop;
          drop = 0;
        }
      }
      this.transcript.push(finalText);
      this.transcriptChars += finalText.length;
      this.shownChars = this.settledAt + finalText.length;
    }
    this.settledAt = this.shownChars;
  }

  /** Drops the oldest output, cutting only at a line end so no escape sequence is split. */
  private trimTranscript(): void {
    const all = this.transcript.join('');
    const cut = all.indexOf('\n', all.length - TRANSCRIPT_MAX_CHARS / 2);
    const kept = cut < 0 ? '' : all.slice(cut + 1);
    this.transcript = [kept];
    this.transcriptChars = kept.length;
  }
}

/**
 * Keys typed ahead, oldest first. A paste can be hundreds of thousands of
 * keys: they are taken from the front by moving an index, not by shifting
 * the array each time, and added one by one, not as the arguments of one call.
 */
class KeyQueue {
  private keys: Key[] = [];
  private head = 0;

  get size(): number {
    return this.keys.length - this.head;
  }

  push(keys: readonly Key[]): void {
    for (const k of keys) this.keys.push(k);
  }

  /** The oldest key (the queue must not be empty). */
  shift(): Key {
    const k = this.keys[this.head++]!;
    if (this.head === this.keys.length) this.clear();
    else if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.head = 0;
    }
    return k;
  }

  clear(): void {
    this.keys = [];
    this.head = 0;
  }
}
