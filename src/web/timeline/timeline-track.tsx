import { useSession, useSessionSnapshot } from '../session/session-context.js';
import { useWorkbook } from '../store-context.js';
import { formatElapsed } from './clock-format.js';

/**
 * The world's time from its start to now, with the active branch's
 * checkpoints marked where they were taken. A mark is a shortcut for the
 * mouse: clicking it opens the checkpoint in the list, where the
 * keyboard reaches every checkpoint too.
 */
export function TimelineTrack({ onSelect }: { onSelect: (id: string) => void }) {
  const snap = useSessionSnapshot();
  const session = useSession();
  const clock = useWorkbook((s) => s.clock);
  const elapsed = Math.max(1, clock.nowUs - clock.startUs);
  if (snap.busy !== null) {
    const pct = Math.round(snap.busy.progress * 100);
    return (
      <div className="track busy" role="status" aria-live="polite">
        <span className="track-busy-label">
          {snap.busy.label}… {pct}%
        </span>
        <progress max={1} value={snap.busy.progress} aria-label={snap.busy.label} />
        <button type="button" className="track-busy-cancel" onClick={() => session.cancel()}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <div className="track" aria-hidden="true">
      <div className="track-line" />
      {snap.checkpoints.map((c) => (
        <span
          key={c.id}
          className={c.auto ? 'track-mark auto' : 'track-mark'}
          style={{ left: `${Math.min(100, (c.atUs / elapsed) * 100)}%` }}
          title={`${c.label} (T+${formatElapsed(c.atUs)})`}
          onClick={() => onSelect(c.id)}
        >
          ◆
        </span>
      ))}
      <span className="track-now" />
    </div>
  );
}
