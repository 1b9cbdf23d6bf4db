/**
 * A lesson in a real browser: the production build in Debian's Chromium.
 * The test follows lesson 5 the way a newcomer would, reading nothing but
 * the page: it types the lines each step shows into the terminal the step
 * names, presses Play on each events block, waits for the checks to turn
 * green, and goes on. Screenshots of the lesson pane go to .tmp/e2e/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, terminalText, useBrowser, type Opened } from './browser.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');

const suite = useBrowser({ shots: SHOTS });

async function open(colorScheme: 'light' | 'dark'): Promise<Opened> {
  const opened = await newWatchedPage(suite, { colorScheme, viewport: { width: 1440, height: 900 } });
  await opened.page.goto(suite.app.url);
  await opened.page.getByRole('list', { name: 'Lessons' }).waitFor();
  return opened;
}

/** The text of the terminal shown now. */
const screen = terminalText;

/** Types lines into the named terminal tab, as a learner would: its tab, a click into it, the keyboard. */
async function typeInto(page: Page, terminal: string, lines: readonly string[]): Promise<void> {
  const tab = page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { name: terminal, exact: true });
  await tab.click();
  // The tab's own screen: while a lesson's world replaces the last one, another screen may be on its way out.
  const screenEl = page.locator(`#${await tab.getAttribute('aria-controls')}`);
  await screenEl.click();
  for (const line of lines) {
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
    // The line has run when the prompt is back at the end of the screen.
    await expect.poll(async () => /(> |# )\s*$/.test((await screen(page)).trimEnd() + ' '), { timeout: 30_000 }).toBe(true);
  }
}

/** Follows the step on screen: every block in order, then waits for its checks and moves on. Returns the step's title. */
async function followStep(page: Page): Promise<string> {
  const step = page.locator('section.lesson-step');
  const title = (await step.locator('.step-title').innerText()).trim();
  const blocks = step.locator(':scope > .lesson-block');
  const n = await blocks.count();
  for (let i = 0; i < n; i++) {
    const block = blocks.nth(i);
    const kind = await block.getAttribute('class');
    if (kind?.includes('run-block')) {
      const terminal = (await block.locator('.block-where strong').innerText()).trim();
      const lines = (await block.locator('.block-lines').innerText()).split('\n').filter((l) => l.trim() !== '');
      await typeInto(page, terminal, lines);
    } else if (kind?.includes('events-block')) {
      await block.getByRole('button', { name: /^Play/ }).click();
      await block.locator('.block-output').waitFor({ timeout: 30_000 });
    }
  }
  await step.locator('.lesson-checks.done').waitFor({ timeout: 30_000 });
  return title;
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

  it('takes a newcomer through lesson 5 by its own instructions', async () => {
    const { page, problems } = await open('light');
    await page.getByRole('button', { name: 'Lesson 5: The append-only file' }).click();
    await page.getByRole('tab', { name: 'redis', exact: true }).waitFor();
    await page.locator('.lesson-pane').screenshot({ path: join(SHOTS, 'lesson-5-start.png') });
    const titles: string[] = [];
    for (;;) {
      titles.push(await followStep(page));
      const next = page.getByRole('button', { name: /^(Next step|Finish the lesson)/ });
      const finishing = (await next.innerText()).startsWith('Finish');
      if (titles.length === 4) await page.locator('.lesson-pane').screenshot({ path: join(SHOTS, 'lesson-5-step-4.png') });
      await next.click();
      if (finishing) break;
    }
    expect(titles).toHaveLength(7);
    await expect.poll(() => page.getByText('Lesson complete').isVisible()).toBe(true);
    // What the lesson promised: the vote confirmed under everysec was lost, the one under always was not, the one under no was lost.
    await page.getByRole('tab', { name: 'redis', exact: true }).click();
    expect(await screen(page)).toContain('"530"');
    await page.locator('.lesson-pane').screenshot({ path: join(SHOTS, 'lesson-5-done.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 240_000);

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
