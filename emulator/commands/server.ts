import type { Handler } from './table.js';

/**
 * The server commands.
 */
export const serverCommands: Record<string, Handler> = {};
