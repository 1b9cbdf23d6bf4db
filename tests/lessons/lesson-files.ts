import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lesson } from '../../src/lessons/lesson.js';
import { parseLesson } from '../../src/lessons/parse.js';

/** The lesson files of the repository, as the page bundles them. */
export const LESSONS_DIR = join(import.meta.dirname, '../../lessons');

export function lessonFileNames(): string[] {
  return readdirSync(LESSONS_DIR)
    .filter((n) => /^\d\d-.*\.md$/.test(n))
    .sort();
}

export function loadLesson(name: string): Lesson {
  return parseLesson(readFileSync(join(LESSONS_DIR, name), 'utf8'), name);
}
