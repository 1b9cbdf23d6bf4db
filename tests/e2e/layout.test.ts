/**
 * The page on a 1280x720 screen: nothing a learner reads is cut off. A
 * code cell's long lines wrap inside the cell with their numbers beside
 * them, a report's table fits its cell, and the splitter between the
 * lesson and the terminals resizes them from the keyboard or the mouse,
 * the terminal refitting its columns. Screenshots go to .tmp/e2e/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, useBrowser } from './browser.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');
const suite = useBrowser({ shots: SHOTS });

/** The width of the terminal's character grid shown now, in CSS pixels: it follows the terminal's columns. */
function terminalGridWidth(page: Page): Promise<number> {
  return page.locator('.terminal-screen:not([hidden]) .xterm-screen').evaluate((e) => e.getBoundingClientRect().width);
}

describe.skipIf(!HAVE_CHROMIUM)('the page at 1280x720', () => {
  it('shows a code cell and its table whole, and resizes the lesson pane from the keyboard and the mouse', async () => {
    const { page, problems } = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
    await page.goto(suite.app.url);
    await page.getByRole('button', { name: 'Lesson 16: Non-transactional pipelines' }).click();
    await page.getByRole('button', { name: /^Step 4: Your own table 4\.4/ }).click();
    const cell = page.getByRole('region', { name: 'Code cell benchmark' });
    const code = page.getByRole('textbox', { name: 'Code of cell benchmark' });
    await code.scrollIntoViewIfNeeded();

    // The lines are longer than the pane is wide: they wrap, nothing is hidden sideways, and each number stays beside its line.
    const editor = await code.evaluate((area) => {
      const gutter = area.parentElement!.querySelector('.cell-gutter')!;
      const rows = [...gutter.children].map((s) => s.getBoundingClientRect().height);
      return { scrollWidth: area.scrollWidth, clientWidth: area.clientWidth, scrollHeight: area.scrollHeight, gutterHeight: gutter.scrollHeight, rows };
    });
    expect(editor.scrollWidth).toBeLessThanOrEqual(editor.clientWidth);
    expect(Math.max(...editor.rows)).toBeGreaterThan(1.5 * Math.min(...editor.rows));
    expect(Math.abs(editor.gutterHeight - editor.scrollHeight)).toBeLessThanOrEqual(2);
    await page.screenshot({ path: join(SHOTS, 'layout-1280-cell.png') });

    // The lesson's own benchmark, over shorter spans of virtual time, draws table 4.4 with the learner's columns.
    const source = await code.inputValue();
    const shorter = source.replace(/, (0\.25|1|30), \[/g, ', 0.05, [');
    expect(shorter).not.toBe(source);
    await code.fill(shorter);
    await page.getByRole('button', { name: 'Run cell benchmark' }).click();
    const table = cell.locator('table.cell-table');
    await table.waitFor({ timeout: 120_000 });
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['', 'book, plain', 'book, pipelined', 'yours, plain', 'yours, pipelined']);
    await table.scrollIntoViewIfNeeded();
    const fit = await table.evaluate((t) => ({ table: t.scrollWidth, box: t.parentElement!.clientWidth }));
    expect(fit.table).toBeLessThanOrEqual(fit.box);
    await page.screenshot({ path: join(SHOTS, 'layout-1280-table.png') });

    // The splitter: the keyboard widens the lesson pane, the terminal gives up columns; the mouse gives them back.
    const pane = page.locator('.lesson-pane');
    const splitter = page.getByRole('separator', { name: 'Resize the lesson pane' });
    const paneBefore = (await pane.boundingBox())!.width;
    const gridBefore = await terminalGridWidth(page);
    await splitter.focus();
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await pane.boundingBox())!.width).toBeGreaterThan(paneBefore + 80);
    await expect.poll(() => terminalGridWidth(page)).toBeLessThan(gridBefore - 80);
    const bar = (await splitter.boundingBox())!;
    await page.mouse.move(bar.x + bar.width / 2, bar.y + 200);
    await page.mouse.down();
    await page.mouse.move(bar.x + bar.width / 2 - 150, bar.y + 200, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await pane.boundingBox())!.width).toBeLessThan(paneBefore);
    await expect.poll(() => terminalGridWidth(page)).toBeGreaterThan(gridBefore);
    // Narrower still, the cell keeps every line inside it.
    expect(await code.evaluate((area) => area.scrollWidth <= area.clientWidth)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'layout-1280-narrow.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 240_000);
});
