import { loadOnce } from '../load-once.js';

/**
 * The lesson pane's code, in two parts loaded after the page is up: the
 * lesson list, when the pane first shows, and what following a lesson
 * needs (the runner, the parser, the lesson's view), when a lesson is
 * first opened. Both are imported from here, a module of the page's first
 * load: the bundler then knows the first load is already there when
 * either arrives and keeps the first load in one chunk (imported from the
 * list's chunk, the second part split the first load in ten, 4.5 KB more
 * gzipped).
 */
export const lessonWorkbook = (): Promise<typeof import('./lesson-workbook.js')> => import('./lesson-workbook.js');

export const lessonParts = loadOnce(() => import('./lesson-parts.js'));
