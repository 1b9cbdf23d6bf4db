/**
 * The workbook in a real browser: the production build served from a
 * local folder, driven in Debian's Chromium through playwright-core.
 * Screenshots of the main view go to .tmp/e2e/; with UPDATE_SCREENSHOTS=1
 * they replace the ones in docs/screenshots/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, screenLines, terminalRows, typeLines, useBrowser, type Opened } from './browser.js';

const root = join(import.meta.dirname, '../..');
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(root, 'docs/screenshots') : join(root, '.tmp/e2e');

const suite = useBrowser({ shots: SHOTS, logBuild: true });

async function openWorkbook(colorScheme: 'light' | 'dark' = 'light'): Promise<Opened> {
  const opened = await newWatchedPage(suite, { colorScheme });
  await opened.page.goto(suite.app.url);
  await terminalRows(opened.page).getByText('redis:6379>').waitFor();
  return opened;
}

/** Types a line into the focused terminal and presses Enter. */
const typeLine = (page: Page, line: string): Promise<void> => typeLines(page, line);

/** Colours set on terminal text: xterm.js's DOM renderer marks them with classes or inline styles. */
async function colouredCells(page: Page): Promise<number> {
  return page.locator('.xterm-rows span[class*="xterm-fg-"], .xterm-rows span[class*="xterm-bg-"], .xterm-rows span[style*="color"]').count();
}

