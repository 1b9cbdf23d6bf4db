/**
 * The wandering learner as a suite over lesson files (wandering.ts): one
 * test per lesson, its paths counted against a budget so that a heavy
 * lesson (a benchmark in virtual time) takes fewer. A failure
 * prints the seed and the shortest path found that breaks a promise;
 * rerun it with WANDER_SEED=<seed>, explore with WANDER_SEED=random and
 * WANDER_RUNS=<n>.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { HeadlessLessonHost } from '../../src/lessons/headless.js';
import { LessonRunner } from '../../src/lessons/runner.js';
import { lessonFileNames, loadLesson } from './lesson-files.js';
import { inProcessCells } from './replay.js';
import { describePath, stepPathArb, wander, WanderFailure } from './wandering.js';

/**
 * What the paths of one lesson may cost together, in milliseconds of this
 * machine's time, measured on the lesson's reference solution: a lesson
 * heavy in simulated work (a benchmark, millions of keys) takes fewer
 * paths. Only the number of paths depends on it; nothing is asserted on
 * time, and with the same seed the paths are the same, fewer or more.
 */
const BUDGET_MS = 6_000;
const MAX_RUNS = 25;

/** How long the lesson's reference solution takes here, start to end. */
async function referenceMs(file: string): Promise<number> {
  const lesson = loadLesson(file);
  const host = new HeadlessLessonHost();
  const runner = new LessonRunner(lesson, host, inProcessCells(host));
  const started = performance.now();
  runner.start();
  for (let i = 0; i < lesson.steps.length; i++) {
    await runner.playSolution(i);
    await runner.next();
  }
  return performance.now() - started;
}

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
        const runs = runsEnv !== undefined ? Number(runsEnv) : Math.max(1, Math.min(MAX_RUNS, Math.floor(BUDGET_MS / (await referenceMs(file)))));
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
