import facts from '../server/data/commands-7.0.json' with { type: 'json' };
import type { CommandFacts, FactTree } from '../server/command-table.js';
import { docFacts } from '../commands/docs-data.js';
import { COMMAND_SUMMARIES } from '../commands/summaries.js';
import { asciiUpper } from '../resp/bytes.js';

/**
 * The terminal's `help`: `help <command>` and `help @<group>` list commands
 * with their arguments, when they appeared and their group, laid out as
 * redis-cli 7.0 does (src/redis-cli.c cliOutputHelp) from what COMMAND
 * DOCS says: the real server's facts, and our own summaries.
 */

export interface HelpEntry {
  /** "CONFIG GET" */
  full: string;
  words: string[];
  params: string;
  summary: string;
  since: string | undefined;
  group: string;
}

const VERSION = '7.0.15';

let entries: HelpEntry[] | null = null;

/**
 * Every command and subcommand as redis-cli 7.0 builds its help table from
 * COMMAND DOCS (cliInitHelp), sorted by full name: what `help`, Tab
 * completion and the grey argument hints read.
 */
export function helpEntries(): readonly HelpEntry[] {
  return allEntries();
}

function allEntries(): HelpEntry[] {
  if (entries !== null) return entries;
  const out: HelpEntry[] = [];
  const add = (f: CommandFacts): void => {
    const words = f.name.toUpperCase().split('|');
    const d = docFacts(f);
    out.push({
      full: words.join(' '),
      words,
      params: d.arguments ? joinArguments(d.arguments as FactTree[], ' ') : '',
      summary: COMMAND_SUMMARIES[f.name] ?? '',
      since: d.since,
      group: d.group,
    });
  };
  for (const f of (facts as unknown as { commands: CommandFacts[] }).commands) {
    add(f);
    for (const sub of f.subcommands ?? []) add(sub);
  }
  out.sort((a, b) => (a.full < b.full ? -1 : a.full > b.full ? 1 : 0));
  entries = out;
  return out;
}

/** A fact map ({m: [k, v, ...]}) as a lookup. */
function field(arg: FactTree, key: string): FactTree | undefined {
  const m = (arg as { m?: FactTree[] }).m;
  if (!m) return undefined;
  for (let i = 0; i < m.length; i += 2) if (m[i] === key) return m[i + 1];
  return undefined;
}

function orEmpty(s: string): string {
  return s === '' ? '""' : s;
}

function joinArguments(args: FactTree[], separator: string): string {
  return args.map(renderArgument).join(separator);
}

/** One argument as redis-cli writes it: "[EX seconds|PX milliseconds]", "key [key ...]". */
function renderArgument(arg: FactTree): string {
  const name = String(field(arg, 'name') ?? '');
  const type = String(field(arg, 'type') ?? '');
  const tokenField = field(arg, 'token');
  let token = tokenField === undefined ? '' : orEmpty(String(tokenField));
  const flags = ((field(arg, 'flags') as { set?: Array<{ s: string }> } | undefined)?.set ?? []).map((f) => f.s);
  const nested = (field(arg, 'arguments') as FactTree[] | undefined) ?? [];
  let repeat = '';
  if (['key', 'string', 'integer', 'double', 'pattern', 'unix-time', 'token'].includes(type)) repeat = orEmpty(name);
  else if (type === 'oneof') repeat = joinArguments(nested, '|');
  else if (type === 'block') repeat = joinArguments(nested, ' ');
  if (token !== '' && type !== 'pure-token') token += ' ';
  const optional = flags.includes('optional');
  let out = (optional ? '[' : '') + token + repeat;
  if (flags.includes('multiple')) out += ' [' + (flags.includes('multiple_token') ? token : '') + repeat + ' ...]';
  return out + (optional ? ']' : '');
}

function entryText(e: HelpEntry, withGroup: boolean): string {
  let out = `\r\n  \x1b[1m${e.full}\x1b[0m \x1b[90m${e.params}\x1b[0m\r\n`;
  out += `  \x1b[33msummary:\x1b[0m ${e.summary}\r\n`;
  if (e.since !== undefined) out += `  \x1b[33msince:\x1b[0m ${e.since}\r\n`;
  if (withGroup) out += `  \x1b[33mgroup:\x1b[0m ${e.group}\r\n`;
  return out;
}


/** The text `help` prints for the words after it. */
export function helpText(words: readonly string[]): string {
  if (words.length === 0) {
    return (
      // What redis-cli 7.0 prints (redis-cli.c, cliOutputGenericHelp): every line fits a narrow terminal.
      `redis-cli ${VERSION}\n` +
      'To get help about Redis commands type:\n' +
      '      "help @<group>" to get a list of commands in <group>\n' +
      '      "help <command>" for help on <command>\n' +
      '      "help <tab>" to get a list of possible help topics\n' +
      '      "quit" to exit\n' +
      '\n' +
      'To set redis-cli preferences:\n' +
      '      ":set hints" enable online hints\n' +
      '      ":set nohints" disable online hints\n' +
      'Set your preferences in ~/.redisclirc\n'
    );
  }
  let out = '';
  const first = words[0]!;
  if (first[0] === '@') {
    const group = first.slice(1).toLowerCase();
    for (const e of allEntries()) if (e.group === group) out += entryText(e, false);
  } else {
    const asked = words.map(asciiUpper);
    for (const e of allEntries()) {
      if (asked.length <= e.words.length && asked.every((w, i) => w === e.words[i])) out += entryText(e, true);
    }
  }
  return out + '\r\n';
}

/** Command names for completion: "GET", "CONFIG GET", and "@group" after "help ". */
export function completionWords(): { commands: string[]; groups: string[] } {
  const all = allEntries();
  return { commands: all.map((e) => e.full), groups: [...new Set(all.map((e) => '@' + e.group))].sort() };
}
