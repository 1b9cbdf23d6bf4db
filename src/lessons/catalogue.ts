import type { Lesson } from './lesson.js';
import { parseLesson } from './parse.js';

/** A lesson as the lesson list shows it, without its steps: what the page needs before a lesson is opened. */
export interface CatalogueEntry {
  /** The lesson file ("05-append-only-file.md"). */
  readonly file: string;
  readonly id: string;
  readonly number: number;
  /** The book's section, or "". */
  readonly section: string;
  readonly title: string;
  readonly summary: string;
  /** How many steps the lesson has, for "Step 3 of 7". */
  readonly steps: number;
}

/** Every lesson file, listed in file order; a file that does not parse is left out and its error kept. */
export interface Catalogue {
  readonly lessons: readonly CatalogueEntry[];
  readonly errors: readonly string[];
}

export function catalogueEntry(lesson: Lesson): CatalogueEntry {
  const { id, number, section, title, summary } = lesson.meta;
  return { file: lesson.file, id, number, section, title, summary, steps: lesson.steps.length };
}

/**
 * The catalogue of the given lesson files, each parsed and validated as
 * the runner will parse it when the lesson is opened: the page's build
 * makes it once (scripts/lesson-catalogue-plugin.ts), so the page lists
 * the lessons without parsing one.
 */
export function buildCatalogue(files: ReadonlyArray<{ readonly file: string; readonly text: string }>): Catalogue {
  const lessons: CatalogueEntry[] = [];
  const errors: string[] = [];
  for (const { file, text } of [...files].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    try {
      lessons.push(catalogueEntry(parseLesson(text, file)));
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
  }
  return { lessons, errors };
}
