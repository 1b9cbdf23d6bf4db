/**
 * What following a lesson needs beyond the lesson list: the runner and its
 * checks, the page's host for it, the code cells' part, and the lesson's
 * view (Markdown, blocks, checks). Loaded with the first lesson opened,
 * so the list shows, and the first prompt comes, without them.
 */
export { LessonRunner } from '../../lessons/runner.js';
export { lessonCellOptions } from '../code-cell/lesson-cells.js';
export { LessonView } from './lesson-view.js';
export { StoreLessonHost } from './store-host.js';
