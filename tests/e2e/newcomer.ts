/**
 * A newcomer finishes every lesson in Chromium, in the static build,
 * reading nothing but the page: in each step they type the lines each
 * "run this" block shows into the terminal it names (by the keyboard, not
 * its Run button), press Play on each events block and Run on each code
 * cell, in the order the page shows them, wait for the checks to turn
 * green, and go on. A line that meets "Server closed the connection" (the
 * server restarted since) is typed again, as a person would. They push
 * the Speed slider up first, as lesson 0 suggests. Every lesson file is
 * taken, so a new lesson is held to it at once.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, terminalText, useBrowser } from './browser.js';
import { lessonFileNames, loadLesson } from '../lessons/lesson-files.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e/newcomer');
/** The speed the newcomer picks: the slider's position for 25×. */
const SPEED = '7';

/** The terminal tab named `terminal`, clicked, and its screen focused. */
async function focusTerminal(page: Page, terminal: string): Promise<void> {
  const tab = page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { name: terminal, exact: true });
  await tab.click();
  await page.locator(`#${await tab.getAttribute('aria-controls')}`).click();
}

/** The line has run when a prompt is back at the end of the screen. */
async function waitForPrompt(page: Page): Promise<string> {
  let text = '';
  await expect
    .poll(
      async () => {
        text = (await terminalText(page)).trimEnd();
        return /(> |# |\$ )$/.test(text + ' ');
      },
      { timeout: 90_000 },
    )
    .toBe(true);
  return text;
}

async function typeLines(page: Page, terminal: string, lines: readonly string[]): Promise<void> {
  await focusTerminal(page, terminal);
  for (const line of lines) {
    for (let attempt = 0; attempt < 2; attempt++) {
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
      // MONITOR answers OK and then prints what the server runs, with no prompt: the newcomer goes on once OK is there.
      if (/^monitor$/i.test(line.trim())) {
        await expect
          .poll(
            async () => {
              const text = await terminalText(page);
              return text.slice(text.lastIndexOf(line));
            },
            { timeout: 90_000 },
          )
          .toMatch(/\nOK\n/);
        break;
      }
      const screen = await waitForPrompt(page);
      const after = screen.slice(screen.lastIndexOf(line));
      if (!after.includes('Error: Server closed the connection')) break;
    }
  }
}

async function followBlock(page: Page, block: Locator): Promise<void> {
  const kind = (await block.getAttribute('class')) ?? '';
  if (kind.includes('run-block')) {
    const terminal = (await block.locator('.block-where strong').innerText()).trim();
    const lines = (await block.locator('.block-lines').innerText()).split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
    await typeLines(page, terminal, lines);
  } else if (kind.includes('events-block')) {
    const play = block.getByRole('button', { name: /^Play/ });
    await play.click();
    await block.locator('.block-output').waitFor({ timeout: 90_000 });
    await expect.poll(() => play.isEnabled(), { timeout: 90_000 }).toBe(true);
  } else if (kind.includes('code-cell')) {
    await block.locator('.cell-run').click();
    await expect.poll(async () => (await block.getAttribute('data-status')) ?? '', { timeout: 180_000 }).toMatch(/^(done|failed|stopped)$/);
  }
}

/** The newcomer over the lesson files `pick` keeps (by their index in the catalogue), in one browser. */
export function newcomerSuite(pick: (file: string, index: number) => boolean): void {
  const suite = useBrowser({ shots: SHOTS });
  describe.skipIf(!HAVE_CHROMIUM)('a newcomer in Chromium', () => {
    lessonFileNames().forEach((file, index) => {
      if (!pick(file, index)) return;
      const lesson = loadLesson(file);
      it(`finishes ${file} by reading its steps`, async () => {
        const { page, problems } = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
        await page.goto(suite.app.url);
        await page.getByRole('button', { name: `Lesson ${lesson.meta.number}: ${lesson.meta.title}` }).click();
        await page.locator('section.lesson-step').waitFor();
        await page.getByRole('slider', { name: 'Speed' }).fill(SPEED);
        for (let i = 0; i < lesson.steps.length; i++) {
          const step = page.locator('section.lesson-step');
          await expect.poll(() => step.locator('.step-title').innerText()).toContain(`Step ${i + 1} of ${lesson.steps.length}`);
          const blocks = step.locator('.lesson-block, section.code-cell');
          // A code cell's editor arrives after the step's text: wait until every block is on the page.
          const n = lesson.steps[i]!.blocks.filter((b) => b.kind !== 'prose').length;
          await expect.poll(() => blocks.count(), { timeout: 30_000 }).toBe(n);
          for (let k = 0; k < n; k++) await followBlock(page, blocks.nth(k));
          try {
            await step.locator('.lesson-checks.done').waitFor({ timeout: 90_000 });
          } catch {
            const checks = (await step.locator('.lesson-checks li').allTextContents()).join('\n');
            await page.screenshot({ path: join(SHOTS, `${file}-step-${i + 1}.png`) });
            throw new Error(`${file}, step ${i + 1} "${lesson.steps[i]!.title}" is not done after its blocks:\n${checks}`);
          }
          await page.getByRole('button', { name: /^(Next step|Finish the lesson)/ }).click();
        }
        await page.getByText('Lesson complete').waitFor();
        expect(problems).toEqual([]);
        await page.context().close();
      }, 600_000);
    });
  });
}
