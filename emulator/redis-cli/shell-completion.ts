/** One thing Tab may put in place of the word being typed. */
export interface WordMatch {
  /** The word as it goes into the line, escaped for the shell ("/var/lib/redis/"). */
  readonly text: string;
  /** How a list of choices shows it ("redis/"). */
  readonly display: string;
  /** Whether the word is complete when it is the only choice, so a blank follows (not after a directory). */
  readonly final: boolean;
}

/** The choices for the word that starts at `start` and ends at the cursor. */
export interface WordCompletion {
  readonly start: number;
  readonly matches: readonly WordMatch[];
}

/** An entry of a directory, for completion. */
export interface DirEntry {
  readonly name: string;
  readonly directory: boolean;
}

/** What completion needs to know of the shell and its machine. */
export interface ShellView {
  readonly cwd: string;
  readonly home: string;
  /** The commands the shell runs, by name. */
  readonly programs: readonly string[];
  /** The entries of a directory (an absolute path, maybe with "." and ".."), or null when it cannot be read. */
  list(path: string): readonly DirEntry[] | null;
  /** The words a program takes as its first argument (the verbs of `sim`), if it has a fixed set. */
  verbs?(program: string): readonly string[] | null;
}

/** Characters that end a word, unless a backslash escapes them. */
const BREAKS = new Set([' ', '\t', ';', '|', '&', '<', '>']);
/** Characters a file name's completion escapes with a backslash. */
const SPECIAL = /[\s"'\\$`;|&<>()*?[\]{}!#~]/g;

/**
 * What Tab completes in a shell line, as bash does by default: the name of
 * a command in a command's place, the verbs of a command that has them
 * (`sim power-loss`), and elsewhere the name of a file or directory on the
 * machine (only directories after `cd`). Hidden files only when the word
 * starts with a dot.
 *
 *   shellCompletion('cat /var/lib/redis/d', 20, view);
 *   // { start: 4, matches: [{ text: '/var/lib/redis/dump.rdb', display: 'dump.rdb', final: true }] }
 */
export function shellCompletion(line: string, cursor: number, view: ShellView): WordCompletion {
  const before = line.slice(0, cursor);
  let start = before.length;
  while (start > 0 && !(BREAKS.has(before[start - 1]!) && !escaped(before, start - 1))) start--;
  const raw = before.slice(start);
  if (/["']/.test(raw)) return { start, matches: [] };
  const word = raw.replace(/\\(.)/g, '$1');
  const words = wordsOfCommand(before.slice(0, start));
  if (words.length === 0 && !word.includes('/')) {
    const matches = view.programs.filter((p) => p.startsWith(word)).sort();
    return { start, matches: matches.map((p) => ({ text: p, display: p, final: true })) };
  }
  if (words.length === 1) {
    const verbs = view.verbs?.(words[0]!) ?? null;
    if (verbs !== null) return { start, matches: verbs.filter((v) => v.startsWith(word)).map((v) => ({ text: v, display: v, final: true })) };
  }
  return { start, matches: pathMatches(raw, word, view, words[0] === 'cd') };
}

/** Files and directories whose names start with what follows the word's last slash. */
function pathMatches(raw: string, word: string, view: ShellView, onlyDirectories: boolean): WordMatch[] {
  const slash = word.lastIndexOf('/');
  const dirPart = word.slice(0, slash + 1);
  const base = word.slice(slash + 1);
  const rawSlash = raw.lastIndexOf('/');
  const rawDirPart = raw.slice(0, rawSlash + 1);
  let dir: string;
  if (dirPart.startsWith('/')) dir = dirPart;
  else if (dirPart === '~/' || dirPart.startsWith('~/')) dir = view.home + dirPart.slice(1);
  else dir = `${view.cwd}/${dirPart}`;
  const entries = view.list(dir);
  if (entries === null) return [];
  return entries
    .filter((e) => e.name !== '.' && e.name !== '..' && e.name.startsWith(base) && (base.startsWith('.') || !e.name.startsWith('.')))
    .filter((e) => e.directory || !onlyDirectories)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => ({
      text: rawDirPart + e.name.replace(SPECIAL, '\\$&') + (e.directory ? '/' : ''),
      display: e.name + (e.directory ? '/' : ''),
      final: !e.directory,
    }));
}

/** The words of the command the cursor is in, before the word being completed. */
function wordsOfCommand(text: string): string[] {
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ((c === ';' || c === '|' || c === '&') && !escaped(text, i)) from = i + 1;
  }
  return text
    .slice(from)
    .split(/(?<!\\)\s+/)
    .filter((w) => w !== '');
}

/** Whether the character at `i` follows an odd number of backslashes. */
function escaped(text: string, i: number): boolean {
  let n = 0;
  for (let j = i - 1; j >= 0 && text[j] === '\\'; j--) n++;
  return n % 2 === 1;
}
