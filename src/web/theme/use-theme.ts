import { useCallback, useEffect, useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';

const STORAGE_KEY = 'redis-workbook-theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The theme chosen with the toggle, if any; otherwise the system's is followed. */
function storedChoice(): Theme | null {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    // Storage can be off (private windows, strict settings): follow the system.
    return null;
  }
}

const listeners = new Set<() => void>();
let choice: Theme | null = typeof localStorage === 'undefined' ? null : storedChoice();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const media = matchMedia(DARK_QUERY);
  media.addEventListener('change', listener);
  return () => {
    listeners.delete(listener);
    media.removeEventListener('change', listener);
  };
}

function effectiveTheme(): Theme {
  return choice ?? (matchMedia(DARK_QUERY).matches ? 'dark' : 'light');
}

/**
 * The page's theme: the system's (prefers-color-scheme) until the learner
 * picks one with the toggle, which is remembered. The choice is written to
 * <html data-theme>, which styles.css reads.
 */
export function useTheme(): { theme: Theme; toggle: () => void } {
  const theme = useSyncExternalStore(subscribe, effectiveTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = useCallback(() => {
    choice = effectiveTheme() === 'dark' ? 'light' : 'dark';
    try {
      localStorage.setItem(STORAGE_KEY, choice);
    } catch {
      // Not remembered, still applied.
    }
    for (const l of listeners) l();
  }, []);
  return { theme, toggle };
}
