export type ShellParts = typeof import('./shell-parts.js');

let parts: ShellParts | null = null;
let loading: Promise<ShellParts> | null = null;

/**
 * Loads the host shell's code (once; later calls share the first load).
 * A load that fails (the page went offline before the chunk was cached)
 * can be tried again.
 */
export function loadShellParts(): Promise<ShellParts> {
  loading ??= import('./shell-parts.js').then(
    (p) => (parts = p),
    (e: unknown) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

/** The shell's code if it has been loaded, else null. */
export function shellPartsNow(): ShellParts | null {
  return parts;
}

/** The shell's code, which the caller has made sure is loaded (see loadShellParts). */
export function requireShellParts(): ShellParts {
  if (parts === null) throw new Error('the host shell is still loading; try again in a moment');
  return parts;
}
