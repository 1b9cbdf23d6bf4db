import { asciiLower } from '../resp/bytes.js';
import { splitArgs } from '../resp/split-args.js';
import { isCSpace } from '../numbers/c-string.js';
import { cString } from '../numbers/c-string.js';

/** One command's words ("CONFIG", "GET") and its arguments as `help` shows them. */
export interface CommandDoc {
  readonly words: readonly string[];
  readonly params: string;
}

/**
 * The grey text redis-cli 7.0 shows after the line being typed
 * (src/redis-cli.c hintsCallback), or null when it shows none.
 *
 * The line is split as redis-cli splits it; the command is the entry whose
 * words match the most leading arguments (so "CONFIG GET" wins over
 * "CONFIG"). Its arguments lose one space-separated word per argument typed
 * after the command, but never from the first optional "[": from there on
 * redis-cli cannot tell which options were given, so it shows them all. A
 * line that does not end in a blank gets a space first, so the hint starts
 * one column after the word being typed.
 *
 *   commandHint('SET k', docs);   // ' value [NX|XX] [GET] [EX seconds|...|KEEPTTL]'
 *   commandHint('GET k ', docs);  // ''
 *   commandHint('FOO ', docs);    // null
 */
export function commandHint(line: string, docs: readonly CommandDoc[]): string | null {
  const argv = splitArgs(line);
  if (argv === null || argv.length === 0) return null;
  const typed = argv.map(lowerWord);
  let best: CommandDoc | null = null;
  for (const doc of docs) {
    const n = doc.words.length;
    if (n > typed.length || n <= (best?.words.length ?? 0)) continue;
    if (doc.words.every((w, i) => asciiLower(w) === typed[i])) best = doc;
  }
  if (best === null) return null;
  let hint = best.params;
  let toRemove = argv.length - best.words.length;
  let at = 0;
  while (toRemove > 0 && at < hint.length) {
    const c = hint[at]!;
    if (c === '[') break;
    if (c === ' ') toRemove--;
    at++;
  }
  hint = hint.slice(at);
  const endsInBlank = line.length > 0 && isCSpace(line.charCodeAt(line.length - 1));
  return endsInBlank ? hint : ' ' + hint;
}

/** How strcasecmp sees an argument: up to its first NUL, ASCII case folded. */
function lowerWord(s: string): string {
  return asciiLower(cString(s));
}

