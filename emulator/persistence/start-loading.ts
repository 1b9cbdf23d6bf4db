import type { loadAofAtStart } from './aof-replay.js';
import type { loadRdbIntoServer } from './rdb-load.js';

/**
 * The readers a server runs on the files it finds at start (dump.rdb, the
 * AOF and its manifest's files), kept apart from what a first session
 * loads: its server starts on an empty directory and never reads a file.
 * emulator/commands/on-demand-handlers.ts registers them when it loads,
 * and whoever starts a server from files loads that first: the page before
 * a fault, a replay or a start from a shell, lessons, Node programs and
 * tests at start. A server that finds no file needs neither.
 */
export interface StartLoaders {
  readonly loadRdbIntoServer: typeof loadRdbIntoServer;
  readonly loadAofAtStart: typeof loadAofAtStart;
}

let loaders: StartLoaders | null = null;

/** Called by on-demand-handlers.ts when it loads. */
export function registerStartLoaders(l: StartLoaders): void {
  loaders = l;
}

/** The readers, which a server about to read its files must have. */
export function startLoaders(): StartLoaders {
  if (loaders === null) throw new Error("the code that reads a server's files at start is not loaded (import emulator/commands/on-demand-handlers.js)");
  return loaders;
}
