/**
 * The learner's session in a real browser: what is typed survives a
 * reload (IndexedDB), a power loss can be rewound from the timeline, and
 * the timeline's controls work from the keyboard alone. Screenshots of
 * the timeline go to .tmp/e2e/; with UPDATE_SCREENSHOTS=1 the light one
 * replaces docs/screenshots/timeline.png.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { parseLesson } from '../../src/lessons/parse.js';
import { DRAFT_FILE } from '../../src/web/session/lesson-draft.js';
import { HAVE_CHROMIUM, newWatchedPage, screenLines, terminalRows, typeLines, useBrowser, type Opened } from './browser.js';

const root = join(import.meta.dirname, '../..');
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';
const SHOTS = join(root, '.tmp/e2e');

const suite = useBrowser({ shots: SHOTS });

async function open(colorScheme: 'light' | 'dark' = 'light'): Promise<Opened> {
  const opened = await newWatchedPage(suite, { colorScheme });
  await opened.page.goto(suite.app.url);
  await prompt(opened.page, 'redis:6379>');
  return opened;
}

/** Waits for text on the terminal shown now. */
async function prompt(page: Page, text: string): Promise<void> {
  await terminalRows(page).getByText(text).first().waitFor();
}

const typeLine = (page: Page, line: string): Promise<void> => typeLines(page, line);

/** Focuses the terminal shown now. */
async function focusTerminal(page: Page): Promise<void> {
  await page.locator('.terminal-screen:not([hidden]) .xterm-helper-textarea').focus();
}

