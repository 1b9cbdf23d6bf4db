import { useRef, useState } from 'react';
import { JsonFileInput } from '../layout/json-file-input.js';
import { downloadText } from '../download.js';
import type { LessonController } from './lesson-controller.js';

/** Files bigger than this are not read: fourteen lessons' sessions come nowhere near it. */
const MAX_PROGRESS_BYTES = 500 * 1024 * 1024;

/**
 * Under the lesson list: every lesson's progress downloaded as one file,
 * and such a file taken back in (on another machine, another browser),
 * with what became of it said in words.
 */
export function ProgressControls({ lessons, disabled }: { lessons: LessonController; disabled: boolean }) {
  const file = useRef<HTMLInputElement>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [working, setWorking] = useState(false);

  const exportAll = async (): Promise<void> => {
    setWorking(true);
    try {
      const text = await lessons.exportProgress();
      if (text === null) setMessage({ kind: 'error', text: 'This page keeps no lessons, so there is no progress to export.' });
      else {
        downloadText(text, `redis-workbook-progress-${new Date().toISOString().slice(0, 10)}.json`);
        setMessage(null);
      }
    } catch (e) {
      setMessage({ kind: 'error', text: `The progress could not be exported: ${e instanceof Error ? e.message : String(e)}` });
    } finally {
      setWorking(false);
    }
  };

  const importFile = async (f: File | undefined): Promise<void> => {
    if (f === undefined) return;
    if (f.size > MAX_PROGRESS_BYTES) {
      setMessage({ kind: 'error', text: `${f.name} is too big to be a workbook progress file.` });
      return;
    }
    setWorking(true);
    try {
      const r = await lessons.importProgress(await f.text());
      setMessage(r.ok ? { kind: 'ok', text: `Progress taken in: ${r.lessons} ${r.lessons === 1 ? 'lesson' : 'lessons'}.` } : { kind: 'error', text: r.message });
    } finally {
      setWorking(false);
    }
  };

  return (
    <section className="progress-controls" aria-label="Your progress">
      <p className="muted small">Your progress in every lesson, as one file to keep or to take to another browser:</p>
      <div className="progress-buttons">
        <button type="button" onClick={() => void exportAll()} disabled={disabled || working}>
          Export progress
        </button>
        <button type="button" onClick={() => file.current?.click()} disabled={disabled || working}>
          Import progress…
        </button>
        <JsonFileInput inputRef={file} label="Progress file to import" onFile={(f) => void importFile(f)} />
      </div>
      {message !== null && (
        <p className={message.kind === 'ok' ? 'progress-message small' : 'progress-message lesson-error small'} role={message.kind === 'ok' ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
    </section>
  );
}
