import { useRef, useState } from 'react';
import { JsonFileInput } from '../layout/json-file-input.js';
import { useSession, useSessionSnapshot } from '../session/session-context.js';
import type { SaveStatus } from '../session/workbook-session.js';
import { downloadText } from '../download.js';
import { useStore } from '../store-context.js';

/** Saves follow changes within a second, so a save about to happen reads as kept: the text does not flicker while time runs. */
const SAVE_TEXT: Record<SaveStatus, string> = {
  off: 'Not kept in this browser',
  idle: 'Kept in this browser as you go',
  pending: 'Kept in this browser as you go',
  saved: 'Kept in this browser as you go',
  failed: 'Could not be kept in this browser: see the message',
};

/** Files bigger than this are not read: no session comes near it. */
const MAX_IMPORT_BYTES = 200 * 1024 * 1024;

/**
 * The whole session: whether it is saved, export to a file, import one,
 * and reset the sandbox (after a second, explicit confirmation).
 */
export function SessionControls() {
  const session = useSession();
  const store = useStore();
  const snap = useSessionSnapshot();
  const file = useRef<HTMLInputElement>(null);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const busy = snap.busy !== null;

  const onImport = async (f: File | undefined): Promise<void> => {
    if (f === undefined) return;
    if (f.size > MAX_IMPORT_BYTES) {
      setMessage(`${f.name} is too big to be a workbook session.`);
      return;
    }
    setMessage(null);
    const r = await session.importText(await f.text());
    setMessage(r.ok ? null : r.message);
  };

  const draft = async (): Promise<void> => {
    const { lessonDraft, DRAFT_FILE } = await import('../session/lesson-draft.js');
    const world = store.world;
    const text = lessonDraft(world.actionsFrom(0), world.kernel.seed);
    if (text === null) setMessage('Type a few commands first: each group of them becomes a step of the draft.');
    else {
      setMessage(null);
      downloadText(text, DRAFT_FILE, 'text/markdown');
    }
  };

  const share = async (): Promise<void> => {
    const { shareLink } = await import('../session/share-link.js');
    const r = await shareLink(session.exportSession(), location.href);
    setLink(r.ok ? r.url : null);
    setMessage(r.ok ? null : r.message);
  };

  return (
    <section className="session-controls" aria-label="Session">
      <p className="save-status muted small" role="status">
        {SAVE_TEXT[snap.save]}
      </p>
      <div className="session-buttons">
        <button type="button" onClick={() => downloadText(session.exportText(), sessionFileName())} disabled={busy} title="Download the whole session as a file">
          Export
        </button>
        <button type="button" onClick={() => file.current?.click()} disabled={busy} title="Open a session exported earlier">
          Import…
        </button>
        <button type="button" onClick={() => void share()} disabled={busy} title="Make a link that opens this world at this instant in any browser; nothing is sent anywhere">
          Share link
        </button>
        <button type="button" onClick={() => void draft()} disabled={busy} title="Download the commands typed in this world as the draft of a lesson: one step per group of them">
          Lesson draft
        </button>
        <JsonFileInput inputRef={file} onFile={(f) => void onImport(f)} />
        {confirming ? (
          <span className="reset-confirm" role="group" aria-label="Reset the sandbox?">
            <button
              type="button"
              className="danger"
              autoFocus
              onClick={() => {
                setConfirming(false);
                session.reset();
              }}
            >
              Reset everything
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" onClick={() => setConfirming(true)} disabled={busy} title="Start the sandbox again: a new world, new terminals, no checkpoints">
            Reset…
          </button>
        )}
      </div>
      {confirming ? <p className="small muted">The world, the terminals, the checkpoints and the branches go. Export first to keep them.</p> : null}
      {link !== null ? (
        <p className="share-link small">
          <label>
            <span>Link to this moment</span>{' '}
            <input type="text" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
          </label>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(link).catch(() => undefined)}>
            Copy
          </button>
        </p>
      ) : null}
      {message !== null ? (
        <p className="import-error small" role="alert">
          {message}
        </p>
      ) : null}
    </section>
  );
}

/** "redis-workbook-session-2026-11-21.json" */
function sessionFileName(): string {
  return `redis-workbook-session-${new Date().toISOString().slice(0, 10)}.json`;
}
