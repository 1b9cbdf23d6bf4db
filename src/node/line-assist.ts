import { redisCliAssistData } from '../../emulator/redis-cli/assist-data.js';
import { commandCompletions, commandHint } from '../../emulator/redis-cli/index.js';

/**
 * redis-cli's Tab completion and grey hints for `npm run cli`, on Node's
 * readline: the same choices and hint text as the web terminal and the
 * real redis-cli 7.0.
 */

/** readline's completer: the whole lines that complete what is typed (readline offers what they share, and lists them). */
export function redisCliCompleter(line: string): [string[], string] {
  return [commandCompletions(line, redisCliAssistData().completion), line];
}

/** The grey hint for a line, as redis-cli shows it, or null. */
export function redisCliHint(line: string): string | null {
  return commandHint(line, redisCliAssistData().docs);
}

export interface PromptLine {
  readonly line: string;
  /** The cursor, as an index into `line`. */
  readonly cursor: number;
  /** Columns the prompt takes. */
  readonly promptWidth: number;
  /** The terminal's width. */
  readonly cols: number;
}

/**
 * What to write after readline has drawn a key's effect so the hint shows
 * after the line, cut at the row's end, the cursor left where it was: the
 * old hint is cleared in any case. Nothing when the line does not fit on
 * the prompt's row (readline then manages several rows; a hint is not
 * worth disturbing them), as linenoise shows no hint there either.
 */
export function hintPainting(p: PromptLine, hint: string | null): string {
  const end = p.promptWidth + p.line.length;
  if (end >= p.cols) return '';
  const toEnd = p.line.length - p.cursor;
  let s = '\x1b7' + (toEnd > 0 ? `\x1b[${toEnd}C` : '') + '\x1b[K';
  const shown = (hint ?? '').slice(0, p.cols - end);
  if (shown !== '') s += '\x1b[0;90;49m' + shown + '\x1b[0m';
  return s + '\x1b8';
}

/** Before Enter is handled: the hint goes, so the line stays on the screen as typed. */
export function hintClearing(p: PromptLine): string {
  return hintPainting(p, null);
}
