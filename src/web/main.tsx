import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { App } from './app.js';
import { loadCommandCode } from './command-code.js';
import { lessonKeeping } from './lesson/lesson-keeping.js';
import { LessonShelf } from './lesson/lesson-shelf.js';
import { indexedDbStore } from './session/kv-store.js';
import { SessionContext } from './session/session-context.js';
import { WorkbookSession } from './session/workbook-session.js';
import { StoreContext } from './store-context.js';
import { WorldStore } from './world-store.js';
import { Trace } from '../../emulator/sim/index.js';

// The page compares no worlds by their trace's hash (tests and tools do): its worlds do not compute one.
Trace.hashByDefault = false;
const store = new WorldStore({ seed: 1 });
const session = new WorkbookSession(store, { kv: indexedDbStore() });
// Lessons left for another are kept apart, each with its whole session, to reopen where they were.
const shelf = new LessonShelf(indexedDbStore('redis-workbook-lessons', 'lessons'));
lessonKeeping.session = session;
lessonKeeping.shelf = shelf;
void shelf.load().catch(() => undefined);
store.start();
// A shared moment in the address (#share=...) opens in place of the learner's session; the fragment never left the page.
const shared = location.hash.startsWith('#share=') ? location.hash : null;
if (shared !== null) history.replaceState(null, '', location.pathname + location.search);

const openLink = async (fragment: string): Promise<boolean> => (await import('./session/share-link.js')).openSharedMoment(session, fragment, shelf);

// The learner's last session comes back if there is one; otherwise the sandbox opens with a redis-cli.
const started = session.load().then(async (restored) => {
  if (shared !== null && (await openLink(shared))) restored = true;
  if (!restored) store.openTerminal();
  // The commands kept apart come once the terminal is up, before they are likely to be typed.
  setTimeout(() => void loadCommandCode().catch(() => undefined), 0);
});
// A link pasted into the address of the page already open changes only its fragment, and the page does not load again: open it here.
addEventListener('hashchange', () => {
  if (!location.hash.startsWith('#share=')) return;
  const link = location.hash;
  history.replaceState(null, '', location.pathname + location.search);
  void started.then(() => openLink(link));
});
// Leaving the page saves at once rather than after the usual short delay.
addEventListener('pagehide', () => void session.save());
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') void session.save();
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <SessionContext.Provider value={session}>
        <App />
      </SessionContext.Provider>
    </StoreContext.Provider>
  </StrictMode>,
);
