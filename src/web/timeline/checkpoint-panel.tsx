import { useEffect, useRef } from 'react';
import { useSession, useSessionSnapshot } from '../session/session-context.js';
import { formatElapsed } from './clock-format.js';

/**
 * The active branch's checkpoints, newest first, each with "Rewind" (back
 * to that point; what came after it is kept as a branch) and "Fork"
 * (continue from there in a new branch), and the branches to switch
 * between: no timeline is ever dropped without the learner asking.
 */
/** The checkpoint picked (on the track, or just taken), and whether the keyboard focus should go to it. */
export interface CheckpointPick {
  readonly id: string;
  readonly focus: boolean;
}

export function CheckpointPanel({ selected, onSelect }: { selected: CheckpointPick | null; onSelect: (pick: CheckpointPick | null) => void }) {
  const session = useSession();
  const snap = useSessionSnapshot();
  const busy = snap.busy !== null;
  const list = useRef<HTMLOListElement>(null);

  // A mark clicked on the track brings its checkpoint into view, ready for the keyboard.
  useEffect(() => {
    if (selected === null) return;
    const row = list.current?.querySelector<HTMLElement>(`[data-checkpoint="${CSS.escape(selected.id)}"]`);
    row?.scrollIntoView({ block: 'nearest' });
    if (selected.focus) row?.querySelector<HTMLButtonElement>('button')?.focus();
  }, [selected]);

  const active = snap.branches.find((b) => b.active);
  return (
    <section className="checkpoints" aria-labelledby="checkpoints-title">
      <div className="checkpoints-bar">
        <h3 id="checkpoints-title" className="panel-title">
          Checkpoints
        </h3>
        <label className="branch-select">
          <span>Branch</span>
          <select value={snap.activeBranch} disabled={busy || snap.branches.length < 2} onChange={(e) => void session.switchBranch(e.target.value)}>
            {snap.branches.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
                {b.forkedFrom === null ? '' : ` (from ${b.forkedFrom})`}
              </option>
            ))}
          </select>
        </label>
      </div>
      {active?.forkedFrom ? <p className="branch-origin muted small">Forked from “{active.forkedFrom}”.</p> : null}
      {snap.checkpoints.length === 0 ? (
        <p className="checkpoints-empty muted small">None yet. One is taken before every fault (a power loss, a kill, a partition, a disk fault); take one yourself with Checkpoint.</p>
      ) : (
        <ol className="checkpoint-list" ref={list}>
          {[...snap.checkpoints].reverse().map((c) => (
            <li key={c.id} data-checkpoint={c.id} className={c.id === selected?.id ? 'checkpoint selected' : 'checkpoint'}>
              <span className={c.auto ? 'checkpoint-mark auto' : 'checkpoint-mark'} aria-hidden="true">
                ◆
              </span>
              <span className="checkpoint-label" title={c.label}>
                {c.label}
              </span>
              <time className="checkpoint-time">T+{formatElapsed(c.atUs)}</time>
              <button
                type="button"
                disabled={busy}
                aria-label={`Rewind to ${c.label}`}
                title="Go back to this point; what came after it is kept as a branch you can switch back to"
                onClick={() => {
                  onSelect(null);
                  void session.rewind(c.id);
                }}
              >
                Rewind
              </button>
              <button
                type="button"
                disabled={busy}
                aria-label={`Fork a new branch from ${c.label}`}
                title="Continue from here in a new branch; this branch stays as it is"
                onClick={() => {
                  onSelect(null);
                  void session.fork(c.id);
                }}
              >
                Fork
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
