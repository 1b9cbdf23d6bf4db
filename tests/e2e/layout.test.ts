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
import { HAVE_CHROMIUM, newWatchedPage, useBrowser, type Opened } from './browser.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');
const suite = useBrowser({ shots: SHOTS });

/** The width of the terminal's character grid shown now, in CSS pixels: it follows the terminal's columns. */
function terminalGridWidth(page: Page): Promise<number> {
  return page.locator('.terminal-screen:not([hidden]) .xterm-screen').evaluate((e) => e.getBoundingClientRect().width);
}

/** A page at 1280x720 showing `lesson` (its button's name), at `step` when given. */
async function openLesson(lesson: string, step?: RegExp): Promise<Opened> {
  const opened = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
  await opened.page.goto(suite.app.url);
  await opened.page.getByRole('button', { name: lesson }).click();
  if (step !== undefined) await opened.page.getByRole('button', { name: step }).click();
  return opened;
}

describe.skipIf(!HAVE_CHROMIUM)('the page at 1280x720', () => {
  it('shows a code cell and its table whole, and resizes the lesson pane from the keyboard and the mouse', async () => {
    const { page, problems } = await openLesson('Lesson 16: Non-transactional pipelines', /^Step 4: Your own table 4\.4/);
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

  it("keeps a chart's group names apart at the narrowest lesson pane, at 1280x720 and in a narrow window", async () => {
    const { page, problems } = await openLesson('Lesson 16: Non-transactional pipelines', /^Step 4: Your own table 4\.4/);
    const code = page.getByRole('textbox', { name: 'Code of cell benchmark' });
    // The group names of lesson 16's and lesson 18's charts, with figures of their size.
    const chart = (title: string, groups: string[], series: string[]) =>
      `report(${JSON.stringify(title)}, { chart: 'bars', title: ${JSON.stringify(title)}, unit: 'a second, log scale', log: true, groups: ${JSON.stringify(groups)}, series: ${JSON.stringify(series)}.map((label, k) => ({ label, reference: k < 2 && ${groups.length} > 2, values: ${JSON.stringify(groups)}.map((_, i) => 10 ** (4 - i + k / 2)) })) });`;
    await code.fill(
      [
        chart('update_token calls a second', ['Unix socket', 'localhost', 'switch', 'VPN'], ['book, plain', 'book, pipelined', 'yours, plain', 'yours, pipelined']),
        chart('SETs a second while loading', ['appendfsync everysec', 'appendfsync always'], ['one at a time', 'batches of 1,000']),
      ].join('\n'),
    );
    await page.getByRole('button', { name: 'Run cell benchmark' }).click();
    const boxes = page.locator('.cell-chart-box');
    await boxes.nth(1).waitFor({ timeout: 60_000 });

    // The splitter's Home key: the lesson pane as narrow as it goes.
    await page.getByRole('separator', { name: 'Resize the lesson pane' }).focus();
    await page.keyboard.press('Home');
    for (const viewport of [{ width: 1280, height: 720 }, { width: 800, height: 600 }]) {
      await page.setViewportSize(viewport);
      for (let c = 0; c < 2; c++) {
        const box = boxes.nth(c);
        await box.scrollIntoViewIfNeeded();
        const names = box.locator('.cell-chart-groups li');
        await expect.poll(() => names.count()).toBe(c === 0 ? 4 : 2);
        // Let a resize reach the chart before it is measured.
        await expect
          .poll(() => box.evaluate((b) => Math.abs(b.querySelector('canvas')!.getBoundingClientRect().width - b.clientWidth) <= 1))
          .toBe(true);
        const measured = await box.evaluate((b) => ({
          box: b.getBoundingClientRect().toJSON() as DOMRect,
          names: [...b.querySelectorAll('.cell-chart-groups li')].map((li) => ({ rect: li.getBoundingClientRect().toJSON() as DOMRect, cut: li.scrollWidth > li.clientWidth, text: li.textContent })),
        }));
        await box.screenshot({ path: join(SHOTS, `chart-narrow-${viewport.width}-${c}.png`) });
        for (const [i, a] of measured.names.entries()) {
          // Every name is shown whole, inside the chart's box...
          expect(a.cut, `${a.text} at ${viewport.width}px`).toBe(false);
          expect(a.rect.left).toBeGreaterThanOrEqual(measured.box.left - 0.5);
          expect(a.rect.right).toBeLessThanOrEqual(measured.box.right + 0.5);
          // ...and apart from every other.
          for (const b of measured.names.slice(i + 1)) {
            const apart = a.rect.right <= b.rect.left + 0.5 || b.rect.right <= a.rect.left + 0.5 || a.rect.bottom <= b.rect.top + 0.5 || b.rect.bottom <= a.rect.top + 0.5;
            expect(apart, `"${a.text}" and "${b.text}" overlap at ${viewport.width}px: ${JSON.stringify([a.rect, b.rect])}`).toBe(true);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('fits a window narrower than the three panes at their widths: the side panes give way, nothing scrolls sideways', async () => {
    const { page, problems } = await openLesson('Lesson 5: The append-only file');
    await page.locator('.cluster-pane .server').first().waitFor();
    const widths = () =>
      page.evaluate(() => {
        const w = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
        return { page: document.documentElement.scrollWidth, window: innerWidth, lesson: w('.lesson-pane').width, terminals: w('.terminal-pane').width, cluster: w('.cluster-pane').right };
      });
    // At 1280 px each pane keeps the width it was given.
    const wide = await widths();
    expect(wide.lesson).toBe(390);
    expect(wide.page).toBeLessThanOrEqual(wide.window);
    // ...and the timeline's controls keep to one line.
    const middle = (sel: string) => page.locator(sel).evaluate((e) => e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2);
    expect(Math.abs((await middle('.timeline .panel-toggle')) - (await middle('.timeline .checkpoint-now')))).toBeLessThan(8);
    for (const width of [1000, 800]) {
      await page.setViewportSize({ width, height: 600 });
      const at = await widths();
      // The page scrolls down at most, never sideways; the cluster pane ends inside the window.
      expect(at.page, `${width} px`).toBeLessThanOrEqual(at.window);
      expect(at.cluster, `${width} px`).toBeLessThanOrEqual(at.window + 0.5);
      expect(at.lesson).toBeGreaterThanOrEqual(180);
      expect(at.terminals).toBeGreaterThanOrEqual(320);
      await page.screenshot({ path: join(SHOTS, `layout-${width}.png`) });
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });
  it('shows every terminal tab whole beside the toolbar, at 800, 900, 1000 and 1280 px', async () => {
    const { page, problems } = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
    await page.goto(suite.app.url);
    await page.locator('.terminal-screen:not([hidden]) .xterm-rows').getByText('redis:6379>').waitFor();
    await page.getByRole('button', { name: 'New terminal' }).click();
    await page.getByRole('menuitem', { name: /Shell on redis/ }).click();
    await page.locator('.terminal-screen:not([hidden]) .xterm-rows').getByText('root@redis').waitFor();
    for (const width of [800, 900, 1000, 1280]) {
      await page.setViewportSize({ width, height: 720 });
      const seen = await page.evaluate(() => {
        const box = (e: Element) => {
          const r = e.getBoundingClientRect();
          return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
        };
        const pane = box(document.querySelector('.terminal-pane')!);
        const tools = [...document.querySelectorAll('.terminal-toolbar button')].map(box);
        const tabs = [...document.querySelectorAll('.terminal-pane [role=tab]')].map((t) => {
          const b = box(t);
          // What a click at the middle of the tab's label would reach.
          const hit = document.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
          return { name: t.textContent, ...b, reached: hit !== null && t.contains(hit) };
        });
        return { pane, tools, tabs };
      });
      const overlap = (a: { left: number; top: number; right: number; bottom: number }, b: typeof a) =>
        a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      expect(seen.tabs.map((t) => t.name), `${width} px`).toEqual(['>redis-cli redis:6379', '#root@redis']);
      for (const tab of seen.tabs) {
        expect(tab.reached, `${tab.name} at ${width} px is the element shown at its middle`).toBe(true);
        expect(tab.left, `${tab.name} at ${width} px`).toBeGreaterThanOrEqual(seen.pane.left);
        expect(tab.right, `${tab.name} at ${width} px`).toBeLessThanOrEqual(seen.pane.right);
        for (const tool of seen.tools) expect(overlap(tab, tool), `${tab.name} under the toolbar at ${width} px`).toBe(false);
      }
      expect(overlap(seen.tabs[0]!, seen.tabs[1]!), `tabs on each other at ${width} px`).toBe(false);
      await page.screenshot({ path: join(SHOTS, `layout-tabs-${width}.png`) });
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
