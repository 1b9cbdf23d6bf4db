/**
 * What the browser tests do in a lesson as a learner would: finish the step
 * shown with "Do it for me", and read what the lesson list says of a lesson.
 */
import type { Page } from 'playwright-core';

/** Finishes the step shown with its solution, as "Do it for me" plays it, and goes on. */
export async function doStepForMe(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Show the solution' }).click();
  await page.getByRole('button', { name: 'Show it' }).click();
  await page.getByRole('button', { name: 'Do it for me' }).click();
  await page.locator('.lesson-checks.done').waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: /^(Next step|Finish the lesson)/ }).click();
}

/** What the lesson list says of lesson `number`. */
export function stateInList(page: Page, number: number, title: string) {
  return page.getByRole('list', { name: 'Lessons' }).getByRole('button', { name: `Lesson ${number}: ${title}`, exact: true }).locator('.lesson-entry-progress');
}
