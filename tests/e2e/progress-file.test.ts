/**
 * Progress in every lesson as one file, in a real browser: exported from
 * one browser profile, taken into a fresh one, every lesson comes back
 * where it was (the list, the step, the world); a file that is not one
 * is refused with a clear message and changes nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, useBrowser } from './browser.js';
import { doStepForMe, stateInList } from './lesson-steps.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');
const suite = useBrowser({ shots: SHOTS });

const ZERO = 'The workbook and the keyspace';
const TWO = 'Snapshots';

async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const opened = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
  await opened.page.goto(suite.app.url);
  await opened.page.getByRole('list', { name: 'Lessons' }).waitFor();
  return opened;
}

/** Chooses a file for the progress import, as the learner does in the file dialog. */
async function importFile(page: Page, name: string, text: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Import progress…' }).click();
  await (await chooser).setFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

describe.skipIf(!HAVE_CHROMIUM)('progress export and import in Chromium', () => {
  it('takes every lesson to a fresh browser where it was, and refuses a file that is not progress', async () => {
    const first = await openPage();
    let page = first.page;
    await page.getByRole('button', { name: `Lesson 0: ${ZERO}`, exact: true }).click();
    await doStepForMe(page);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await page.getByRole('button', { name: `Lesson 2: ${TWO}`, exact: true }).click();
    await page.locator('section.lesson-step').waitFor();
    await doStepForMe(page);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 0, ZERO).innerText()).toBe('Step 2 of 6');
    await expect.poll(() => stateInList(page, 2, TWO).innerText()).toMatch(/^Step 2 of \d+ · open now$/);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export progress' }).click();
    const file = await (await download).path();
    const text = await readFile(file, 'utf8');
    expect(first.problems).toEqual([]);
    await page.context().close();

    // A fresh browser profile knows nothing of it, until the file is taken in.
    const second = await openPage();
    page = second.page;
    await expect.poll(() => stateInList(page, 0, ZERO).innerText()).toBe('Not started');
    await importFile(page, 'notes.json', '{"format": "redis-workbook-progress", "version": 1, "savedAt": "", "lessons": [{"record": {"id": "snapshots", "step": 9, "steps": 7, "done": 0, "finished": false, "savedAt": ""}, "session": null}]}');
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('The progress file is damaged: lessons.0.record: it counts more steps than the lesson has.');
    await expect.poll(() => stateInList(page, 2, TWO).innerText()).toBe('Not started');

    await importFile(page, 'progress.json', text);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Progress taken in' }).innerText()).toBe('Progress taken in: 2 lessons.');
    await expect.poll(() => stateInList(page, 0, ZERO).innerText()).toBe('Step 2 of 6');
    await expect.poll(() => stateInList(page, 2, TWO).innerText()).toMatch(/^Step 2 of \d+$/);
    await page.screenshot({ path: join(SHOTS, 'progress-imported.png') });

    // Lesson 0 reopens at its second step with the world it was left with: the key its first step wrote.
    await page.getByRole('button', { name: `Lesson 0: ${ZERO}`, exact: true }).click();
    await expect.poll(() => page.locator('.step-title').innerText(), { timeout: 60_000 }).toMatch(/^Step 2 of 6/);
    await expect.poll(() => page.locator('.cluster-pane').innerText()).toContain('greeting');
    expect(second.problems).toEqual([]);
    await page.context().close();
  }, 240_000);
});
