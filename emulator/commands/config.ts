import { MapReply, OK, errorReply, type Reply } from '../resp/reply.js';
import { asciiLower } from '../resp/bytes.js';
import type { Client } from '../server/client.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import { helpReply } from './command-help.js';
import type { Handler } from '../server/command-table.js';

/**
 * CONFIG GET, SET, RESETSTAT and HELP (src/config.c); REWRITE is kept
 * apart (config-rewrite.ts, on demand). The parameters themselves, their
 * parsing and CONFIG SET's all-or-nothing semantics live in server/config.ts.
 */

function configGet(c: Client, argv: string[]): Reply {
  const flat: Reply[] = [];
  for (const [name, value] of c.server.config.match(argv.slice(2))) flat.push(name, value);
  return new MapReply(flat);
}

/** Whether a client may change protected parameters (dir, dbfilename). */
function allowProtected(c: Client): boolean {
  const setting = c.server.config.get('enable-protected-configs');
  return setting === 'yes' || (setting === 'local' && /^(127\.0\.0\.1|::1|\[::1\]):/.test(c.address.addr));
}

/** Parameters whose values are secrets (SENSITIVE_CONFIG in src/config.c). */
const SENSITIVE = new Set(['masteruser', 'masterauth', 'requirepass']);

function configSet(c: Client, argv: string[]): Reply {
  if (argv.length % 2 !== 0) return SYNTAX_ERROR;
  const pairs: Array<[string, string]> = [];
  for (let i = 2; i < argv.length; i += 2) {
    pairs.push([argv[i]!, argv[i + 1]!]);
    // Secrets are hidden from the slow log and MONITOR whether or not the change succeeds.
    if (SENSITIVE.has(asciiLower(argv[i]!))) c.redact(i + 1);
  }
  const err = c.server.config.setMany(pairs, { allowProtected: allowProtected(c), loading: c.server.stats.persistence.loading });
  return err === null ? OK : errorReply(err);
}

/** Zeroes INFO stats, commandstats and errorstats. */
function configResetstat(c: Client): Reply {
  c.server.stats.reset();
  for (const cmd of c.server.commands.commands.values()) cmd.resetStats();
  return OK;
}

function configHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, [
    'GET <pattern> [<pattern> ...]',
    '    Show the parameters whose names match any glob-style <pattern>, with their values.',
    'SET <parameter> <value> [<parameter> <value> ...]',
    '    Change parameters at runtime; either every change is made or none is.',
    'RESETSTAT',
    '    Zero the counters that INFO reports (stats, commandstats, errorstats).',
    'REWRITE',
    '    Write the running configuration back to the configuration file.',
  ]);
}

export const configCommands: Record<string, Handler> = {
  'config|get': configGet,
  'config|set': configSet,
  'config|resetstat': configResetstat,
  'config|help': configHelp,
};
