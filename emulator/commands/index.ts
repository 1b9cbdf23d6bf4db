import type { Handler } from './table.js';
import { bitmapCommands } from './bitmap.js';
import { connectionCommands } from './connection.js';
import { genericCommands } from './generic.js';
import { hashCommands } from './hash.js';
import { listCommands } from './list.js';
import { listBlockingCommands } from './list-blocking.js';
import { serverCommands } from './server.js';
import { scriptingCommands } from './scripting.js';
import { setCommands } from './set.js';
import { sortedSetCommands } from './sorted-set.js';
import { sortedSetBlockingCommands } from './sorted-set-blocking.js';
import { stringCommands } from './string.js';
import { transactionCommands } from './transactions.js';

/** Every command handler, by full lowercase name ("get", "config|get"). */
export const ALL_HANDLERS: Readonly<Record<string, Handler>> = {
  ...bitmapCommands,
  ...connectionCommands,
  ...genericCommands,
  ...hashCommands,
  ...listCommands,
  ...listBlockingCommands,
  ...scriptingCommands,
  ...serverCommands,
  ...setCommands,
  ...sortedSetCommands,
  ...sortedSetBlockingCommands,
  ...stringCommands,
  ...transactionCommands,
};
