import type { Handler } from './table.js';

/**
 * The list commands.
 */
export const listCommands: Record<string, Handler> = {};
