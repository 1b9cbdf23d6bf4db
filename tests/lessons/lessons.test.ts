import { describe, expect, it } from 'vitest';
import { lessonFileNames, loadLesson } from './lesson-files.js';
import { checkLabel } from '../../src/lessons/check-words.js';
import { jargonIn } from './learner-words.js';
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

      it('says what each check asks for in words about the world, each once', () => {
        const lesson = loadLesson(file);
        for (const [i, step] of lesson.steps.entries()) {
          const labels = step.checks.map((c) => c.label ?? checkLabel(c));
          expect(new Set(labels).size, `step ${i + 1} "${step.title}" shows the same line twice: ${labels.join(' | ')}`).toBe(labels.length);
          for (const c of step.checks) {
            for (const text of [c.label, c['why-not']]) {
              if (text !== undefined) expect(jargonIn(text), `step ${i + 1}: "${text}"`).toBeNull();
            }
          }
          for (const l of labels) expect(jargonIn(l), `step ${i + 1}: "${l}"`).toBeNull();
        }
      });

      it('fails every check of a step when it begins and passes them after its reference solution, with the same transcript every time', async () => {
        const lesson = loadLesson(file);
        const first = await replayLesson(lesson);
        for (const [i, step] of first.steps.entries()) {
          const green = step.atStart.filter((r) => r.ok).map((r) => r.label);
          expect(green, `step ${i + 1} "${step.title}": checks done before the learner does anything`).toEqual([]);
          const failing = step.afterSolution.filter((r) => !r.ok).map((r) => r.message);
          expect(failing, `step ${i + 1} "${step.title}" after its solution`).toEqual([]);
          for (const r of [...step.atStart, ...step.afterSolution]) {
            for (const text of [r.label, r.detail, r.message]) expect(jargonIn(text), `step ${i + 1}: "${text}"`).toBeNull();
          }
        }
        const second = await replayLesson(lesson);
        expect(second.transcript).toBe(first.transcript);
        expect(second.traceHash).toBe(first.traceHash);
        await expect(first.transcript).toMatchFileSnapshot(`transcripts/${file.replace(/\.md$/, '.txt')}`);
        // Two replays of a lesson with a benchmark (16) take minutes of this process's time on a busy 2-core machine.
      }, 240_000);
    });
  }
});
