import type { Handler } from '../server/command-table.js';
import { clusterCommands } from './cluster.js';
import { connectionCommands } from './connection.js';
import { genericCommands } from './generic.js';
import { monitorCommands } from './monitor.js';
import { ON_DEMAND_ENTRIES } from './on-demand.js';
import { serverCommands } from './server.js';
import { persistenceCommands } from './persistence.js';
import { pubsubCommands } from './pubsub.js';
import { replicationCommands } from './replication.js';
import { shutdownCommands } from './shutdown.js';
import { stringCommands } from './string.js';
import { transactionCommands } from './transactions.js';

/**
 * Every command handler, by full lowercase name ("get", "config|get"); those
 * of on-demand.ts call their code once it is loaded.
 */
export const ALL_HANDLERS: Readonly<Record<string, Handler>> = {
  ...clusterCommands,
  ...connectionCommands,
  ...genericCommands,
  ...monitorCommands,
  ...persistenceCommands,
  ...pubsubCommands,
  ...replicationCommands,
  ...serverCommands,
  ...shutdownCommands,
  ...stringCommands,
  ...transactionCommands,
  ...ON_DEMAND_ENTRIES,
};
