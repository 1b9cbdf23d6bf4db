import { useCallback, useSyncExternalStore } from 'react';

const STORAGE_KEY = 'redis-workbook-screen-reader-mode';

const listeners = new Set<() => void>();
let on = typeof localStorage === 'undefined' ? false : stored();

function stored(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'on';
  } catch {
    // Storage can be off (private windows, strict settings): start without it.
    return false;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Whether the terminals run in xterm.js's screen reader mode (its output
 * mirrored in a live region a screen reader reads), as the learner last
 * chose; remembered across visits.
 */
export function useScreenReaderMode(): { on: boolean; toggle: () => void } {
  const value = useSyncExternalStore(subscribe, () => on);
  const toggle = useCallback(() => {
    on = !on;
    try {
      localStorage.setItem(STORAGE_KEY, on ? 'on' : 'off');
    } catch {
      // Not remembered, still applied.
    }
    for (const l of listeners) l();
  }, []);
  return { on: value, toggle };
}
