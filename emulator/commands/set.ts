import type { Handler } from './table.js';

/**
 * The set commands.
 */
export const setCommands: Record<string, Handler> = {};
