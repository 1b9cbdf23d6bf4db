import { lazy, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { LaterPart } from '../layout/later-part.js';
import { useSession, useSessionSnapshot } from '../session/session-context.js';
import { stateProviders } from '../session/state-providers.js';
import { useStore, useWorkbook } from '../store-context.js';
import type { CheckpointPick } from './checkpoint-panel.js';
import { formatElapsed, formatSpeed, formatStep, formatVirtualTime, SPEEDS, speedIndex, STEPS_MS } from './clock-format.js';
import { NO_FILTER, type EventFilter } from './event-filter.js';
import { TimelineNotice } from './timeline-notice.js';
import { TimelineTrack } from './timeline-track.js';
import './timeline.css';

/** The checkpoints, session controls and event list load when the panel is first opened. */
const HistoryPanel = lazy(() => import('./history-panel.js'));

/** What the timeline keeps of its own with the session: whether its panel is open, and the event filter. */
interface TimelineState {
  readonly open: boolean;
  readonly filter: EventFilter;
}

/**
 * The bottom bar: the virtual clock, play and pause, a step of virtual
 * time while paused, the speed at which virtual time follows the wall
 * clock (0.1× to 100×), a checkpoint now, and the track of time with the
 * checkpoints on it. Below, a panel that folds away: the checkpoints with
 * rewind and fork, the branches, the session's export, import and reset,
 * and the event list.
 */
export function TimelineBar() {
  const store = useStore();
  const session = useSession();
  const snap = useSessionSnapshot();
  const clock = useWorkbook((s) => s.clock);
  const [stepMs, setStepMs] = useState(100);
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState<EventFilter>(NO_FILTER);
  const [selected, setSelected] = useState<CheckpointPick | null>(null);
  const index = speedIndex(clock.speed);
  const busy = snap.busy !== null;

  useTimelineState({ open, filter }, (s) => {
    setOpen(s.open);
    setFilter(s.filter);
  });

  return (
    <footer className={open ? 'timeline open' : 'timeline'} aria-label="Timeline">
      <div className="timeline-row">
        <div className="timeline-controls">
          <button
            type="button"
            className="icon-button"
            onClick={() => (clock.paused ? store.resume() : store.pause())}
            aria-label={clock.paused ? 'Run virtual time' : 'Pause virtual time'}
            title={clock.paused ? 'Run' : 'Pause'}
            disabled={busy}
          >
            <span aria-hidden="true">{clock.paused ? '▶' : '❚❚'}</span>
          </button>
          <button
            type="button"
            onClick={() => store.step(stepMs)}
            disabled={!clock.paused || busy}
            title={clock.paused ? `Move virtual time on by ${formatStep(stepMs)}` : 'Pause to step through time'}
          >
            Step
          </button>
          <label className="step-size">
            <span className="visually-hidden">Step size</span>
            <select value={stepMs} onChange={(e) => setStepMs(Number(e.target.value))}>
              {STEPS_MS.map((ms) => (
                <option key={ms} value={ms}>
                  {formatStep(ms)}
                </option>
              ))}
            </select>
          </label>
          <label className="speed">
            <span>Speed</span>
            <input
              type="range"
              min={0}
              max={SPEEDS.length - 1}
              step={1}
              value={index}
              aria-valuetext={formatSpeed(SPEEDS[index]!)}
              onChange={(e) => store.setSpeed(SPEEDS[Number(e.target.value)]!)}
            />
            <output className="speed-value">{formatSpeed(clock.speed)}</output>
          </label>
          <button
            type="button"
            className="checkpoint-now"
            disabled={busy}
            onClick={() => {
              const cp = session.checkpoint();
              if (cp !== null) setSelected({ id: cp.id, focus: false });
            }}
            title="Keep this moment, to rewind to it or fork from it later"
          >
            <span aria-hidden="true">◆ </span>Checkpoint
          </button>
        </div>
        <TimelineTrack
          onSelect={(id) => {
            setOpen(true);
            setSelected({ id, focus: true });
          }}
        />
        <div className="clock" aria-label="Virtual clock">
          <span className={clock.paused ? 'clock-state paused' : 'clock-state'}>{clock.paused ? 'paused' : 'running'}</span>
          <time className="clock-elapsed" title="Virtual time since the world began">
            T+{formatElapsed(clock.nowUs - clock.startUs)}
          </time>
          <time className="clock-date" dateTime={new Date(Math.floor(clock.nowUs / 1000)).toISOString()} title="The simulated machines' clock (UTC)">
            {formatVirtualTime(clock.nowUs)} UTC
          </time>
        </div>
        <button type="button" className="panel-toggle" aria-expanded={open} aria-controls="timeline-panel" onClick={() => setOpen(!open)}>
          {snap.checkpoints.length === 0 ? 'History' : `History (${snap.checkpoints.length})`}
          <span aria-hidden="true">{open ? ' ▾' : ' ▴'}</span>
        </button>
      </div>
      <TimelineNotice />
      <div id="timeline-panel" className="timeline-panel" hidden={!open}>
        {open ? (
          <LaterPart what="The history" loading={<p className="muted timeline-loading">Loading the history…</p>}>
            <HistoryPanel selected={selected} onSelect={setSelected} filter={filter} onFilter={setFilter} />
          </LaterPart>
        ) : null}
      </div>
    </footer>
  );
}

/** Saves the panel's state with the session and takes it back after a reload. */
function useTimelineState(state: TimelineState, restore: (s: TimelineState) => void): void {
  const latest = useRef({ state, restore });
  useLayoutEffect(() => {
    latest.current = { state, restore };
  });
  useEffect(
    () =>
      stateProviders.register({
        key: 'timeline',
        save: () => latest.current.state,
        restore: (data) => {
          const d = data as Partial<TimelineState> | null;
          if (d === null || typeof d !== 'object') return;
          const f = d.filter as Partial<EventFilter> | undefined;
          latest.current.restore({
            open: d.open === true,
            filter: { host: typeof f?.host === 'string' ? f.host : null, kind: typeof f?.kind === 'string' ? f.kind : null },
          });
        },
        reset: () => latest.current.restore({ open: latest.current.state.open, filter: NO_FILTER }),
      }),
    [],
  );
  useEffect(() => stateProviders.changed(), [state.open, state.filter]);
}
