import type { WorkbookSession } from '../session/workbook-session.js';
import type { LessonShelf } from './lesson-shelf.js';

/**
 * Where the page keeps lessons it leaves: its session (whose state is the
 * lesson open now) and the shelf of the others. Set once by the page's
 * entry point, read by the lesson pane when it loads, so the pane's code
 * stays out of the page's first download. Tests leave it empty: lessons
 * then start afresh each time they are opened.
 */
export const lessonKeeping: { session: WorkbookSession | null; shelf: LessonShelf | null } = { session: null, shelf: null };

/** The name the session keeps the lesson open now under (its state: { lesson: id, progress, shared? }; shared marks a moment from a link). */
export const LESSON_STATE_KEY = 'lesson';