/** Presses Tab until the focused element has this accessible name (aria-label or text); fails after `max` presses. */
async function tabTo(page: Page, name: string | RegExp, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    // The accessible name, near enough: aria-label, else the label's own words, else the text.
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      const label = el?.closest('label')?.querySelector('span')?.textContent;
      return el?.getAttribute('aria-label') ?? label ?? el?.textContent?.trim() ?? '';
    });
    if (typeof name === 'string' ? focused === name : name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${String(name)}`);
}

/** Waits until the session kept in IndexedDB shows `text` on a terminal's screen (saves follow a change within a second). */
async function saved(page: Page, text: string): Promise<void> {
  const stored = (): Promise<string> =>
    page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const open = indexedDB.open('redis-workbook');
          open.onerror = () => resolve('');
          open.onsuccess = () => {
            const db = open.result;
            if (!db.objectStoreNames.contains('session')) return resolve('');
            const get = db.transaction('session').objectStore('session').get('live');
            get.onsuccess = () => resolve(JSON.stringify(get.result ?? ''));
            get.onerror = () => resolve('');
          };
        }),
    );
  await expect.poll(stored, { timeout: 10_000 }).toContain(text);
}

describe.skipIf(!HAVE_CHROMIUM)('the session in Chromium', () => {
  it('comes back after a reload: the keys, the terminal with its earlier lines, inside MULTI', async () => {
    const { context, page, problems } = await open();
    await typeLine(page, 'SET a 1');
    await typeLine(page, 'RPUSH list x y');
    await typeLine(page, 'MULTI');
    await typeLine(page, 'INCR n');
    await prompt(page, 'QUEUED');
    await saved(page, 'QUEUED');
    await page.reload();
    await prompt(page, 'redis:6379(TX)>');
    expect(await screenLines(page)).toEqual([
      'redis:6379> SET a 1',
      'OK',
      'redis:6379> RPUSH list x y',
      '(integer) 2',
      'redis:6379> MULTI',
      'OK',
      'redis:6379(TX)> INCR n',
      'QUEUED',
      'redis:6379(TX)>',
    ]);
    await focusTerminal(page);
    await typeLine(page, 'EXEC');
    await typeLine(page, 'GET a');
    await expect.poll(() => screenLines(page).then((l) => l.slice(-5))).toEqual(['redis:6379(TX)> EXEC', '1) (integer) 1', 'redis:6379> GET a', '"1"', 'redis:6379>']);
    // The history came back too: Up recalls the last line.
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => screenLines(page).then((l) => l.at(-1))).toBe('redis:6379> GET a');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('rewinds to the checkpoint taken before a power loss, and the server is up with its data', async () => {
    const { context, page, problems } = await open();
    await typeLine(page, 'SET a 1');
    await prompt(page, 'OK');
    await page.getByRole('button', { name: 'New terminal' }).click();
    await page.getByRole('menuitem', { name: /Shell on redis/ }).click();
    await prompt(page, 'root@redis:~#');
    await focusTerminal(page);
    await typeLine(page, 'sim power-loss redis');
    await prompt(page, 'powered off');
    await expect.poll(() => page.locator('.cluster-pane').innerText()).toMatch(/power off/);

    await page.getByRole('button', { name: /^History/ }).click();
    await page.getByRole('button', { name: 'Rewind to before power loss on redis' }).click();
    await expect.poll(() => page.locator('.cluster-pane').innerText()).toMatch(/redis-server/);
    // The shell is back at its prompt, as it was before the line that cut the power.
    await prompt(page, 'root@redis:~#');
    expect(await screenLines(page)).toEqual(['root@redis:~#']);
    await page.getByRole('tab', { name: /redis-cli/ }).click();
    await focusTerminal(page);
    await typeLine(page, 'GET a');
    await expect.poll(() => screenLines(page).then((l) => l.slice(-3))).toEqual(['redis:6379> GET a', '"1"', 'redis:6379>']);

    // The event list names the terminal that cut the power, and takes the learner to it.
    await page.getByLabel('Kind').selectOption('group:commands');
    const row = page.locator('.event', { hasText: 'GET' }).last();
    await row.getByRole('button').click();
    expect(await page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { selected: true }).innerText()).toMatch(/redis-cli/);

    // The rewind dropped nothing: the timeline where the power was cut is a branch the picker goes back to.
    const branch = page.getByRole('combobox', { name: 'Branch' });
    const names = await branch.locator('option').allInnerTexts();
    expect(names).toHaveLength(2);
    expect(names[0]).toBe('main');
    expect(names[1]).toMatch(/^main left at T\+[\d:.]+ \(from before power loss on redis\)$/);
    await page.locator('.timeline').screenshot({ path: join(SHOTS, 'history-branches.png') });
    await branch.selectOption({ index: 1 });
    await expect.poll(() => page.locator('.cluster-pane').innerText()).toMatch(/power off/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('writes the commands typed as a lesson draft that the lessons validator accepts', async () => {
    const { context, page, problems } = await open();
    await typeLine(page, 'SET greeting "Hello, Redis"');
    await typeLine(page, 'GET greeting');
    await prompt(page, '"Hello, Redis"');
    await page.getByRole('button', { name: /^History/ }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Lesson draft' }).click();
    const text = await readFile(await (await download).path(), 'utf8');
    const lesson = parseLesson(text, DRAFT_FILE);
    expect(lesson.steps.map((s) => s.solution.map((e) => (e.kind === 'line' ? `${e.terminal}> ${e.line}` : e.kind)))).toEqual([['redis-cli> SET greeting "Hello, Redis"', 'redis-cli> GET greeting']]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shares the moment as a link that opens the same world at the same instant in a fresh browser', async () => {
    const { context, page, problems } = await open();
    await typeLine(page, 'SET shared "from the link"');
    await typeLine(page, 'INCR visits');
    await prompt(page, '(integer) 1');
    await page.getByRole('button', { name: 'Pause virtual time' }).click();
    // The clock is drawn from the store's next frame: the time it shows is the paused one once it says paused.
    await page.locator('.clock-state.paused').waitFor();
    const clock = await page.locator('.clock-elapsed').innerText();
    await page.getByRole('button', { name: /^History/ }).click();
    await page.getByRole('button', { name: 'Share link' }).click();
    const link = await page.getByRole('textbox', { name: 'Link to this moment' }).inputValue();
    expect(new URL(link).hash).toMatch(/^#share=1\./);
    await page.locator('.timeline').screenshot({ path: join(SHOTS, 'share-link.png') });
    await context.close();

    // A fresh profile: nothing of the first page is stored there; the link alone brings the moment.
    const fresh = await newWatchedPage(suite);
    await fresh.page.goto(link);
    await expect.poll(() => fresh.page.locator('.clock-elapsed').innerText(), { timeout: 30_000 }).toBe(clock);
    expect(new URL(fresh.page.url()).hash).toBe('');
    await fresh.page.getByRole('button', { name: 'Run virtual time' }).click();
    await focusTerminal(fresh.page);
    await typeLine(fresh.page, 'GET shared');
    await typeLine(fresh.page, 'GET visits');
    await expect.poll(() => screenLines(fresh.page).then((l) => l.slice(-5))).toEqual(['redis:6379> GET shared', '"from the link"', 'redis:6379> GET visits', '"1"', 'redis:6379>']);
    expect(problems).toEqual([]);
    expect(fresh.problems).toEqual([]);
    await fresh.context.close();
  });

  it('works from the keyboard alone: a checkpoint, the history panel, a rewind', async () => {
    const { context, page, problems } = await open();
    await typeLine(page, 'SET mood calm');
    await prompt(page, 'OK');
    await tabTo(page, /Checkpoint$/);
    await page.keyboard.press('Enter');
    await focusTerminal(page);
    await typeLine(page, 'SET mood stormy');
    await expect.poll(() => screenLines(page).then((l) => l.length)).toBe(5);
    await tabTo(page, /^History/);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-expanded'))).toBe('false');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-expanded'))).toBe('true');
    await tabTo(page, 'Rewind to checkpoint 1');
    await page.keyboard.press('Enter');
    await prompt(page, 'redis:6379>');
    await expect.poll(() => page.locator('.checkpoint').count()).toBe(1);
    // What came after the checkpoint is kept as a branch.
    await expect.poll(() => page.getByLabel('Branch').locator('option').count()).toBe(2);
    await focusTerminal(page);
    await typeLine(page, 'GET mood');
    await expect.poll(() => screenLines(page).then((l) => l.slice(-3))).toEqual(['redis:6379> GET mood', '"calm"', 'redis:6379>']);
    // The filters and the session's controls are reachable too.
    await tabTo(page, 'Fork a new branch from checkpoint 1');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByLabel('Branch').locator('option').count()).toBe(3);
    await tabTo(page, 'Export');
    await tabTo(page, 'Host');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('takes screenshots of the timeline with events and checkpoints, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page, problems } = await open(scheme);
      for (const line of ['SET greeting "hello world"', 'CONFIG SET appendonly yes', 'RPUSH queue job:1 job:2', 'INCR visits']) await typeLine(page, line);
      await prompt(page, '(integer) 1');
      await page.waitForTimeout(400);
      await page.getByRole('button', { name: 'Checkpoint' }).click();
      await page.getByRole('button', { name: 'New terminal' }).click();
      await page.getByRole('menuitem', { name: /Shell on redis/ }).click();
      await prompt(page, 'root@redis:~#');
      await focusTerminal(page);
      await typeLine(page, 'ls -l /var/lib/redis/appendonlydir');
      await typeLine(page, 'sim power-loss redis');
      await prompt(page, 'powered off');
      await page.getByRole('button', { name: /^History/ }).click();
      // The pointer away from the list, so no row shows as hovered.
      await page.mouse.move(700, 300);
      await page.waitForTimeout(300);
      const shot = join(SHOTS, `timeline-${scheme}.png`);
      await page.screenshot({ path: shot });
      if (UPDATE && scheme === 'light') await page.screenshot({ path: join(root, 'docs/screenshots/timeline.png') });
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
