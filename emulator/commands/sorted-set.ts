import type { Handler } from './table.js';

/**
 * The sorted-set commands.
 */
export const sortedSetCommands: Record<string, Handler> = {};
