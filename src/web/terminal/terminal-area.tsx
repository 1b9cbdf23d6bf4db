import { useStore, useWorkbook } from '../store-context.js';
import { NewTerminalMenu } from './new-terminal-menu.js';
import { useScreenReaderMode } from './screen-reader-mode.js';
import { TerminalView } from './terminal-view.js';
import './terminal-area.css';

/**
 * The centre pane: a tab per terminal, the screen reader switch and the
 * "+" menu, and the screens (hidden ones keep running).
 */
export function TerminalArea({ theme }: { theme: 'light' | 'dark' }) {
  const store = useStore();
  const screenReader = useScreenReaderMode();
  const terminals = useWorkbook((s) => s.terminals);
  const active = useWorkbook((s) => s.activeTerminal);

  const onTabKey = (e: React.KeyboardEvent, index: number): void => {
    if (e.key === 'Delete') {
      // The tab list may hold only tabs, so the close button is for the mouse and Delete closes
      // the focused tab from the keyboard (the closable-tabs pattern of WAI-ARIA's practices).
      e.preventDefault();
      const t = terminals[index];
      if (t === undefined) return;
      const next = terminals[index + 1] ?? terminals[index - 1];
      store.closeTerminal(t.id);
      if (next !== undefined) document.getElementById(`tab-${next.id}`)?.focus();
      return;
    }
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const next = terminals[(index + (e.key === 'ArrowRight' ? 1 : terminals.length - 1)) % terminals.length];
    if (next === undefined) return;
    store.selectTerminal(next.id);
    document.getElementById(`tab-${next.id}`)?.focus();
  };

  return (
    <section className="pane terminal-pane" aria-label="Terminals">
      <div className="tab-bar">
        <div className="tabs" role="tablist" aria-label="Terminals">
          {terminals.map((t, i) => (
            <div key={t.id} role="presentation" className={t.id === active ? 'tab active' : 'tab'}>
              <button
                type="button"
                role="tab"
                id={`tab-${t.id}`}
                aria-selected={t.id === active}
                aria-controls={`panel-${t.id}`}
                aria-keyshortcuts="Delete"
                tabIndex={t.id === active ? 0 : -1}
                className="tab-label"
                onClick={() => store.selectTerminal(t.id)}
                onKeyDown={(e) => onTabKey(e, i)}
              >
                <span className={`tab-kind kind-${t.kind}`} aria-hidden="true">
                  {t.kind === 'shell' ? '#' : '>'}
                </span>
                {t.title}
              </button>
              <button type="button" className="tab-close" aria-hidden="true" tabIndex={-1} title={`Close ${t.title} (Delete on its tab)`} onClick={() => store.closeTerminal(t.id)}>
                <span aria-hidden="true">×</span>
              </button>
            </div>
          ))}
        </div>
        <div className="terminal-toolbar">
          <button
            type="button"
            className="screen-reader-toggle"
            aria-pressed={screenReader.on}
            title="Screen reader mode: the terminals' output is read out as it comes"
            onClick={screenReader.toggle}
          >
            Screen reader
            {/* The pressed state says on or off to a screen reader; the word is for the eye. */}
            <span className="toggle-state" aria-hidden="true">
              {screenReader.on ? 'on' : 'off'}
            </span>
          </button>
          <NewTerminalMenu />
        </div>
      </div>
      <div className="screens">
        {terminals.length === 0 ? <p className="muted empty-screens">No terminal open. Open one with +.</p> : null}
        {terminals.map((t) => {
          const session = store.terminal(t.id);
          return session === undefined ? null : <TerminalView key={t.id} session={session} active={t.id === active} theme={theme} screenReaderMode={screenReader.on} tabId={t.id} />;
        })}
      </div>
    </section>
  );
}
