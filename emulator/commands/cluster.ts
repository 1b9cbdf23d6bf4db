import { errorReply, type Reply } from '../resp/reply.js';
import { commandFacts, type Handler } from '../server/command-table.js';

/**
 * The cluster group on a server started without cluster-enabled, the only
 * kind the emulator runs: CLUSTER's subcommands, ASKING, READONLY and
 * READWRITE all answer that cluster support is disabled (src/cluster.c
 * checks server.cluster_enabled first, HELP included). Arity and unknown
 * subcommands are the dispatcher's, as for any command.
 */
const disabled = (): Reply => errorReply('This instance has cluster support disabled');

export const clusterCommands: Record<string, Handler> = Object.fromEntries(
  ['asking', 'readonly', 'readwrite', ...(commandFacts('cluster')?.subcommands ?? []).map((s) => s.name)].map((name) => [name, disabled]),
);
