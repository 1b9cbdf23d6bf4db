import type { CellRunView } from '../../lessons/checks.js';
import type { LessonRunnerOptions } from '../../lessons/runner.js';
import type { WorldStore } from '../world-store.js';
import { codeCells, runCellToEnd, type CellRunState } from './cell-runs.js';

/**
 * What a lesson runner in the page needs from the code cells: playing a
 * solution's cells (through the page's worker, as the Run button does),
 * and every cell's last run for the lesson's cell checks, however it was
 * started.
 *
 *   new LessonRunner(lesson, host, { worldSetup, ...lessonCellOptions(store) });
 */
export function lessonCellOptions(store: WorldStore): Pick<LessonRunnerOptions, 'runCell' | 'cellRun'> {
  const cells = codeCells(store);
  return {
    runCell: async (cell, source) => view(await runCellToEnd(cells, cell.id, source, { from: cell.from })) ?? undefined,
    cellRun: (id) => view(cells.state(id)),
  };
}

function view(s: CellRunState): CellRunView | null {
  if (s.status === 'idle') return null;
  return { status: s.status, reports: s.reports, error: s.error };
}
