import { describe, expect, it } from 'vitest';
import { lessonFileNames, loadLesson } from './lesson-files.js';
import { replayLesson } from './replay.js';

const files = lessonFileNames();

describe('the lessons', () => {
  it('are all there, numbered as the catalogue numbers them', () => {
    expect(files.map((f) => Number(f.slice(0, 2)))).toEqual(expect.arrayContaining([0, 2, 5, 11]));
  });

  for (const file of files) {
    describe(file, () => {
      it('is a valid lesson file', () => {
        const lesson = loadLesson(file);
        expect(lesson.steps.length).toBeGreaterThan(0);
      });

      it('fails each step\'s checks when it begins and passes them after its reference solution, with the same transcript every time', async () => {
        const lesson = loadLesson(file);
        const first = await replayLesson(lesson);
        for (const [i, step] of first.steps.entries()) {
          expect(step.atStart.every((r) => r.ok), `step ${i + 1} "${step.title}" passes before the learner does anything`).toBe(false);
          const failing = step.afterSolution.filter((r) => !r.ok).map((r) => r.message);
          expect(failing, `step ${i + 1} "${step.title}" after its solution`).toEqual([]);
        }
        const second = await replayLesson(lesson);
        expect(second.transcript).toBe(first.transcript);
        expect(second.traceHash).toBe(first.traceHash);
        await expect(first.transcript).toMatchFileSnapshot(`transcripts/${file.replace(/\.md$/, '.txt')}`);
      });
    });
  }
});
