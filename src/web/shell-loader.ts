import { loadOnce } from './load-once.js';

export type ShellParts = typeof import('./shell-parts.js');

const shell = loadOnce<ShellParts>(() => import('./shell-parts.js'));

/** Loads the host shell's code (once; later calls share the first load). */
export function loadShellParts(): Promise<ShellParts> {
  return shell.load();
}

/** The shell's code if it has been loaded, else null. */
export function shellPartsNow(): ShellParts | null {
  return shell.now();
}

/** The shell's code, which the caller has made sure is loaded (see loadShellParts). */
export function requireShellParts(): ShellParts {
  const parts = shell.now();
  if (parts === null) throw new Error('the host shell is still loading; try again in a moment');
  return parts;
}
