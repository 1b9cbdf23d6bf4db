import { globMatch } from '../keyspace/glob.js';
import { asciiLower } from '../resp/bytes.js';
import { MapReply, SetReply, StatusReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { opt } from './args.js';
import { helpReply } from './command-help.js';
import { commandHasKeys, commandKeys, orderedKeyFlags } from './command-keys.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import type { CommandDef, CommandTable, FactTree, Handler } from '../server/command-table.js';
import { cString } from '../numbers/c-string.js';

/**
 * COMMAND and its subcommands (src/server.c): the command table as the
 * server describes it. The facts (arity, flags, key specs, argument
 * structure) come from the real server. Only the commands this server
 * implements exist. COMMAND DOCS is in command-docs.ts.
 */

/** Converts a stored fact tree back into the reply it was recorded from. */
export function factReply(t: FactTree): Reply {
  if (t === null || typeof t === 'string' || typeof t === 'number') return t;
  if (Array.isArray(t)) return t.map(factReply);
  if ('s' in t) return new StatusReply(t.s);
  if ('m' in t) return new MapReply(t.m.map(factReply));
  return new SetReply(t.set.map(factReply));
}

const infoCache = new WeakMap<CommandDef, Reply>();

/** One command's COMMAND INFO entry: ten elements, the last its subcommands. */
function commandInfo(cmd: CommandDef): Reply {
  let r = infoCache.get(cmd);
  if (r) return r;
  const subs: Reply = cmd.subcommands ? [...cmd.subcommands.values()].map(commandInfo) : new SetReply([]);
  r = [...cmd.facts.info.map(factReply), subs];
  infoCache.set(cmd, r);
  return r;
}

/**
 * lookupCommandBySds: "name" or "container|sub", any case; a subcommand
 * only through its container, one level deep.
 */
export function lookupByFullName(table: CommandTable, name: string): CommandDef | undefined {
  if (name.length === 0) return undefined;
  const parts = name.split('|');
  if (parts.length > 2) return undefined;
  const base = table.get(parts[0]!);
  if (parts.length === 1) return base;
  return base?.subcommands?.get(asciiLower(parts[1]!));
}

/** lookupCommand for GETKEYS: the container alone, or its subcommand when one is given. */
function lookupFromArgs(table: CommandTable, args: readonly string[]): CommandDef | undefined {
  const base = table.get(args[0]!);
  if (args.length === 1 || !base?.subcommands) return base;
  return base.subcommands.get(asciiLower(args[1]!));
}

function command(c: Client): Reply {
  return [...c.server.commands.commands.values()].map(commandInfo);
}

function commandCount(c: Client): Reply {
  return c.server.commands.count;
}

function commandInfoHandler(c: Client, argv: string[]): Reply {
  if (argv.length === 2) return command(c);
  const out: Reply[] = [];
  for (let i = 2; i < argv.length; i++) {
    const cmd = lookupByFullName(c.server.commands, argv[i]!);
    out.push(cmd ? commandInfo(cmd) : null);
  }
  return out;
}

/** The ACL categories Redis knows, for FILTERBY ACLCAT. */
const ACL_CATEGORIES = new Set([
  'keyspace', 'read', 'write', 'set', 'sortedset', 'list', 'hash', 'string', 'bitmap', 'hyperloglog', 'geo', 'stream',
  'pubsub', 'admin', 'fast', 'slow', 'blocking', 'dangerous', 'connection', 'transaction', 'scripting',
]);

function aclCategories(cmd: CommandDef): string[] {
  const t = cmd.facts.info[6];
  if (t && typeof t === 'object' && 'set' in t) return t.set.map((x) => (x as { s: string }).s);
  return [];
}

function commandList(c: Client, argv: string[]): Reply {
  let filter: ((cmd: CommandDef) => boolean) | null = null;
  for (let i = 2; i < argv.length; i++) {
    const moreArgs = argv.length - 1 - i;
    if (opt(argv[i]!) !== 'filterby' || moreArgs !== 2) return SYNTAX_ERROR;
    const kind = opt(argv[i + 1]!);
    const arg = argv[i + 2]!;
    if (kind === 'module') {
      // No modules are loaded, so no command belongs to one.
      filter = () => false;
    } else if (kind === 'aclcat') {
      const cat = opt(arg);
      filter = ACL_CATEGORIES.has(cat) ? (cmd) => aclCategories(cmd).includes('@' + cat) : () => false;
    } else if (kind === 'pattern') {
      const pattern = cString(arg);
      filter = (cmd) => globMatch(pattern, cmd.name, true);
    } else {
      return SYNTAX_ERROR;
    }
    i += 2;
  }
  const out: Reply[] = [];
  for (const cmd of c.server.commands.all()) if (!filter || filter(cmd)) out.push(cmd.name);
  return out;
}

function getKeys(c: Client, argv: string[], withFlags: boolean): Reply {
  const args = argv.slice(2);
  const cmd = lookupFromArgs(c.server.commands, args);
  if (!cmd) return errorReply('Invalid command specified');
  if (!commandHasKeys(cmd)) return errorReply('The command has no key arguments');
  if ((cmd.arity > 0 && cmd.arity !== args.length) || args.length < -cmd.arity) {
    return errorReply('Invalid number of arguments specified for command');
  }
  const keys = commandKeys(cmd, args);
  if (keys.length === 0) {
    return cmd.flagNames.includes('no_mandatory_keys') ? [] : errorReply('Invalid arguments specified for command');
  }
  return keys.map((k) =>
    withFlags ? [args[k.pos]!, new SetReply(orderedKeyFlags(k.flags).map((f) => new StatusReply(f)))] : args[k.pos]!,
  );
}

function commandHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, [
    '(no subcommand)',
    '    Describe every command of this server.',
    'COUNT',
    '    Count the commands of this server.',
    'LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]',
    '    Name the commands of this server, optionally only some of them.',
    'INFO [<command-name> ...]',
    '    Describe the named commands, or every command when none is named.',
    'DOCS [<command-name> ...]',
    '    Show the documentation of the named commands, or of every command.',
    'GETKEYS <full-command>',
    '    Tell which arguments of a full command line are keys.',
    'GETKEYSANDFLAGS <full-command>',
    '    Tell which arguments of a full command line are keys, and how each is accessed.',
  ]);
}

export const commandCommands: Record<string, Handler> = {
  command,
  'command|count': commandCount,
  'command|info': commandInfoHandler,
  'command|list': commandList,
  'command|getkeys': (c, argv) => getKeys(c, argv, false),
  'command|getkeysandflags': (c, argv) => getKeys(c, argv, true),
  'command|help': commandHelp,
};
