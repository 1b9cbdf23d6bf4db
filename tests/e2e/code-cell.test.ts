/**
 * Code cells in a real browser: the production build in Debian's
 * Chromium. A cell of lesson 16 runs in its Web Worker against the page's
 * world and prints what it measured; a cell that spins forever leaves the
 * page responsive and is stopped; a cell reaches nothing outside the
 * world (no fetch, no import) while the page keeps its policy without
 * unsafe-eval; the benchmark draws its chart. Screenshots go to .tmp/e2e/
 * (with UPDATE_SCREENSHOTS=1, the cell's also to docs/screenshots/).
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, terminalText, useBrowser, type Opened } from './browser.js';

const root = join(import.meta.dirname, '../..');
const SHOTS = join(root, '.tmp/e2e');

const suite = useBrowser({ shots: SHOTS });

const TITLES: Record<number, string> = { 14: 'Listing items with WATCH', 16: 'Non-transactional pipelines' };

/** Opens the workbook on lesson 16, at the given step. */
function openLesson16(step: number): Promise<Opened> {
  return openLesson(16, step);
}

/** Opens the workbook on a lesson, at the given step. */
async function openLesson(lesson: number, step: number, colorScheme: 'light' | 'dark' = 'light'): Promise<Opened> {
  const opened = await newWatchedPage(suite, { colorScheme });
  const page = opened.page;
  await page.goto(suite.app.url);
  await page.getByRole('button', { name: `Lesson ${lesson}: ${TITLES[lesson]}` }).click();
  await page.getByRole('navigation', { name: 'Steps' }).waitFor();
  if (step > 1) await page.getByRole('navigation', { name: 'Steps' }).getByRole('button', { name: new RegExp(`^Step ${step}:`) }).click();
  return opened;
}

function cell(page: Page, id: string): Locator {
  return page.getByRole('region', { name: `Code cell ${id}` });
}

/** Replaces a cell's code, as a learner typing into it would (the editor is a text area). */
async function setCode(page: Page, id: string, code: string): Promise<void> {
  await page.getByRole('textbox', { name: `Code of cell ${id}` }).fill(code);
}

/** Runs a cell and waits for that run to end; returns how it ended. */
async function runAndWait(page: Page, id: string, timeout = 60_000): Promise<string> {
  const runs = Number(await cell(page, id).getAttribute('data-runs'));
  await page.getByRole('button', { name: `Run cell ${id}` }).click();
  await expect
    .poll(async () => Number(await cell(page, id).getAttribute('data-runs')) > runs && (await cell(page, id).getAttribute('data-status')) !== 'running', { timeout })
    .toBe(true);
  return (await cell(page, id).getAttribute('data-status')) ?? '';
}

