import { createContext, useContext, useSyncExternalStore } from 'react';
import type { WorkbookSnapshot, WorldStore } from './world-store.js';

export const StoreContext = createContext<WorldStore | null>(null);

export function useStore(): WorldStore {
  const store = useContext(StoreContext);
  if (store === null) throw new Error('useStore outside <StoreContext.Provider>');
  return store;
}

/**
 * A part of the workbook's snapshot, re-read when the world changes. The
 * selector must return a part of the snapshot as it is (not a new object),
 * so the component re-renders only when that part changes.
 *
 *   const clock = useWorkbook((s) => s.clock);
 */
export function useWorkbook<T>(select: (s: WorkbookSnapshot) => T): T {
  const store = useStore();
  return useSyncExternalStore(store.subscribe, () => select(store.getSnapshot()));
}
