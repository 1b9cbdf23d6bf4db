import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import catalogue from 'virtual:lesson-catalogue';
import { describe, expect, it } from 'vitest';
import { catalogueOfDir } from '../../../scripts/lesson-catalogue-plugin.js';
import { lessonFileNames, LESSONS_DIR, loadLesson } from '../../lessons/lesson-files.js';

describe('the lesson list made when the page is built', () => {
  it('lists every lesson file with the id, number, section, title, summary and step count its parse gives', () => {
    const parsed = lessonFileNames().map(loadLesson);
    expect(catalogue.errors).toEqual([]);
    expect(catalogue.lessons).toEqual(
      parsed.map((l) => ({ file: l.file, id: l.meta.id, number: l.meta.number, section: l.meta.section, title: l.meta.title, summary: l.meta.summary, steps: l.steps.length })),
    );
  });

  it('leaves out a lesson file that does not parse and keeps its error to show, listing the others in file order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lesson-catalogue-'));
    try {
      for (const f of ['02-snapshots.md', '00-workbook-and-keyspace.md']) writeFileSync(join(dir, f), readFileSync(join(LESSONS_DIR, f)));
      writeFileSync(join(dir, '01-broken.md'), '# no front matter\n');
      writeFileSync(join(dir, 'notes.md'), 'not a lesson file\n');
      const built = catalogueOfDir(dir);
      expect(built.lessons.map((l) => l.file)).toEqual(['00-workbook-and-keyspace.md', '02-snapshots.md']);
      expect(built.errors).toEqual(['01-broken.md: a lesson file starts with YAML front matter between two "---" lines']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
