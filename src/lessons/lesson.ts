import type { Check, FrontMatter } from './schema.js';

/**
 * A lesson as the runner and the lesson pane use it: the front matter,
 * then steps, each an ordered list of blocks to show, the checks that say
 * when it is done, hints in order and a reference solution. Built from a
 * lesson file by parseLesson (parse.ts); plain data throughout.
 */
export interface Lesson {
  /** The file it came from ("05-append-only-file.md"). */
  readonly file: string;
  readonly meta: FrontMatter;
  /** Markdown shown before the first step. */
  readonly intro: string;
  readonly steps: readonly LessonStep[];
  /** Markdown shown once the last step is done. */
  readonly outro: string;
}

export interface LessonStep {
  readonly title: string;
  readonly blocks: readonly StepBlock[];
  readonly checks: readonly Check[];
  /** Markdown, shown one at a time, in order. */
  readonly hints: readonly string[];
  readonly solution: readonly SolutionEntry[];
}

export type StepBlock =
  /** Markdown prose. */
  | { readonly kind: 'prose'; readonly markdown: string }
  /** Lines a "run this" button types into a named terminal, one after the other. */
  | { readonly kind: 'run'; readonly terminal: string; readonly lines: readonly string[] }
  /** Scripted events, played by a button: the host shell's `sim` verbs, and start, stop, kill of a server. */
  | { readonly kind: 'events'; readonly label: string | null; readonly lines: readonly string[] }
  /** An editable JavaScript cell run by the code-cell engine from a host of the world. */
  | { readonly kind: 'cell'; readonly id: string; readonly from: string; readonly source: string };

export type SolutionEntry =
  | { readonly kind: 'line'; readonly terminal: string; readonly line: string }
  | { readonly kind: 'event'; readonly line: string }
  | { readonly kind: 'cell'; readonly id: string };

export type CellBlock = Extract<StepBlock, { kind: 'cell' }>;

/** Every code cell of a lesson, by id. */
export function lessonCells(lesson: Lesson): Map<string, CellBlock> {
  const cells = new Map<string, CellBlock>();
  for (const step of lesson.steps) for (const b of step.blocks) if (b.kind === 'cell') cells.set(b.id, b);
  return cells;
}
