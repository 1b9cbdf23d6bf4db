import docs from '../server/data/command-docs-7.0.json' with { type: 'json' };
import type { CommandFacts, FactTree } from '../server/command-table.js';

/**
 * What COMMAND DOCS says of a command beyond its group: the version it
 * appeared in, its doc flags, and the structure of its arguments (see
 * scripts/gen-command-table.ts). Only COMMAND DOCS and redis-cli's help
 * read it, so it is kept apart from the facts every server needs.
 */
export interface CommandDocFacts {
  readonly group: string;
  readonly since?: string;
  readonly docFlags?: FactTree;
  readonly deprecatedSince?: string;
  readonly arguments?: FactTree;
}

const DOCS = (docs as unknown as { docs: Record<string, Omit<CommandDocFacts, 'group'>> }).docs;

/** A command's documented facts ("set", "config|get"). */
export function docFacts(f: CommandFacts): CommandDocFacts {
  return { group: f.docs.group, ...DOCS[f.name] };
}
