import type { Handler } from './table.js';

/**
 * The hash commands.
 */
export const hashCommands: Record<string, Handler> = {};
