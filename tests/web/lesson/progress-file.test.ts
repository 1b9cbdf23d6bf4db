import { describe, expect, it } from 'vitest';
import { parseProgressText, progressFile } from '../../../src/web/lesson/progress-file.js';
import type { SessionFile } from '../../../src/web/session/session-format.js';
import { sessionHarness } from '../session/session-harness.js';

/** A real session of the lesson `id`, as the shelf keeps one. */
async function lessonSession(id: string): Promise<SessionFile> {
  const h = sessionHarness();
  const cli = h.open();
  await h.run(50);
  h.store.sendLine(cli.id, 'SET greeting hello');
  await h.run(50);
  const s = h.session.exportSession();
  return { ...s, state: { lesson: { lesson: id, progress: { step: 1 } } } };
}

const record = (id: string, step = 1) => ({ id, step, steps: 6, done: step, finished: false, savedAt: '2026-11-27T05:00:00.000Z' });

describe('the progress file', () => {
  it('reads back what it wrote: every lesson, its record and its session', async () => {
    const session = await lessonSession('workbook-and-keyspace');
    const text = JSON.stringify(progressFile([{ record: record('workbook-and-keyspace'), session }, { record: record('snapshots', 3), session: null }], '2026-11-27T05:00:00.000Z'));
    const parsed = parseProgressText(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.progress.lessons.map((l) => [l.record.id, l.record.step, l.session === null])).toEqual([
      ['workbook-and-keyspace', 1, false],
      ['snapshots', 3, true],
    ]);
    expect(parsed.progress.lessons[0]!.session!.logs).toEqual(JSON.parse(JSON.stringify(session.logs)));
  });

  it('refuses, in words for the learner, what is not a sound progress file', async () => {
    const session = await lessonSession('snapshots');
    const file = (lessons: unknown[]) => JSON.stringify({ format: 'redis-workbook-progress', version: 1, savedAt: '', lessons });
    const cases: Array<[string, string]> = [
      ['{', 'This file is not a Redis workbook progress file: it is not JSON.'],
      [JSON.stringify(session), 'This is a session file, not a progress file: import it with Import… under History.'],
      ['{"format": "something else"}', 'This is not a Redis workbook progress file (the file has no "format": "redis-workbook-progress").'],
      ['{"format": "redis-workbook-progress", "version": 2}', 'This progress file has version 2; this workbook reads version 1.'],
      [file([{ record: { ...record('snapshots'), id: '../x' }, session: null }]), 'The progress file is damaged: lessons.0.record.id: not a lesson name.'],
      [file([{ record: record('snapshots'), session: null }, { record: record('snapshots'), session: null }]), 'The progress file is damaged: the lesson "snapshots" is there twice.'],
      [file([{ record: record('workbook-and-keyspace'), session }]), 'The progress file is damaged: the session filed under the lesson "workbook-and-keyspace" is not of that lesson.'],
      [file([{ record: record('snapshots'), session: { ...session, activeBranch: 'nowhere' } }]), 'The progress file is damaged: the lesson "snapshots": The session file is damaged: the active branch is not among the branches.'],
    ];
    for (const [text, message] of cases) expect(parseProgressText(text)).toEqual({ ok: false, message });
  });
});
