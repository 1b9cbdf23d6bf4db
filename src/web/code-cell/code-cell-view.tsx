import { useCallback, useEffect, useId, useRef, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import { useStore } from '../store-context.js';
import { visibleControls } from '../terminal/sanitize.js';
import { CellReports } from './cell-reports.js';
import { codeCells, type CellRunState } from './cell-runs.js';
import { indent } from './indent.js';
import { useWrappedLineHeights } from './wrapped-lines.js';
import './code-cell.css';

export interface CodeCellProps {
  /** The cell's name, unique on the page (a lesson's `id=`). */
  readonly cellId: string;
  /** Its code as the lesson gives it. */
  readonly source: string;
  /** The host of the world its clients run on. */
  readonly from: string;
  /** The server `redis` reaches ('host:port'); the world's first redis-server when absent. */
  readonly to?: string;
  /** Told of every edit (a lesson keeps the edited text for its solution). */
  readonly onSourceChange?: (source: string) => void;
}

/**
 * A code cell: editable JavaScript against the world's ioredis-shaped
 * client, with Run and Stop, what it printed, its error with the line,
 * and its reports (numbers, tables, charts). The code runs in a Web
 * Worker (cell-runs.ts), never in the page.
 *
 * Keys in the editor: Tab indents, Shift+Tab outdents, Ctrl+Enter (or
 * Cmd+Enter) runs; Escape then Tab leaves the editor, so the keyboard is
 * never trapped.
 */
export function CodeCellView({ cellId, source, from, to, onSourceChange }: CodeCellProps) {
  const store = useStore();
  const cells = codeCells(store);
  const run = useSyncExternalStore(cells.subscribe, () => cells.state(cellId));
  const busy = useSyncExternalStore(cells.subscribe, () => cells.running);
  // The engine a Run needs is made while the learner reads, not when Run is pressed.
  useEffect(() => cells.prepare(), [cells]);
  const [base, setBase] = useState(source);
  const [code, setCode] = useState(source);
  const [leaving, setLeaving] = useState(false);
  const gutter = useRef<HTMLPreElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const ids = useId();
  if (base !== source) {
    // The lesson gave new text (a reset): it replaces the edits.
    setBase(source);
    setCode(source);
  }

  const edit = useCallback(
    (next: string) => {
      setCode(next);
      onSourceChange?.(next);
    },
    [onSourceChange],
  );

  const running = run.status === 'running';
  const otherRunning = busy !== null && busy !== cellId;
  const start = useCallback(() => {
    if (cells.running === null) cells.run(cellId, code, { from, to });
  }, [cells, cellId, code, from, to]);
  const stop = useCallback(() => cells.stop(), [cells]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (running) return;
      start();
      return;
    }
    if (e.key === 'Escape') {
      setLeaving(true);
      return;
    }
    if (e.key === 'Tab' && !leaving && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      const t = e.currentTarget;
      const { text, selStart, selEnd } = indent(t.value, t.selectionStart, t.selectionEnd, e.shiftKey);
      edit(text);
      // The caret moves once React has put the new text in.
      requestAnimationFrame(() => t.setSelectionRange(selStart, selEnd));
      return;
    }
    if (leaving) setLeaving(false);
  };

  const lines = code.split('\n').length;
  // Long lines wrap at the cell's edge (a narrow pane cuts nothing); each number takes its line's height.
  const lineHeights = useWrappedLineHeights(area, code);
  const errorLine = run.error?.line ?? null;
  return (
    <section className="code-cell" aria-label={`Code cell ${cellId}`} data-status={run.status} data-runs={run.runs}>
      <div className="cell-toolbar">
        <span className="cell-title">
          <span className="cell-lang" aria-hidden="true">JS</span> {cellId}
          <span className="muted"> · runs on {from}</span>
        </span>
        <span className="cell-buttons">
          <button type="button" className="cell-run" onClick={start} disabled={running || otherRunning} aria-label={`Run cell ${cellId}`} title="Run (Ctrl+Enter)">
            ▶ Run
          </button>
          <button type="button" className="cell-stop" onClick={stop} disabled={!running} aria-label={`Stop cell ${cellId}`}>
            ■ Stop
          </button>
          <button type="button" className="cell-reset" onClick={() => edit(source)} disabled={code === source || running} aria-label={`Put back the original code of cell ${cellId}`}>
            Reset
          </button>
        </span>
      </div>
      <div className="cell-editor">
        <pre ref={gutter} className="cell-gutter" aria-hidden="true">
          {Array.from({ length: lines }, (_, i) => (
            <span key={i} className={i + 1 === errorLine ? 'cell-gutter-error' : undefined} style={lineHeights?.[i] === undefined ? undefined : { height: lineHeights[i] }}>
              {i + 1}
            </span>
          ))}
        </pre>
        <textarea
          ref={area}
          className="cell-code"
          value={code}
          onChange={(e) => edit(e.target.value)}
          onKeyDown={onKeyDown}
          onBlur={() => setLeaving(false)}
          onScroll={(e) => {
            if (gutter.current !== null) gutter.current.scrollTop = e.currentTarget.scrollTop;
          }}
          rows={Math.min(24, Math.max(4, lines))}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          aria-label={`Code of cell ${cellId}`}
          aria-describedby={`${ids}-keys`}
          wrap="soft"
        />
      </div>
      <p id={`${ids}-keys`} className="cell-keys muted">
        Ctrl+Enter runs · Tab indents · Esc then Tab leaves the editor
      </p>
      <CellStatusLine run={run} otherRunning={otherRunning} />
      {(run.output.length !== 0 || run.dropped !== 0) && (
        <pre className="cell-output" role="log" aria-label={`Output of cell ${cellId}`} tabIndex={0}>
          {run.dropped !== 0 && <span className="muted">{`… ${run.dropped} earlier lines not kept\n`}</span>}
          {visibleControls(run.output.join('\n'))}
        </pre>
      )}
      {run.error !== null && (
        <p className="cell-error" role="alert">
          {visibleControls(`${run.error.name}: ${run.error.message}`)}
          {run.error.line !== null && <span className="cell-error-where">{` (line ${run.error.line}${run.error.column !== null ? `, column ${run.error.column}` : ''})`}</span>}
        </p>
      )}
      <CellReports reports={run.reports} />
    </section>
  );
}

function CellStatusLine({ run, otherRunning }: { run: CellRunState; otherRunning: boolean }) {
  let text = '';
  const progress = run.status === 'running' ? run.progress : null;
  if (progress !== null) {
    const share = progress.fraction === null ? '' : ` (${Math.floor(progress.fraction * 100)}%)`;
    text = `Running… ${progress.text}${share}, ${seconds(run.virtualMs)} of virtual time so far.`;
  } else if (run.status === 'running') text = run.virtualMs > 0 ? `Running… ${seconds(run.virtualMs)} of virtual time so far.` : 'Running…';
  else if (run.status === 'done') text = `Done: ${seconds(run.virtualMs)} of virtual time, in ${seconds(run.wallMs)} here.`;
  else if (run.status === 'failed') text = `Stopped by an error after ${seconds(run.virtualMs)} of virtual time.`;
  else if (run.status === 'stopped') text = `Stopped after ${seconds(run.virtualMs)} of virtual time.`;
  else if (otherRunning) text = 'Another cell is running; this one can run once it ends.';
  return (
    <p className="cell-status" role="status">
      {progress !== null && progress.fraction !== null && (
        <progress className="cell-progress" max={1} value={progress.fraction} aria-label={`Progress: ${progress.text}`} />
      )}
      {text}
    </p>
  );
}

function seconds(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s`;
  return ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(2)} ms`;
}
