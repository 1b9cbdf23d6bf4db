/**
 * The wandering learner as a suite over lesson files (wandering.ts): one
 * test per lesson, each taking a fixed number of paths (fewer for a lesson
 * heavy in simulated work). A failure
 * prints the seed and the shortest path found that breaks a promise;
 * rerun it with WANDER_SEED=<seed>, explore with WANDER_SEED=random and
 * WANDER_RUNS=<n>.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { lessonFileNames, loadLesson } from './lesson-files.js';
import { describePath, stepPathArb, wander, WanderFailure } from './wandering.js';

/**
 * How many paths each lesson takes, by lesson number: a fixed count, so the
 * same seed walks the same paths on any machine however busy it is. A lesson
 * heavy in simulated work (a benchmark, a million keys, a chain of replicas,
 * code cells) takes one; a light one takes more. A lesson not listed takes
 * DEFAULT_RUNS: list a new one here once its weight is known (its reference
 * solution's time in tests/lessons/replay.ts's replay is a fair guide: about
 * six seconds of paths per lesson on a 2-core machine).
 */
const RUNS_BY_LESSON: Readonly<Record<number, number>> = {
  0: 12,
  1: 6,
  2: 3,
  3: 1,
  4: 1,
  5: 3,
  6: 1,
  7: 10,
  8: 1,
  9: 1,
  10: 1,
  11: 12,
  13: 15,
  14: 10,
  16: 1,
  19: 2,
  21: 8,
};
const DEFAULT_RUNS = 2;

/** The wandering learner over the lesson files `pick` keeps (by their index in the catalogue). */
export function wanderingSuite(pick: (file: string, index: number) => boolean): void {
  const seedEnv = process.env.WANDER_SEED;
  const runsEnv = process.env.WANDER_RUNS;
  describe('a wandering learner', () => {
    lessonFileNames().forEach((file, index) => {
      if (!pick(file, index)) return;
      const lesson = loadLesson(file);
      const n = lesson.steps.length;
      // Fixed per lesson by default, so CI is reproducible.
      const seed = seedEnv === 'random' ? Date.now() % 2 ** 31 : seedEnv !== undefined ? Number(seedEnv) : 20260000 + lesson.meta.number;
      it(`never strands a learner in ${file} (seed ${seed})`, async () => {
        const runs = runsEnv !== undefined ? Number(runsEnv) : (RUNS_BY_LESSON[lesson.meta.number] ?? DEFAULT_RUNS);
        if (process.env.WANDER_VERBOSE) console.log(`${file}: ${runs} paths`);
        await fc.assert(
          fc.asyncProperty(fc.array(stepPathArb, { minLength: n, maxLength: n }), async (path) => {
            try {
              await wander(lesson, path);
            } catch (e) {
              const what = e instanceof WanderFailure ? e.message : `the workbook failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
              throw new WanderFailure(`${file}: ${what}\n  path: ${describePath(path)}`);
            }
          }),
          { seed, numRuns: runs },
        );
      }, 900_000);
    });
  });
}
