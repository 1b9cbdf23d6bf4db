import { MapReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { factReply, lookupByFullName } from './command.js';
import { docFacts } from './docs-data.js';
import { COMMAND_SUMMARIES } from './summaries.js';
import type { CommandDef, Handler } from '../server/command-table.js';

/**
 * COMMAND DOCS (src/server.c commandDocsCommand): each command's summary
 * (ours), then what the real server documents of it, with its
 * subcommands. Its data loads with the commands kept apart (on-demand.ts).
 */

const docsCache = new WeakMap<CommandDef, Reply>();

/** One command's COMMAND DOCS entry: our summary, then the documented facts. */
function commandDocs(cmd: CommandDef): Reply {
  let r = docsCache.get(cmd);
  if (r) return r;
  const d = docFacts(cmd.facts);
  const flat: Reply[] = [];
  const summary = COMMAND_SUMMARIES[cmd.name];
  if (summary) flat.push('summary', summary);
  if (d.since) flat.push('since', d.since);
  flat.push('group', d.group);
  if (d.docFlags) flat.push('doc_flags', factReply(d.docFlags));
  if (d.deprecatedSince) flat.push('deprecated_since', d.deprecatedSince);
  if (d.arguments) flat.push('arguments', factReply(d.arguments));
  if (cmd.subcommands) {
    const subs: Reply[] = [];
    for (const sub of cmd.subcommands.values()) subs.push(sub.name, commandDocs(sub));
    flat.push('subcommands', new MapReply(subs));
  }
  r = new MapReply(flat);
  docsCache.set(cmd, r);
  return r;
}

function commandDocsHandler(c: Client, argv: string[]): Reply {
  const flat: Reply[] = [];
  if (argv.length === 2) {
    for (const cmd of c.server.commands.commands.values()) flat.push(cmd.name, commandDocs(cmd));
  } else {
    for (let i = 2; i < argv.length; i++) {
      const cmd = lookupByFullName(c.server.commands, argv[i]!);
      if (cmd) flat.push(cmd.name, commandDocs(cmd));
    }
  }
  return new MapReply(flat);
}

export const commandDocsCommands: Record<string, Handler> = { 'command|docs': commandDocsHandler };
