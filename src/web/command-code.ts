import { isOnDemandCommand, onDemandHandlersLoaded } from '../../emulator/commands/on-demand.js';
import { loadOnce } from './load-once.js';

const code = loadOnce(() => import('../../emulator/commands/on-demand-handlers.js'));

/**
 * Loads the code of the commands a first session seldom types (DEBUG,
 * SORT, OBJECT, COMMAND DOCS ..., see emulator/commands/on-demand.ts),
 * once. The page starts it soon after it opens, and waits for it before
 * sending such a command, before a fault (a server that starts may replay
 * any command from its AOF) and before a replay.
 */
export function loadCommandCode(): Promise<void> {
  return code.load().then(() => undefined);
}

/**
 * What to wait for before sending `argv`: null when it can go at once,
 * else the load of its code. A load that fails still lets it go: the
 * server then answers that the command's code is not loaded.
 */
export function commandCodeFor(argv: readonly string[]): Promise<void> | null {
  if (onDemandHandlersLoaded() || !isOnDemandCommand(argv)) return null;
  return loadCommandCode().catch(() => undefined);
}
