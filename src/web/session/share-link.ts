import { lessonIds } from '../lesson/lesson-files.js';
import { LESSON_STATE_KEY } from '../lesson/lesson-keeping.js';
import type { LessonRecord, LessonShelf } from '../lesson/lesson-shelf.js';
import type { Moment, SessionFile } from './session-format.js';
import type { WorkbookSession } from './workbook-session.js';

/**
 * A moment of the workbook as a link: the active branch's seed and
 * action log up to now, the terminals as they are and the lesson's
 * progress, compressed into the URL's fragment. A fragment never goes to
 * a server, so nothing leaves the page: whoever opens the link rebuilds
 * the same world, at the same instant, in their own browser. Loaded
 * when a link is made or opened, never with the page.
 *
 *   const r = await shareLink(session.exportSession(), location.href);
 *   if (r.ok) show(r.url); else say(r.message);
 */

/** The fragment's start; the version lets a later workbook read older links. */
export const SHARE_PREFIX = '#share=1.';
/**
 * The longest link offered. Browsers take longer ones, but chat and mail
 * programs cut or refuse them: a link longer than this is not made.
 */
export const MAX_LINK_CHARS = 64 * 1024;
/** The most a link may unpack to: a link is never a way to fill the page's memory. */
const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;
/** Each terminal keeps the newest part of its screen and of its history in a link. */
const SCREEN_CHARS = 4000;
const HISTORY_LINES = 50;

export type ShareLink = { ok: true; url: string } | { ok: false; message: string };

/** The link to the session's present on its active branch, made from the page's address `base`. */
export async function shareLink(file: SessionFile, base: string): Promise<ShareLink> {
  const packed = base64url(await deflate(new TextEncoder().encode(JSON.stringify(momentOnly(file)))));
  const url = base.replace(/#.*$/, '') + SHARE_PREFIX + packed;
  if (url.length > MAX_LINK_CHARS) {
    return {
      ok: false,
      message: `This moment is too big for a link (${Math.ceil(url.length / 1024)} KB; a link holds up to ${MAX_LINK_CHARS / 1024} KB), most likely because of files uploaded into the world. Export the session as a file instead.`,
    };
  }
  return { ok: true, url };
}

/** The session file's text a link's fragment holds, or why it holds none. */
export async function sharedSessionText(fragment: string): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  if (!fragment.startsWith(SHARE_PREFIX)) return { ok: false, message: 'This link was made by another version of the workbook, which this one cannot read.' };
  try {
    const bytes = await inflate(unbase64url(fragment.slice(SHARE_PREFIX.length)));
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, message: 'This link is damaged (cut short, perhaps, when it was copied): the moment it held cannot be read.' };
  }
}

/**
 * Opens the moment a link's fragment holds in place of the session; says
 * why when it cannot, and then leaves the learner's session as it was.
 * A moment in a lesson opens marked as shared: the lesson pane shows it
 * beside the learner's own progress in that lesson, never as it.
 * Resolves whether it opened.
 */
export async function openSharedMoment(session: WorkbookSession, fragment: string, shelf: LessonShelf | null = null): Promise<boolean> {
  const read = await sharedSessionText(fragment);
  const missing = read.ok ? lessonMissing(read.text) : null;
  const opened: { ok: true } | { ok: false; message: string } =
    missing !== null
      ? { ok: false, message: `it opens the lesson "${missing}", which this workbook does not have (the link may come from a newer version of it). Nothing was changed: your own work is as you left it.` }
      : read.ok
        ? await keepOpenLesson(session, shelf).then(() => {
            const moment = markedShared(read.text);
            return session.importText(moment.text, {
              doing: 'Opening the shared moment',
              done: moment.lesson ? 'This is the moment the link was made at. Your own progress in this lesson is kept as you left it.' : 'This is the moment the link was made at; what you do now is yours.',
            });
          })
        : read;
  if (!opened.ok) session.showNotice('error', `The shared link could not be opened: ${opened.message}`);
  return opened.ok;
}

/**
 * The lesson a moment was taken in when this workbook has no such lesson,
 * else null. Checked before the moment replaces anything: opened, it
 * would leave the learner in a lesson world with no lesson to follow.
 */
