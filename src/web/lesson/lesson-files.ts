import type { Lesson } from '../../lessons/lesson.js';
import { parseLesson } from '../../lessons/parse.js';

/**
 * The lesson files of lessons/, bundled as text and loaded on demand, so
 * they add nothing to the page's first download.
 */
const files = import.meta.glob<string>('/lessons/[0-9][0-9]-*.md', { query: '?raw', import: 'default', eager: false });

/** The catalogue's entries, as the picker lists them. */
export interface CatalogueEntry {
  readonly file: string;
  readonly id: string;
  readonly number: number;
  readonly section: string;
  readonly title: string;
  readonly summary: string;
  readonly steps: number;
}

/** The file names of every lesson, in catalogue order. */
export function lessonFileNames(): string[] {
  return Object.keys(files)
    .map((p) => p.slice(p.lastIndexOf('/') + 1))
    .sort();
}

/** The id of every lesson, read from the file names (a lesson's file is NN-<id>.md), without loading one. */
export function lessonIds(): string[] {
  return lessonFileNames().map((f) => f.replace(/^\d+-/, '').replace(/\.md$/, ''));
}

/** Loads and parses one lesson file; throws LessonFormatError for a broken one. */
export async function loadLessonFile(file: string): Promise<Lesson> {
  const load = files[`/lessons/${file}`];
  if (load === undefined) throw new Error(`no lesson file ${file}`);
  return parseLesson(await load(), file);
}

/** Every lesson, parsed; a file that fails to parse is left out and its error returned. */
export async function loadCatalogue(): Promise<{ lessons: Lesson[]; errors: string[] }> {
  const results = await Promise.allSettled(lessonFileNames().map((f) => loadLessonFile(f)));
  const lessons: Lesson[] = [];
  const errors: string[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') lessons.push(r.value);
    else errors.push(r.reason instanceof Error ? r.reason.message : String(r.reason));
  }
  return { lessons, errors };
}
