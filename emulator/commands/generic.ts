import type { Handler } from './table.js';

/**
 * The generic commands.
 */
export const genericCommands: Record<string, Handler> = {};