describe.skipIf(!HAVE_CHROMIUM)('the workbook in Chromium', () => {
  it('loads with no console errors, no request leaving the origin, under a strict policy', async () => {
    const { page, problems } = await openWorkbook();
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
    await page.getByRole('list', { name: 'Lessons' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Lessons' }).isVisible()).toBe(true);
    expect(await page.getByRole('tab', { name: /redis-cli redis:6379/ }).getAttribute('aria-selected')).toBe('true');
    await page.waitForTimeout(300);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('prints exactly what redis-cli prints for SET and GET', async () => {
    const { page, problems } = await openWorkbook();
    await typeLine(page, 'SET a 1');
    await typeLine(page, 'GET a');
    await expect.poll(() => screenLines(page)).toEqual(['redis:6379> SET a 1', 'OK', 'redis:6379> GET a', '"1"', 'redis:6379>']);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('runs a pasted block line by line and recalls lines with Up', async () => {
    const { page, problems } = await openWorkbook();
    await page.locator('.terminal-screen:not([hidden]) .xterm-helper-textarea').evaluate((textarea) => {
      const data = new DataTransfer();
      data.setData('text/plain', 'SET n 1\nINCR n\nINCR n\n');
      textarea.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => screenLines(page)).toEqual(['redis:6379> SET n 1', 'OK', 'redis:6379> INCR n', '(integer) 2', 'redis:6379> INCR n', '(integer) 3', 'redis:6379>']);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('5');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await screenLines(page)).slice(-3)).toEqual(['redis:6379> SET n 5', 'OK', 'redis:6379>']);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('waits about a second of virtual time for BLPOP q 1, then prints (nil)', async () => {
    const { page } = await openWorkbook();
    await page.keyboard.type('BLPOP q 1');
    const started = Date.now();
    await page.keyboard.press('Enter');
    await page.locator('.terminal-screen:not([hidden]) .xterm-rows').getByText('(nil)').waitFor({ timeout: 10_000 });
    const waitedMs = Date.now() - started;
    // Virtual time keeps pace with the wall clock at speed 1: the second is not skipped.
    expect(waitedMs).toBeGreaterThan(800);
    const lines = await screenLines(page);
    expect(lines.slice(0, 2)).toEqual(['redis:6379> BLPOP q 1', '(nil)']);
    expect(lines[2]).toMatch(/^\(1\.\d\ds\)$/);
    await page.context().close();
  });

  it('shows keys and values that look like markup or escape sequences as inert text, in the terminal and the cluster panel', async () => {
    const { page, problems } = await openWorkbook();
    await typeLine(page, 'SET "<img src=x onerror=alert(1)>" "\\x1b[31mred"');
    await typeLine(page, 'GET "<img src=x onerror=alert(1)>"');
    await expect.poll(() => screenLines(page)).toContain('"\\x1b[31mred"');
    const key = page.locator('.cluster-pane .key').first();
    await expect.poll(() => key.innerText()).toMatch(/"<img src=x onerror=alert\(1\)>"\s+string\s+"\\x1b\[31mred"/);
    expect(await page.locator('img').count()).toBe(0);
    expect(await colouredCells(page)).toBe(0);

    // The shell prints data as it is, as cat and redis-cli --raw do: the escape shows in caret notation.
    await page.getByRole('button', { name: 'New terminal' }).click();
    await page.getByRole('menuitem', { name: /Shell on redis/ }).click();
    await page.locator('.terminal-screen:not([hidden]) .xterm-rows').getByText('root@redis:~#').waitFor();
    await typeLine(page, "redis-cli --raw GET '<img src=x onerror=alert(1)>'");
    await typeLine(page, "echo -e '\\e[31mred\\e]0;title\\a'");
    await expect.poll(() => screenLines(page)).toEqual([
      "root@redis:~# redis-cli --raw GET '<img src=x onerror=alert(1)>'",
      '^[[31mred',
      "root@redis:~# echo -e '\\e[31mred\\e]0;title\\a'",
      '^[[31mred^[]0;title^G',
      'root@redis:~#',
    ]);
    expect(await colouredCells(page)).toBe(0);
    expect(await page.title()).toBe('Redis workbook');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('at 1280x720, tells two long keys apart that the cluster panel cuts alike: the full name on hover and in the text read aloud', async () => {
    const opened = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
    const { page, problems } = opened;
    await page.goto(suite.app.url);
    await terminalRows(page).getByText('redis:6379>').waitFor();
    const names = ['article:92617:comments:by-score:first', 'article:92617:comments:by-score:second'];
    await typeLines(page, `SET ${names[0]} 1`, `SET ${names[1]} 2`);
    const cells = page.locator('.cluster-pane .key td:first-child');
    await expect.poll(() => cells.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const cell = cells.nth(i);
      // The name is cut where it is drawn...
      expect(await cell.evaluate((td) => td.scrollWidth > td.clientWidth)).toBe(true);
      // ...and whole on hover and in what a screen reader reads.
      expect(names.map((n) => `"${n}"`)).toContain(await cell.getAttribute('title'));
      expect(await cell.textContent()).toBe(await cell.getAttribute('title'));
    }
    expect(await cells.nth(0).getAttribute('title')).not.toBe(await cells.nth(1).getAttribute('title'));
    await cells.nth(0).hover();
    await page.screenshot({ path: join(SHOTS, 'long-keys-1280.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('puts the focus in the terminal and lets Tab move between the controls', async () => {
    const { page } = await openWorkbook();
    const inTerminal = (): Promise<boolean> => page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea') === true);
    expect(await inTerminal()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await inTerminal()).toBe(false);
    const next = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName);
    expect(next).toBe('Resize the cluster pane');
    await page.keyboard.press('Shift+Tab');
    expect(await inTerminal()).toBe(true);
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('New terminal');
    // The "+" menu works from the keyboard too.
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('menuitem');
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('New terminal');
    await page.keyboard.press('Tab');
    expect(await inTerminal()).toBe(true);
    await typeLine(page, 'PING');
    await expect.poll(() => screenLines(page)).toEqual(['redis:6379> PING', 'PONG', 'redis:6379>']);
    // Every control of the page is reachable with Tab: go round the whole page once (the lesson list grows
    // with the catalogue, so the round is as long as it takes, up to a bound that ends a focus trap).
    const reached = new Set<string>();
    const wanted = ['Pause virtual time', 'Switch to the dark theme', 'New terminal', 'Resize the lesson pane'];
    for (let i = 0; i < 300 && !wanted.every((label) => reached.has(label)); i++) {
      await page.keyboard.press('Tab');
      reached.add(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''));
    }
    for (const label of wanted) expect(reached).toContain(label);
    await page.context().close();
  });

  it('pauses, steps and speeds up virtual time from the timeline', async () => {
    const { page } = await openWorkbook();
    const elapsed = async (): Promise<number> => {
      const t = (await page.locator('.clock-elapsed').innerText()).replace('T+', '');
      const [h, m, s] = t.split(':').map(Number);
      return Math.round(((h! * 60 + m!) * 60 + s!) * 1000);
    };
    await page.getByRole('button', { name: 'Pause virtual time' }).click();
    await page.getByText('paused', { exact: true }).waitFor();
    const at = await elapsed();
    await page.waitForTimeout(300);
    expect(await elapsed()).toBe(at);
    await page.getByRole('button', { name: 'Step' }).click();
    await expect.poll(elapsed).toBe(at + 100);
    await page.getByRole('button', { name: 'Run virtual time' }).click();
    await page.getByRole('slider').fill('9');
    await expect.poll(() => page.locator('.speed-value').innerText()).toBe('100×');
    const before = await elapsed();
    await page.waitForTimeout(500);
    expect((await elapsed()) - before).toBeGreaterThan(10_000);
    await page.context().close();
  });

  it('follows the system theme and switches with the toggle', async () => {
    const { page } = await openWorkbook('dark');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const background = (): Promise<string> => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = await background();
    await page.getByRole('button', { name: 'Switch to the light theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await background()).not.toBe(dark);
    await page.context().close();
  });

  it('takes screenshots of the main view in the light and dark themes', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, problems } = await openWorkbook(scheme);
      for (const line of ['SET greeting "hello world"', 'RPUSH queue job:1 job:2 job:3', 'HSET user:1 name Ada lang en', 'ZADD scores 10 alice 7 bob', 'MULTI', 'INCR visits', 'EXPIRE visits 60', 'EXEC', 'LRANGE queue 0 -1']) {
        await typeLine(page, line);
      }
      await expect.poll(() => screenLines(page)).toContain('3) "job:3"');
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(SHOTS, `workbook-${scheme}.png`) });
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('terminal completion, hints and screen reader mode in Chromium', () => {
  async function open(): Promise<Page> {
    const { page } = await newWatchedPage(suite);
    await page.goto(suite.app.url);
    await terminalRows(page).getByText('redis:6379>').waitFor();
    return page;
  }

  /** The text the terminal shows in redis-cli's hint colour (SGR 90: xterm.js's bright black, class xterm-fg-8). */
  const greyText = (page: Page): Promise<string> =>
    page.locator('.terminal-screen:not([hidden]) .xterm-rows span.xterm-fg-8').evaluateAll((spans) => spans.map((s) => s.textContent ?? '').join('').replace(/\u00a0/g, ' '));

  it('completes a command with Tab, cycling through the choices, and keeps the focus in the terminal', async () => {
    const page = await open();
    // The command table for completion and hints arrives in its own chunk: wait until a hint shows it is there.
    await page.keyboard.type('SET ');
    await expect.poll(() => greyText(page)).toMatch(/^key value/);
    await page.keyboard.press('Control+U');
    await page.keyboard.type('conf');
    await page.keyboard.press('Tab');
    await expect.poll(() => screenLines(page)).toEqual(['redis:6379> CONFIG']);
    await page.keyboard.press('Tab');
    await page.keyboard.type(' appendf');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => screenLines(page)).toEqual(['redis:6379> CONFIG GET appendfsync', '1) "appendfsync"', '2) "everysec"', 'redis:6379>']);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea'))).toBe(true);
    await page.context().close();
  });

  it("shows redis-cli's grey argument hint as a command is typed, shrinking as arguments come", async () => {
    const page = await open();
    await page.keyboard.type('SET ');
    await expect.poll(() => greyText(page)).toMatch(/^key value \[NX\|XX\] \[GET\] \[EX seconds\|PX milliseconds/);
    await page.keyboard.type('k v ');
    await expect.poll(() => greyText(page)).toMatch(/^\[NX\|XX\] \[GET\]/);
    await page.screenshot({ path: join(SHOTS, 'terminal-hint.png') });
    await page.keyboard.press('Enter');
    await expect.poll(() => screenLines(page)).toEqual(['redis:6379> SET k v', 'OK', 'redis:6379>']);
    expect(await greyText(page)).toBe('');
    await page.context().close();
  });

  it('turns on screen reader mode in the terminals from the keyboard, and remembers it', async () => {
    const page = await open();
    const toggle = page.getByRole('button', { name: 'Screen reader', exact: true });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await page.locator('.terminal-screen:not([hidden]) .xterm-accessibility-tree').waitFor({ state: 'attached' });
    await page.reload();
    await page.locator('.terminal-screen:not([hidden]) .xterm-accessibility-tree').waitFor({ state: 'attached' });
    expect(await page.getByRole('button', { name: 'Screen reader', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await page.context().close();
  });
});
