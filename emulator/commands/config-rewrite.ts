import { OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { Handler } from '../server/command-table.js';
import type { RedisServer, ConfigFileAccess } from '../server/server.js';
import { rewriteServerConfig } from '../server/config-rewrite-options.js';
import { ConfigFileWriter } from '../persistence/config-file.js';
import { DiskError } from '../sim/disk-errors.js';

/**
 * CONFIG REWRITE (configRewriteCommand in src/config.c): the file the
 * server started with, rewritten with the running configuration. Its code
 * is loaded on demand (on-demand.ts): a first session never needs it.
 */
function configRewrite(c: Client): Reply {
  const file = c.server.configFile;
  if (file === null) return errorReply('The server is running without a config file');
  const err = rewriteConfigFile(c.server, file);
  if (err !== null) {
    c.server.log(`CONFIG REWRITE failed: ${err}`, 'warning');
    return errorReply(`Rewriting config file: ${err}`);
  }
  c.server.log('CONFIG REWRITE executed with success.', 'warning');
  return OK;
}

/**
 * rewriteConfig(server.configfile): reads the file, rewrites it with the
 * running configuration, writes it back. Null, or the strerror text of
 * what failed.
 */
function rewriteConfigFile(server: RedisServer, file: ConfigFileAccess): string | null {
  const writer = new ConfigFileWriter(file.process, file.path, ++file.rewrites);
  let old: string | null;
  try {
    old = writer.read();
  } catch (e) {
    if (e instanceof DiskError) return e.message;
    throw e;
  }
  const repl = server.replication;
  const text = rewriteServerConfig(old, {
    value: (name) => file.values?.[name] ?? server.config.get(name),
    primary: repl.masterHost === null ? null : { host: repl.masterHost, port: repl.masterPort },
  });
  return writer.write(text);
}

export const configRewriteCommands: Record<string, Handler> = { 'config|rewrite': configRewrite };
