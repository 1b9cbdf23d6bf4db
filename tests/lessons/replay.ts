import type { CheckResult } from '../../src/lessons/checks.js';
import { HeadlessLessonHost } from '../../src/lessons/headless.js';
import type { Lesson } from '../../src/lessons/lesson.js';
import { LessonRunner, type LessonRunnerOptions } from '../../src/lessons/runner.js';
import { runCellInProcess } from '../../src/code-cell/run-in-process.js';

export interface StepReplay {
  readonly title: string;
  /** The step's checks when it began: at least one fails. */
  readonly atStart: readonly CheckResult[];
  /** After its reference solution: all pass. */
  readonly afterSolution: readonly CheckResult[];
}

export interface Replay {
  readonly steps: readonly StepReplay[];
  /** Every terminal's screen, the events' output and each step's check results, in order. */
  readonly transcript: string;
  readonly traceHash: string;
}

/** Code cells run in process, on the lesson's world; what they print goes into the transcript. */
export function inProcessCells(host: HeadlessLessonHost): LessonRunnerOptions {
  return {
    runCell: async (cell, source) => {
      const out = await runCellInProcess(host.world, { cellId: cell.id, source, from: cell.from });
      for (const line of out.output) host.note(`[cell ${cell.id}] ${line}`);
      if (out.error !== null) host.note(`[cell ${cell.id}] ${out.error.name}: ${out.error.message}${out.error.line !== null ? ` (line ${out.error.line})` : ''}`);
      return { status: out.stopped ? 'stopped' : out.error !== null ? 'failed' : 'done', reports: out.reports, error: out.error };
    },
  };
}

/**
 * Plays a lesson as a learner who follows its reference solution would:
 * a fresh world, then each step's solution in turn, noting the checks
 * before and after.
 */
export async function replayLesson(lesson: Lesson): Promise<Replay> {
  const host = new HeadlessLessonHost();
  const runner = new LessonRunner(lesson, host, inProcessCells(host));
  runner.start();
  const steps: StepReplay[] = [];
  for (let i = 0; i < lesson.steps.length; i++) {
    const title = lesson.steps[i]!.title;
    host.note(`=== step ${i + 1}: ${title}`);
    const atStart = runner.evaluate().results;
    await runner.playSolution(i);
    const afterSolution = runner.evaluate().results;
    for (const r of runner.stepStatus.results) host.note(`${r.ok ? 'PASS' : 'FAIL'} ${r.label} (${r.detail})`);
    steps.push({ title, atStart, afterSolution });
    runner.next();
  }
  return { steps, transcript: host.transcript, traceHash: host.world.trace.hash() };
}