function lessonMissing(text: string): string | null {
  let lesson: string | null;
  try {
    lesson = lessonIn((JSON.parse(text) as { state?: unknown }).state);
  } catch {
    return null;
  }
  return lesson !== null && !lessonIds().includes(lesson) ? lesson : null;
}

/** The id of the lesson a session's state holds, or null (a sandbox). */
function lessonIn(state: unknown): string | null {
  const lesson = (state as Record<string, { lesson?: unknown } | null> | undefined)?.[LESSON_STATE_KEY]?.lesson;
  return typeof lesson === 'string' ? lesson : null;
}

/** Whether a session's state is a lesson moment opened from a link (the lesson pane's saved state says so). */
function isShared(state: unknown): boolean {
  return (state as Record<string, { shared?: unknown } | null> | undefined)?.[LESSON_STATE_KEY]?.shared === true;
}

/**
 * The session text of a link, its lesson state marked as a shared moment
 * (the sharer's progress, not the learner's); text that is no lesson's
 * moment comes back as it was, for the import to judge.
 */
function markedShared(text: string): { text: string; lesson: boolean } {
  let file: { state?: Record<string, unknown> };
  try {
    file = JSON.parse(text) as { state?: Record<string, unknown> };
  } catch {
    return { text, lesson: false };
  }
  if (lessonIn(file.state) === null) return { text, lesson: false };
  const state = { ...file.state, [LESSON_STATE_KEY]: { ...(file.state![LESSON_STATE_KEY] as object), shared: true } };
  return { text: JSON.stringify({ ...file, state }), lesson: true };
}

/**
 * Keeps the lesson open now on the shelf, with its whole session, as
 * going to another lesson does: the shared moment takes its place, and
 * the lesson must reopen where it was, not from its beginning. A shared
 * moment open now is not kept: the shelf holds the learner's own session
 * of its lesson, which it must not replace.
 */
async function keepOpenLesson(session: WorkbookSession, shelf: LessonShelf | null): Promise<void> {
  if (shelf === null) return;
  const file = session.exportSession();
  const id = lessonIn(file.state);
  if (id === null || isShared(file.state)) return;
  // The page reads the shelf as it starts; a link opened first must not find it empty.
  if (shelf.record(id) === null) await shelf.load();
  const record = shelf.record(id);
  if (record !== null) await shelf.stow(recordNow(record, file.state), file);
}

/**
 * How far the lesson has come as its session says: the shelf's record is
 * written a moment after each change, and a page left just after a step
 * (to open a link) may not have written the last one. Without this, the
 * list would say step 1 of a lesson whose kept session is at step 2.
 */
function recordNow(kept: LessonRecord, state: unknown): LessonRecord {
  const progress = (state as Record<string, { progress?: { step?: unknown; done?: unknown } } | null>)[LESSON_STATE_KEY]?.progress;
  const step = progress?.step;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0 || step > kept.steps) return kept;
  const done = Array.isArray(progress!.done) ? progress!.done.filter((d) => d === true).length : kept.done;
  return { ...kept, step, done, finished: step >= kept.steps, savedAt: new Date().toISOString() };
}

/** The session with only what the moment needs: the active branch, its log up to now, no checkpoints, recent screens. */
function momentOnly(file: SessionFile): SessionFile {
  const active = file.branches.find((b) => b.id === file.activeBranch)!;
  const head: Moment = {
    ...active.head,
    terminals: active.head.terminals.map((t) => ({ ...t, screen: newestLines(t.screen, SCREEN_CHARS), history: t.history.slice(-HISTORY_LINES) })),
  };
  return {
    ...file,
    branches: [{ ...active, parent: null, forkedFrom: null, head }],
    logs: { [active.id]: (file.logs[active.id] ?? []).slice(0, head.actionCount) },
    checkpoints: [],
  };
}

/** The newest part of a screen, cut at a line's start. */
function newestLines(screen: string, chars: number): string {
  if (screen.length <= chars) return screen;
  const cut = screen.indexOf('\n', screen.length - chars);
  return cut < 0 ? '' : screen.slice(cut + 1);
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes.slice()]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  const reader = new Blob([bytes.slice()]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_UNPACKED_BYTES) {
      await reader.cancel();
      throw new Error('too big');
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unbase64url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}
