import catalogue from 'virtual:lesson-catalogue';
import type { Catalogue, CatalogueEntry } from '../../lessons/catalogue.js';
import type { Lesson } from '../../lessons/lesson.js';

/**
 * The lesson files of lessons/, bundled as text and loaded on demand, so
 * they add nothing to the page's first download.
 */
const files = import.meta.glob<string>('/lessons/[0-9][0-9]-*.md', { query: '?raw', import: 'default', eager: false });

export type { CatalogueEntry };

/**
 * The lesson list, made when the page was built: the picker shows it
 * without loading or parsing a lesson file.
 */
export function lessonCatalogue(): Catalogue {
  return catalogue;
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

/**
 * Loads and parses one lesson file, when it is opened; throws
 * LessonFormatError for a broken one. The parser (Markdown, YAML, the
 * schema) comes with the first lesson opened.
 */
export async function loadLessonFile(file: string): Promise<Lesson> {
  const load = files[`/lessons/${file}`];
  if (load === undefined) throw new Error(`no lesson file ${file}`);
  const [text, { parseLesson }] = await Promise.all([load(), import('../../lessons/parse.js')]);
  return parseLesson(text, file);
}
