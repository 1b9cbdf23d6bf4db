import { lazy, type ComponentType } from 'react';
import { LaterPart } from '../layout/later-part.js';
import { bytesToUtf8 } from '../../../emulator/resp/index.js';
import type { StepBlock } from '../../lessons/lesson.js';
import { MarkdownView } from './markdown-view.js';

/**
 * The code-cell component, when the page has one: looked up by a glob so
 * the lesson pane builds with or without it (a lesson's cells then show
 * their code read-only).
 */
interface CodeCellProps {
  cellId: string;
  source: string;
  from: string;
  onSourceChange?: (source: string) => void;
}
const cellModules = import.meta.glob<{ CodeCellView: ComponentType<CodeCellProps> }>('../code-cell/code-cell-view.tsx');
const loadCell = cellModules['../code-cell/code-cell-view.tsx'];
const CodeCell = loadCell === undefined ? null : lazy(async () => ({ default: (await loadCell()).CodeCellView }));

export interface BlockActions {
  /** The block being played, if any: every button waits for it. */
  readonly busy: string | null;
  run(key: string, terminal: string, lines: readonly string[]): void;
  play(key: string, lines: readonly string[]): void;
  editCell(id: string, source: string): void;
}

/** One block of a step: prose, lines to run, events to play, or a code cell. */
export function StepBlockView({ block, blockKey, output, actions }: { block: StepBlock; blockKey: string; output: string | undefined; actions: BlockActions }) {
  switch (block.kind) {
    case 'prose':
      return <MarkdownView text={block.markdown} />;
    case 'run':
      return (
        <div className="lesson-block run-block">
          <div className="block-head">
            <span className="block-where">
              in <strong>{block.terminal}</strong>
            </span>
            <button
              type="button"
              className="primary"
              disabled={actions.busy !== null}
              aria-label={`Run in ${block.terminal}: ${block.lines.join('; ')}`}
              onClick={() => actions.run(blockKey, block.terminal, block.lines)}
            >
              {actions.busy === blockKey ? 'Running…' : '▶ Run'}
            </button>
          </div>
          <pre className="block-lines">
            <code>{block.lines.join('\n')}</code>
          </pre>
        </div>
      );
    case 'events': {
      const playing = actions.busy === blockKey;
      const label = block.label ?? 'Events';
      return (
        <div className="lesson-block events-block">
          <div className="block-head">
            <span className="block-where">{label}</span>
            <button type="button" className="primary" disabled={actions.busy !== null} aria-label={`Play: ${label}`} onClick={() => actions.play(blockKey, block.lines)}>
              {playing ? 'Playing…' : '▶ Play'}
            </button>
          </div>
          <pre className="block-lines">
            <code>{block.lines.join('\n')}</code>
          </pre>
          {output !== undefined && (
            <pre className="block-output" aria-label={`What happened: ${label}`} tabIndex={0}>
              {visibleText(output)}
            </pre>
          )}
        </div>
      );
    }
    case 'cell':
      if (CodeCell !== null) {
        return (
          <LaterPart what="The code cell" loading={<pre className="block-lines">{block.source}</pre>}>
            <CodeCell cellId={block.id} source={block.source} from={block.from} onSourceChange={(s) => actions.editCell(block.id, s)} />
          </LaterPart>
        );
      }
      return (
        <div className="lesson-block cell-block">
          <div className="block-head">
            <span className="block-where">
              code cell <strong>{block.id}</strong>, from {block.from}
            </span>
          </div>
          <pre className="block-lines">
            <code>{block.source}</code>
          </pre>
          <p className="muted small">Code cells cannot run in this build of the workbook; here is the code to read.</p>
        </div>
      );
  }
}

/**
 * Shell output made safe to show as text: carriage returns of progress
 * lines keep only what a terminal would leave, other control characters
 * are shown in caret notation.
 */
export function visibleText(bytes: string): string {
  const text = bytesToUtf8(bytes)
    .split('\n')
    .map((line) => {
      const parts = line.replace(/\r$/, '').split('\r');
      return parts[parts.length - 1]!;
    })
    .join('\n');
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === '\x7f' ? '^?' : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`));
}