describe.skipIf(!HAVE_CHROMIUM)('code cells in Chromium', () => {
  it('runs a cell in its worker against the world and shows what it printed', async () => {
    const { page, problems } = await openLesson16(1);
    expect(await runAndWait(page, 'round-trips')).toBe('done');
    const output = await cell(page, 'round-trips').getByRole('log').innerText();
    expect(output).toMatch(/^Unix socket\s+0\.0\d\d ms per PING$/m);
    expect(output).toMatch(/^VPN\s+5\d\.\d{3} ms per PING$/m);
    // The step's checks read the cell's report.
    await page.locator('.lesson-checks.done').waitFor({ timeout: 10_000 });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('keeps the page responsive while a cell spins, and stops it', async () => {
    const { page, problems } = await openLesson16(1);
    await setCode(page, 'round-trips', "print('spinning');\nwhile (true) {}");
    await page.getByRole('button', { name: 'Run cell round-trips' }).click();
    await expect.poll(() => cell(page, 'round-trips').getByRole('log').innerText()).toBe('spinning');
    expect(await cell(page, 'round-trips').getAttribute('data-status')).toBe('running');
    // A key press in the terminal is echoed at once while the worker spins.
    await page.locator('.terminal-screen:not([hidden])').click();
    const started = Date.now();
    await page.keyboard.type('PING');
    await expect.poll(() => terminalText(page), { timeout: 2000 }).toContain('redis:6379> PING');
    expect(Date.now() - started).toBeLessThan(1500);
    await page.getByRole('button', { name: 'Stop cell round-trips' }).click();
    await expect.poll(() => cell(page, 'round-trips').getAttribute('data-status')).toBe('stopped');
    // The world runs again: the command typed meanwhile is answered.
    await page.locator('.terminal-screen:not([hidden])').click();
    await page.keyboard.press('Enter');
    await expect.poll(() => terminalText(page)).toContain('PONG');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('reaches nothing outside the world, under a policy without unsafe-eval', async () => {
    const { page, problems } = await openLesson16(1);
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    await setCode(
      page,
      'round-trips',
      [
        "try { await fetch('https://example.com/'); print('fetched'); } catch (e) { print('fetch: ' + e.message); }",
        "print(typeof XMLHttpRequest, typeof WebSocket, typeof importScripts, typeof indexedDB, typeof caches, typeof Worker, typeof self.postMessage, typeof eval);",
        "try { (async () => {}).constructor('return 1'); print('made code'); } catch (e) { print('code from a string: ' + e.message); }",
        "print(await redis.ping());",
      ].join('\n'),
    );
    expect(await runAndWait(page, 'round-trips')).toBe('done');
    expect(await cell(page, 'round-trips').getByRole('log').innerText()).toBe(
      ['fetch: fetch is not a function', 'undefined undefined undefined undefined undefined undefined undefined undefined', 'code from a string: (intermediate value).constructor is not a function', 'PONG'].join('\n'),
    );
    await setCode(page, 'round-trips', "const m = await import('https://example.com/m.js');");
    expect(await runAndWait(page, 'round-trips')).toBe('failed');
    expect(await cell(page, 'round-trips').getByRole('alert').innerText()).toMatch(/^SyntaxError: A cell cannot import modules.*\(line 1, column 17\)$/);
    await setCode(page, 'round-trips', "await redis.set('a', 1);\nawait redis.hget('a', 'f');");
    expect(await runAndWait(page, 'round-trips')).toBe('failed');
    expect(await cell(page, 'round-trips').getByRole('alert').innerText()).toBe('ReplyError: WRONGTYPE Operation against a key holding the wrong kind of value (line 2, column 13)');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("retries lesson 14's listing exactly as the headless replay does: the game's write lands between WATCH and EXEC", async () => {
    const { page, problems } = await openLesson(14, 5);
    expect(await runAndWait(page, 'list-item')).toBe('done');
    expect(await cell(page, 'list-item').getByRole('log').innerText()).toBe(
      ['game: gave Frank ItemY', 'attempt 1: inventory:17 changed, trying again', 'attempt 2: listed ItemX.17 for 51', 'listed: true'].join('\n'),
    );
    await page.locator('.lesson-checks.done').waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(SHOTS, 'lesson-14-cell.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('runs the benchmark of table 4.4 and draws it beside the book', async () => {
    const { page, problems } = await openLesson16(4);
    const started = Date.now();
    expect(await runAndWait(page, 'benchmark', 120_000)).toBe('done');
    console.log(`table 4.4 in ${((Date.now() - started) / 1000).toFixed(1)} s of wall time`);
    const figure = cell(page, 'benchmark').locator('figure');
    await figure.locator('canvas').first().waitFor();
    const rows = await figure.locator('table.cell-table tbody tr').allInnerTexts();
    expect(rows).toHaveLength(4);
    expect(rows[3]).toMatch(/^VPN\t3\.67\t18\.2\t3\.6\d\t1[78]\.\d$/);
    await page.locator('.lesson-checks.done').waitFor({ timeout: 10_000 });
    // A wider lesson pane, as a learner reading the chart would make it.
    await page.getByRole('separator', { name: 'Resize the lesson pane' }).focus();
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');
    // The end of the code, what it printed and the chart, in one view.
    await page.getByRole('textbox', { name: 'Code of cell benchmark' }).evaluate((t) => (t.scrollTop = t.scrollHeight));
    await cell(page, 'benchmark').locator('.cell-keys').evaluate((el) => {
      const body = el.closest('.lesson-body');
      if (body !== null) body.scrollTop += el.getBoundingClientRect().top - body.getBoundingClientRect().top - 70;
    });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.screenshot({ path: join(SHOTS, 'code-cell.png') });
    if (process.env.UPDATE_SCREENSHOTS === '1') await copyFile(join(SHOTS, 'code-cell.png'), join(root, 'docs/screenshots/code-cell.png'));
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
