import { useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { TraceEntry } from '../../../emulator/sim/trace.js';
import { useSession } from '../session/session-context.js';
import { useStore, useWorkbook } from '../store-context.js';
import { visibleControls } from '../terminal/sanitize.js';
import { formatElapsed } from './clock-format.js';
import { FilteredEvents, KIND_GROUPS, type EventFilter } from './event-filter.js';
import { kindClass } from './event-kinds.js';

/** Height of one row, px (the CSS gives rows this height). */
export const EVENT_ROW_PX = 22;
/** Rows drawn above and below the visible ones, so scrolling does not show gaps. */
const OVERSCAN = 6;

/**
 * The world's trace as a list, newest at the bottom and followed while
 * the list is scrolled to its end. Only the rows in view are drawn, and
 * each frame only the entries added since the last one are looked at, so
 * a trace of any length costs the page the same. A command or a fault
 * typed in a terminal names it; the name selects that terminal's tab.
 */
export function EventList({ filter, onFilter }: { filter: EventFilter; onFilter: (f: EventFilter) => void }) {
  const session = useSession();
  const store = useStore();
  const log = useSyncExternalStore(session.subscribe, () => session.eventLog);
  // Re-read on every new entry, at most once per published frame.
  const total = useSyncExternalStore(store.subscribe, () => log.total);
  const terminals = useWorkbook((s) => s.terminals);
  const hosts = useWorkbook((s) => s.cluster.hosts);
  const events = useMemo(() => new FilteredEvents(log), [log]);
  events.setFilter(filter);
  events.refresh();

  const view = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(200);
  const [follow, setFollow] = useState(true);
  const count = events.length;

  useEffect(() => {
    const el = view.current;
    if (el === null) return;
    const measure = (): void => setHeight(el.clientHeight);
    const resize = new ResizeObserver(measure);
    resize.observe(el);
    measure();
    return () => resize.disconnect();
  }, []);

  // While the list is at its end, new entries keep it there.
  useLayoutEffect(() => {
    const el = view.current;
    if (el !== null && follow) el.scrollTop = el.scrollHeight;
  }, [follow, count, total]);

  const first = Math.max(0, Math.floor(scrollTop / EVENT_ROW_PX) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + height) / EVENT_ROW_PX) + OVERSCAN);
  const titles = new Map(terminals.map((t) => [t.id, t.title]));
  const rows = [];
  for (let i = first; i < last; i++) {
    const e = events.entry(i);
    if (e === undefined) continue;
    const cause = log.causeOf(e);
    const terminal = cause === null ? null : store.terminalOfWorldId(cause);
    rows.push(
      <EventRow
        key={events.position(i)}
        entry={e}
        top={i * EVENT_ROW_PX}
        index={i}
        count={count}
        terminal={terminal === null ? null : { id: terminal, title: titles.get(terminal) ?? terminal }}
        onTerminal={(id) => store.selectTerminal(id)}
      />,
    );
  }

  const dropped = log.firstIndex;
  return (
    <section className="events" aria-labelledby="events-title">
      <div className="events-bar">
        <h3 id="events-title" className="panel-title">
          Events
        </h3>
        <label className="events-filter">
          <span>Host</span>
          <select value={filter.host ?? ''} onChange={(e) => onFilter({ ...filter, host: e.target.value === '' ? null : e.target.value })}>
            <option value="">all hosts</option>
            {hosts.map((h) => (
              <option key={h.name} value={h.name}>
                {h.name}
              </option>
            ))}
          </select>
        </label>
        <label className="events-filter">
          <span>Kind</span>
          <select value={filter.kind ?? ''} onChange={(e) => onFilter({ ...filter, kind: e.target.value === '' ? null : e.target.value })}>
            <option value="">all kinds</option>
            {KIND_GROUPS.map((g) => (
              <option key={g.id} value={`group:${g.id}`}>
                {g.label}
              </option>
            ))}
            <optgroup label="One kind">
              {[...events.kindsSeen].sort().map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </optgroup>
          </select>
        </label>
        <span className="events-count muted" aria-live="off">
          {count.toLocaleString('en-US')} shown{dropped > 0 ? ` · ${dropped.toLocaleString('en-US')} older not kept` : ''}
        </span>
        {!follow && count > 0 ? (
          <button
            type="button"
            className="events-newest"
            onClick={() => {
              setFollow(true);
              view.current?.scrollTo({ top: view.current.scrollHeight });
            }}
          >
            Newest ↓
          </button>
        ) : null}
      </div>
      <div
        ref={view}
        className="events-view"
        role="list"
        aria-label={`Events, ${count} shown, newest last`}
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          setScrollTop(el.scrollTop);
          setFollow(el.scrollTop + el.clientHeight >= el.scrollHeight - EVENT_ROW_PX / 2);
        }}
      >
        <div className="events-spacer" style={{ height: count * EVENT_ROW_PX }}>
          {rows}
        </div>
        {count === 0 ? <p className="events-empty muted">No events{filter.host !== null || filter.kind !== null ? ' match the filter' : ' yet'}.</p> : null}
      </div>
    </section>
  );
}

function EventRow({
  entry,
  top,
  index,
  count,
  terminal,
  onTerminal,
}: {
  entry: TraceEntry;
  top: number;
  index: number;
  count: number;
  terminal: { id: string; title: string } | null;
  onTerminal: (id: string) => void;
}) {
  const { client, text } = splitCommand(entry);
  return (
    <div className="event" role="listitem" aria-posinset={index + 1} aria-setsize={count} style={{ top }}>
      <span className="event-time">{formatElapsed(entry.t)}</span>
      <span className="event-source">{entry.source}</span>
      <span className={`event-kind ${kindClass(entry.kind)}`}>{entry.kind}</span>
      <span className="event-text" title={client === null ? undefined : `client ${client}`}>
        {visibleControls(text)}
      </span>
      {terminal !== null ? (
        <button type="button" className="event-terminal" onClick={() => onTerminal(terminal.id)} aria-label={`Show the terminal ${terminal.title}`} title="Show this terminal">
          {terminal.title}
        </button>
      ) : null}
    </div>
  );
}

/** A command's entry is "<client id> <command>": the id goes to the tooltip. */
function splitCommand(e: TraceEntry): { client: string | null; text: string } {
  if (e.kind !== 'cmd') return { client: null, text: e.text };
  const m = /^(\d+) (.*)$/s.exec(e.text);
  return m === null ? { client: null, text: e.text } : { client: m[1]!, text: m[2]! };
}
