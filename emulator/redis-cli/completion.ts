import { asciiLower, asciiUpper } from '../resp/bytes.js';
import { splitArgs } from '../resp/split-args.js';
import { isCSpace } from '../numbers/c-string.js';

/** A configuration parameter as Tab offers it after CONFIG GET or CONFIG SET. */
export interface ConfigName {
  readonly name: string;
  /** The values CONFIG SET takes, when they are a fixed set ("yes", "no"). */
  readonly values?: readonly string[];
}

/** What redis-cli completes from: its help table, plus the server's parameters. */
export interface CompletionTable {
  /** Full command names ("GET", "CONFIG GET"), upper case, sorted as redis-cli sorts its help table. */
  readonly commands: readonly string[];
  /** Help topics for groups ("@string"), sorted. */
  readonly groups: readonly string[];
  /** CONFIG GET's parameter names, sorted. */
  readonly config: readonly ConfigName[];
}

/**
 * What Tab offers for a redis-cli line: whole lines, in the order repeated
 * Tabs cycle through them. As redis-cli 7.0 does (src/redis-cli.c
 * completionCallback), the line so far is matched, case aside, against the
 * start of every command name ("config g" offers "CONFIG GET"), and after
 * "help " against group topics too; the name replaces what was typed, in
 * redis-cli's upper case.
 *
 * Where redis-cli offers nothing, a parameter name is completed after
 * CONFIG GET and CONFIG SET, and the value of a yes/no or enum parameter
 * after CONFIG SET's name, in the case the word was typed in.
 *
 *   commandCompletions('config g', table);              // ['CONFIG GET']
 *   commandCompletions('CONFIG SET appendf', table);    // ['CONFIG SET appendfilename', 'CONFIG SET appendfsync']
 */
export function commandCompletions(line: string, table: CompletionTable): string[] {
  const help = /^help /i.test(line);
  let start = 0;
  if (help) {
    start = 5;
    while (start < line.length && isCSpace(line.charCodeAt(start))) start++;
  }
  const head = line.slice(0, start);
  const typed = asciiLower(line.slice(start));
  const out: string[] = [];
  if (help) for (const g of table.groups) if (asciiLower(g).startsWith(typed)) out.push(head + g);
  for (const c of table.commands) if (asciiLower(c).startsWith(typed)) out.push(head + c);
  return out.length !== 0 ? out : configCompletions(line, table.config);
}

/** CONFIG GET <name>..., CONFIG SET <name> <value>...: the word after the last blank. */
function configCompletions(line: string, config: readonly ConfigName[]): string[] {
  let cut = line.length;
  while (cut > 0 && !isCSpace(line.charCodeAt(cut - 1))) cut--;
  const head = line.slice(0, cut);
  const word = line.slice(cut);
  if (/["']/.test(word)) return [];
  const argv = splitArgs(head);
  if (argv === null || argv.length < 2 || asciiLower(argv[0]!) !== 'config') return [];
  const sub = asciiLower(argv[1]!);
  const position = argv.length;
  let words: string[];
  if (sub === 'get') {
    words = config.map((c) => c.name);
  } else if (sub === 'set' && position % 2 === 0) {
    words = config.map((c) => c.name);
  } else if (sub === 'set') {
    const name = asciiLower(argv[position - 1]!);
    words = [...(config.find((c) => c.name === name)?.values ?? [])];
  } else {
    return [];
  }
  const prefix = asciiLower(word);
  // A word typed in capitals is completed in capitals.
  const upper = /[A-Z]/.test(word) && word === asciiUpper(word);
  return words.filter((w) => w.startsWith(prefix)).map((w) => head + (upper ? asciiUpper(w) : w));
}

