/**
 * The lesson pane in a real browser: the production build in Debian's
 * Chromium. (A newcomer finishing every lesson: newcomer-*.test.ts.)
 * Screenshots of the lesson pane go to .tmp/e2e/.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, useBrowser, type Opened } from './browser.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');

const suite = useBrowser({ shots: SHOTS });

async function open(colorScheme: 'light' | 'dark'): Promise<Opened> {
  const opened = await newWatchedPage(suite, { colorScheme, viewport: { width: 1440, height: 900 } });
  await opened.page.goto(suite.app.url);
  await opened.page.getByRole('list', { name: 'Lessons' }).waitFor();
  return opened;
}

describe.skipIf(!HAVE_CHROMIUM)('lessons in Chromium', () => {
  it('lists the lessons of the catalogue and the sandbox', async () => {
    const { page, problems } = await open('light');
    const entries = page.getByRole('list', { name: 'Lessons' }).getByRole('button');
    const names = await entries.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(names).toEqual(expect.arrayContaining(['Lesson 0: The workbook and the keyspace', 'Lesson 2: Snapshots', 'Lesson 5: The append-only file', 'Lesson 11: Verifying snapshots and append-only files', 'Sandbox: no lesson']));
    await page.screenshot({ path: join(SHOTS, 'lesson-picker.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a step, its checks, a hint and the solution in the dark theme', async () => {
    const { page, problems } = await open('dark');
    await page.getByRole('button', { name: 'Lesson 11: Verifying snapshots and append-only files' }).click();
    await page.getByRole('button', { name: 'Show a hint (1 of 1)' }).click();
    await page.getByRole('button', { name: 'Show the solution' }).click();
    await page.getByRole('button', { name: 'Show it' }).click();
    await page.getByRole('button', { name: /^Play: Two writes/ }).click();
    await page.locator('.events-block .block-output').waitFor();
    await expect.poll(() => page.locator('.check.ok').count()).toBeGreaterThan(0);
    await page.locator('.lesson-pane').screenshot({ path: join(SHOTS, 'lesson-11-dark.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
