import { describe, expect, it } from 'vitest';
import { LessonShelf } from '../../../src/web/lesson/lesson-shelf.js';
import { MemoryStore } from '../../../src/web/session/kv-store.js';
import { checkSession } from '../../../src/web/session/session-data.js';
import { MAX_LINK_CHARS, openSharedMoment, shareLink, sharedSessionText, SHARE_PREFIX } from '../../../src/web/session/share-link.js';
import { digest, sessionHarness } from './session-harness.js';

describe('share links', () => {
  it('hold the moment in the fragment: opened in another page, the same world at the same instant', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET k v');
    h.store.sendLine(cli.id, 'INCR n');
    await h.run(100);
    h.session.checkpoint();
    h.store.pause();
    const before = digest(h.store.world);
    const now = h.store.world.kernel.now;

    const r = await shareLink(h.session.exportSession(), 'http://localhost:5173/#old');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.url.startsWith(`http://localhost:5173/${SHARE_PREFIX}`)).toBe(true);
    const read = await sharedSessionText(new URL(r.url).hash);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    // The link keeps only the present of the active branch.
    const checked = checkSession(JSON.parse(read.text));
    expect(checked.ok && checked.session.checkpoints.length).toBe(0);

    const other = sessionHarness();
    const opened = other.session.importText(read.text);
    await other.idle();
    expect(await opened).toEqual({ ok: true });
    expect(digest(other.store.world)).toBe(before);
    expect(other.store.world.kernel.now).toBe(now);
    expect(other.store.driver.isPaused).toBe(true);
  });

  it('says so rather than make a link too long to pass around', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    // Values that do not compress, as an uploaded file's bytes would not.
    let x = 12345;
    const next = (): number => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    const noise = (): string => Array.from({ length: 2000 }, () => String.fromCharCode(97 + (next() % 26))).join('');
    for (let i = 0; i < 60; i++) h.store.sendLine(cli.id, `SET k${i} ${noise()}`);
    await h.run(2000);
    expect(h.store.world.redis('redis')!.server.dbs[0]!.size).toBe(60);
    const r = await shareLink(h.session.exportSession(), 'http://localhost:5173/');
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/^This moment is too big for a link \(\d+ KB; a link holds up to 64 KB\).*Export the session as a file instead\.$/) });
    expect(MAX_LINK_CHARS).toBe(64 * 1024);
  });

  it('refuses a damaged link in words', async () => {
    expect(await sharedSessionText(`${SHARE_PREFIX}not-deflate`)).toEqual({ ok: false, message: 'This link is damaged (cut short, perhaps, when it was copied): the moment it held cannot be read.' });
    expect((await sharedSessionText('#share=9.abc')).ok).toBe(false);
  });

  it('refuses a link to a lesson this workbook lacks, or a damaged one, in words, and leaves the learner\'s own session as it was', async () => {
    // The learner's own work, saved.
    const mine = sessionHarness();
    expect(await mine.load()).toBe(false);
    const cli = mine.open();
    await mine.run(50);
    mine.store.sendLine(cli.id, 'SET mine kept');
    await mine.run(100);
    await mine.session.save();
    const before = digest(mine.store.world);

    // A moment of a lesson a later workbook has and this one does not.
    const other = sessionHarness();
    other.open();
    await other.run(50);
    const file = other.session.exportSession();
    const link = await shareLink({ ...file, state: { ...file.state, lesson: { lesson: 'a-lesson-yet-to-come', progress: { step: 1, done: [false] } } } }, 'http://localhost:5173/');
    expect(link.ok).toBe(true);
    if (!link.ok) return;

    for (const fragment of [new URL(link.url).hash, new URL(link.url).hash.slice(0, 40)]) {
      expect(await mine.until(openSharedMoment(mine.session, fragment))).toBe(false);
      const notice = mine.session.getSnapshot().notice;
      expect(notice?.kind).toBe('error');
      expect(notice?.text).toMatch(fragment.length === 40 ? /damaged/ : /"a-lesson-yet-to-come", which this workbook does not have.*your own work is as you left it/);
      expect(digest(mine.store.world)).toBe(before);
      expect(mine.store.world.redis('redis')).toBeDefined();
      // What the browser keeps is the learner's session still: the page reloaded finds it.
      await mine.session.save();
      const reloaded = sessionHarness({ kv: mine.kv });
      expect(await reloaded.load()).toBe(true);
      expect(digest(reloaded.store.world)).toBe(before);
    }
    // The page goes on: the learner's terminal still answers.
    mine.store.sendLine(cli.id, 'GET mine');
    await mine.run(100);
    expect(cli.lines()).toContain('"kept"');
  });

  it('keeps the lesson open now, with its whole session, before a shared moment takes its place', async () => {
    const mine = sessionHarness();
    expect(await mine.load()).toBe(false);
    // A lesson under way: the session holds it, the shelf knows how far it came.
    mine.providers.register({ key: 'lesson', save: () => ({ lesson: 'append-only-file', progress: { step: 2, done: [true, true, false] } }), restore: () => undefined });
    const shelf = new LessonShelf(new MemoryStore());
    await shelf.note({ id: 'append-only-file', step: 2, steps: 7, done: 2, finished: false, savedAt: '2026-11-27T08:00:00.000Z' });
    const cli = mine.open();
    await mine.run(50);
    mine.store.sendLine(cli.id, 'SET mine kept');
    await mine.run(100);
    const before = digest(mine.store.world);

    expect(await openAnotherLearnersMoment(mine, shelf)).toBe(true);
    await mine.idle();
    expect(digest(mine.store.world)).not.toBe(before);

    // The lesson left for the link comes back where it was.
    const kept = await shelf.session('append-only-file');
    expect(kept).not.toBeNull();
    const again = sessionHarness();
    expect(await again.until(again.session.openKept(kept, 'Opening the lesson'))).toBe(true);
    expect(digest(again.store.world)).toBe(before);
    expect(shelf.record('append-only-file')?.step).toBe(2);
  });

  it('opens a lesson moment marked as shared, and never keeps one in place of the learner\'s own session of the lesson', async () => {
    // The learner's own session of lesson 5, kept on the shelf when they left it.
    const own = sessionHarness();
    const ownCli = own.open();
    await own.run(50);
    own.store.sendLine(ownCli.id, 'SET mine kept');
    await own.run(100);
    const ownFile = own.session.exportSession();
    const shelf = new LessonShelf(new MemoryStore());
    const record = { id: 'append-only-file', step: 2, steps: 7, done: 2, finished: false, savedAt: '2026-11-27T08:00:00.000Z' };
    await shelf.stow(record, { ...ownFile, state: { lesson: { lesson: 'append-only-file', progress: { step: 2 } } } });

    // Someone else's moment of the same lesson, as a link.
    const other = sessionHarness();
    other.providers.register({ key: 'lesson', save: () => ({ lesson: 'append-only-file', progress: { step: 5 } }), restore: () => undefined });
    const cli = other.open();
    await other.run(50);
    other.store.sendLine(cli.id, 'SET theirs shared');
    await other.run(100);
    const link = await shareLink(other.session.exportSession(), 'http://localhost:5173/');
    expect(link.ok).toBe(true);
    if (!link.ok) return;

    // Opened, it is marked as a shared moment; opened again over itself, the shelf keeps the learner's own.
    const page = sessionHarness();
    for (let i = 0; i < 2; i++) {
      expect(await page.until(openSharedMoment(page.session, new URL(link.url).hash, shelf))).toBe(true);
      await page.idle();
      expect(page.session.exportSession().state).toEqual({ lesson: { lesson: 'append-only-file', progress: { step: 5 }, shared: true } });
      expect(page.session.getSnapshot().notice?.text).toBe('This is the moment the link was made at. Your own progress in this lesson is kept as you left it.');
      expect(digest(page.store.world)).toBe(digest(other.store.world));
    }
    const kept = await shelf.session('append-only-file');
    expect((kept as { state: unknown }).state).toEqual({ lesson: { lesson: 'append-only-file', progress: { step: 2 } } });
    const again = sessionHarness();
    expect(await again.until(again.session.openKept(kept, 'Opening the lesson'))).toBe(true);
    expect(digest(again.store.world)).toBe(digest(own.store.world));
    expect(shelf.record('append-only-file')).toEqual(record);
  });

  it('opens the learner\'s own lesson asked for while a shared moment is still being rebuilt, once the rebuild ends, instead of refusing it', async () => {
    // Two sessions kept as data: someone else's moment and the learner's own.
    const sessions = ['theirs', 'mine'].map((name) => {
      const h = sessionHarness();
      const cli = h.open();
      return { h, cli, name };
    });
    for (const { h, cli, name } of sessions) {
      await h.run(50);
      h.store.sendLine(cli.id, `SET who ${name}`);
      await h.run(100);
    }
    const [theirs, mine] = sessions.map(({ h }) => h.session.exportSession());

    // The wall clock moves on at each reading, so the replay yields between slices as a page's does.
    const page = sessionHarness({ wallStepMs: 5 });
    // The shared moment's rebuild is under way (a reload restoring it) when the learner asks for their own.
    const shared = page.session.openKept(theirs, 'Restoring your session');
    // Reading a session loads its checks first (a dynamic import: real time, no frames); no frame runs meanwhile, so the replay waits at its first slice.
    for (const started = Date.now(); page.session.getSnapshot().busy === null && Date.now() - started < 20_000; ) await new Promise((r) => setTimeout(r, 5));
    expect(page.session.getSnapshot().busy?.label).toBe('Restoring your session');
    const own = page.session.openKept(mine, 'Opening the lesson where you left it');
    expect(await page.until(shared)).toBe(true);
    expect(await page.until(own)).toBe(true);
    expect(digest(page.store.world)).toBe(digest(sessions[1]!.h.store.world));
  });

  it('keeps the lesson open now at the step its session has reached, though the list\'s record of it lags behind', async () => {
    const mine = sessionHarness();
    expect(await mine.load()).toBe(false);
    // The session is at step 4; the shelf's record, written a moment after each change, still says step 2.
    mine.providers.register({ key: 'lesson', save: () => ({ lesson: 'append-only-file', progress: { step: 3, done: [true, true, true, false] } }), restore: () => undefined });
    const shelf = new LessonShelf(new MemoryStore());
    await shelf.note({ id: 'append-only-file', step: 1, steps: 7, done: 1, finished: false, savedAt: '2026-11-27T08:00:00.000Z' });
    mine.open();
    await mine.run(50);

    expect(await openAnotherLearnersMoment(mine, shelf)).toBe(true);
    expect(shelf.record('append-only-file')).toMatchObject({ step: 3, steps: 7, done: 3, finished: false });
  });
});

/** Someone else's fresh moment, made into a link and opened in the learner's page over the lesson they have open. */
async function openAnotherLearnersMoment(mine: ReturnType<typeof sessionHarness>, shelf: LessonShelf): Promise<boolean> {
  const other = sessionHarness();
  other.open();
  await other.run(50);
  const link = await shareLink(other.session.exportSession(), 'http://localhost:5173/');
  if (!link.ok) throw new Error(`no link: ${JSON.stringify(link)}`);
  return mine.until(openSharedMoment(mine.session, new URL(link.url).hash, shelf));
}
