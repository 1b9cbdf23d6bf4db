import { z } from 'zod';
import { checkSession } from '../session/session-data.js';
import type { SessionFile } from '../session/session-format.js';
import type { LessonRecord } from './lesson-shelf.js';

/**
 * The learner's progress in every lesson as one file: for each lesson
 * opened, how far it came and the whole session it was left with (its
 * world, terminals, checkpoints), so that importing the file on another
 * machine or in another browser brings every lesson back where it was.
 * Loaded when the learner exports or imports, never with the page.
 */
export const PROGRESS_FORMAT = 'redis-workbook-progress';
export const PROGRESS_VERSION = 1;

export interface KeptLesson {
  readonly record: LessonRecord;
  /** The session it was left with; null when only how far it came is known. */
  readonly session: SessionFile | null;
}

export interface ProgressFile {
  readonly format: typeof PROGRESS_FORMAT;
  readonly version: typeof PROGRESS_VERSION;
  /** When it was exported, for the learner's eyes (ISO 8601). */
  readonly savedAt: string;
  readonly lessons: readonly KeptLesson[];
}

const count = z.number().int().min(0).max(10_000);

const recordSchema = z
  .object({
    id: z
      .string()
      .max(100)
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { error: 'not a lesson name' }),
    step: count,
    steps: count.min(1),
    done: count,
    finished: z.boolean(),
    savedAt: z.string().max(100),
  })
  .refine((r) => r.step <= r.steps && r.done <= r.steps, { error: 'it counts more steps than the lesson has' });

const fileSchema = z.object({
  format: z.literal(PROGRESS_FORMAT),
  version: z.literal(PROGRESS_VERSION),
  savedAt: z.string().max(100),
  lessons: z.array(z.object({ record: recordSchema, session: z.unknown() })).max(1000),
});

/** What became of reading a progress file: its lessons, or why it cannot be used, in words for the learner. */
export type ProgressParse = { ok: true; progress: ProgressFile } | { ok: false; message: string };

/** The file's data for `lessons`. */
export function progressFile(lessons: readonly KeptLesson[], savedAt: string): ProgressFile {
  return { format: PROGRESS_FORMAT, version: PROGRESS_VERSION, savedAt, lessons };
}

/**
 * Reads a progress file's text. Nothing in it is trusted: the shape and
 * every lesson's session are checked as a saved session is (session-data.ts),
 * and a session must be of the lesson it is filed under. One bad part
 * refuses the whole file, so an import never leaves half of it applied.
 */
export function parseProgressText(text: string): ProgressParse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, message: 'This file is not a Redis workbook progress file: it is not JSON.' };
  }
  const format = typeof data === 'object' && data !== null ? (data as { format?: unknown }).format : undefined;
  if (format === 'redis-workbook-session') return { ok: false, message: 'This is a session file, not a progress file: import it with Import… under History.' };
  if (format !== PROGRESS_FORMAT) return { ok: false, message: `This is not a Redis workbook progress file (the file has no "format": "${PROGRESS_FORMAT}").` };
  const version = (data as { version?: unknown }).version;
  if (version !== PROGRESS_VERSION) return { ok: false, message: `This progress file has version ${JSON.stringify(version)}; this workbook reads version ${PROGRESS_VERSION}.` };
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return damaged(`${issue.path.length === 0 ? 'the file' : issue.path.map(String).join('.')}: ${issue.message}`);
  }
  const seen = new Set<string>();
  const lessons: KeptLesson[] = [];
  for (const { record, session } of parsed.data.lessons) {
    if (seen.has(record.id)) return damaged(`the lesson "${record.id}" is there twice`);
    seen.add(record.id);
    if (session === null || session === undefined) {
      lessons.push({ record, session: null });
      continue;
    }
    const checked = checkSession(session);
    if (!checked.ok) return damaged(`the lesson "${record.id}": ${checked.message.replace(/\.$/, '')}`);
    const of = (checked.session.state as { lesson?: { lesson?: unknown } | null }).lesson?.lesson;
    if (of !== record.id) return damaged(`the session filed under the lesson "${record.id}" is not of that lesson`);
    lessons.push({ record, session: checked.session });
  }
  return { ok: true, progress: progressFile(lessons, parsed.data.savedAt) };
}

function damaged(why: string): ProgressParse {
  return { ok: false, message: `The progress file is damaged: ${why}.` };
}
