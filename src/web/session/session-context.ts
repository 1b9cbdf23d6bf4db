import { createContext, useContext, useSyncExternalStore } from 'react';
import type { SessionSnapshot, WorkbookSession } from './workbook-session.js';

export const SessionContext = createContext<WorkbookSession | null>(null);

/** The page's session: checkpoints, rewind, fork, branches, reset, export and import. */
export function useSession(): WorkbookSession {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside <SessionContext.Provider>');
  return session;
}

/** The session's snapshot (checkpoints, branches, a rewind under way...), re-read when it changes. */
export function useSessionSnapshot(): SessionSnapshot {
  const session = useSession();
  return useSyncExternalStore(session.subscribe, session.getSnapshot);
}
