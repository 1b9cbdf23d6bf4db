import type { Handler } from './table.js';
import { connectionCommands } from './connection.js';
import { stringCommands } from './string.js';
import { transactionCommands } from './transactions.js';

/** Every command handler, by full lowercase name ("get", "config|get"). */
export const ALL_HANDLERS: Readonly<Record<string, Handler>> = {
  ...connectionCommands,
  ...stringCommands,
  ...transactionCommands,
};
