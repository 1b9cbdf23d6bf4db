/**
 * Code cells in a real browser: the production build in Debian's
 * Chromium. A cell of lesson 16 runs in its engine beside the page's
 * world and prints what it measured; a cell that spins forever, prints
 * without end or prints huge strings moves to its Web Worker, leaves the
 * page responsive and is stopped; a cell that fills its engine's memory is stopped with a clear
 * message, and the page and the next cell go on; every request a cell tries is refused by its sandbox's own
 * policy, in the build and under the dev server, while the page keeps its
 * policy without unsafe-eval; the benchmark draws its chart. Screenshots go to .tmp/e2e/
 * (with UPDATE_SCREENSHOTS=1, the cell's also to docs/screenshots/).
 */
import { copyFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
    await page.keyboard.type('PING');
    await expect.poll(() => terminalText(page), { timeout: 2000 }).toContain('redis:6379> PING');
    // Shown while the cell still spins: the worker never held the page.
    expect(await cell(page, 'round-trips').getAttribute('data-status')).toBe('running');
    await page.getByRole('button', { name: 'Stop cell round-trips' }).click();
    await expect.poll(() => cell(page, 'round-trips').getAttribute('data-status')).toBe('stopped');
    // The world runs again: the command typed meanwhile is answered.
    await page.locator('.terminal-screen:not([hidden])').click();
    await page.keyboard.press('Enter');
    await expect.poll(() => terminalText(page)).toContain('PONG');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('keeps the page usable while a cell prints without end, or prints huge strings, and Stop ends it', async () => {
    const { page, problems } = await openLesson16(1);
    const loops = ['let i = 0;\nfor (;;) print(i++);', "let i = 0;\nfor (;;) print(i++ + 'x'.repeat(1e5));"];
    for (const [n, code] of loops.entries()) {
      await setCode(page, 'round-trips', code);
      await page.getByRole('button', { name: 'Run cell round-trips' }).click();
      // Lines keep arriving while it runs, the oldest let go and counted.
      const log = cell(page, 'round-trips').getByRole('log');
      await expect.poll(() => log.innerText(), { timeout: 20_000 }).toMatch(/^… \d+ earlier lines not kept\n/);
      const first = await log.innerText();
      await expect.poll(async () => (await log.innerText()) !== first, { timeout: 20_000 }).toBe(true);
      // A key typed in the terminal is echoed meanwhile.
      await page.locator('.terminal-screen:not([hidden])').click();
      await page.keyboard.type(`echo${n}`);
      await expect.poll(() => terminalText(page)).toContain(`redis:6379> echo${n}`);
      await page.keyboard.press('Control+U');
      await page.getByRole('button', { name: 'Stop cell round-trips' }).click();
      await expect.poll(() => cell(page, 'round-trips').getAttribute('data-status')).toBe('stopped');
      expect(Number(/^… (\d+) earlier/.exec(await log.innerText())?.[1])).toBeGreaterThan(0);
    }
    await page.screenshot({ path: join(SHOTS, 'cell-print-flood.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('loads its engine with a lesson that has code cells, not with the page, stops a cell that fills its memory with a clear message, and the page and the next cell go on', async () => {
    const { page, problems } = await newWatchedPage(suite, { colorScheme: 'light' });
    const engineFiles: string[] = [];
    page.on('request', (r) => {
      if (/\.wasm$|cell-worker/.test(r.url())) engineFiles.push(new URL(r.url()).pathname.split('/').pop()!);
    });
    await page.goto(suite.app.url);
    // The page has loaded on a lesson without code cells: nothing of the engine.
    await page.locator('.terminal-screen:not([hidden])').waitFor();
    await expect.poll(() => terminalText(page)).toContain('redis:6379>');
    expect(engineFiles).toEqual([]);
    // A lesson with code cells: its engine comes while the learner reads, before any Run.
    await page.getByRole('button', { name: `Lesson 16: ${TITLES[16]}` }).click();
    await cell(page, 'round-trips').waitFor();
    await expect.poll(() => engineFiles.filter((f) => f.endsWith('.wasm'))).toHaveLength(1);
    const bombs = ["print('filling');\nconst a = [];\nfor (;;) a.push('x'.repeat(1e6) + a.length);", 'const m = new Map();\nlet i = 0;\nfor (;;) m.set(i++, { i });'];
    for (const [n, code] of bombs.entries()) {
      await setCode(page, 'round-trips', code);
      expect(await runAndWait(page, 'round-trips')).toBe('failed');
      expect(await cell(page, 'round-trips').getByRole('alert').innerText()).toBe('Out of memory: the cell used all of its 64 MB and was stopped');
      // Every terminal still takes keys.
      await page.locator('.terminal-screen:not([hidden])').click();
      await page.keyboard.type(`after${n}`);
      await expect.poll(() => terminalText(page)).toContain(`redis:6379> after${n}`);
      await page.keyboard.press('Control+U');
    }
    await cell(page, 'round-trips').getByRole('alert').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'cell-out-of-memory.png') });
    expect(engineFiles.filter((f) => f.endsWith('.wasm'))).toHaveLength(1);
    await setCode(page, 'round-trips', 'print(await redis.ping());');
    expect(await runAndWait(page, 'round-trips')).toBe('done');
    expect(await cell(page, 'round-trips').getByRole('log').innerText()).toBe('PONG');
    // The engine came once from the app's own files, and every run since reused it.
    expect(engineFiles.filter((f) => f.endsWith('.wasm'))).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("reaches nothing outside the world: the sandbox's own policy refuses every request a cell tries, and the page goes on", async () => {
    const { page, problems } = await openLesson16(1);
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
    // A server elsewhere that counts every request and connection that reaches it.
    const hits: string[] = [];
    const other = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/javascript' }).end('postMessage(1)');
    });
    other.on('upgrade', (req, socket) => {
      hits.push(`upgrade ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const at = `127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      await setCode(
        page,
        'round-trips',
        [
          `const tries = {`,
          `  'import()': () => import('http://${at}/m.js'),`,
          `  fetch: () => fetch('http://${at}/f'),`,
          `  XMLHttpRequest: () => new Promise((ok, no) => { const x = new XMLHttpRequest(); x.open('GET', 'http://${at}/x'); x.onload = () => ok(x.status); x.onerror = () => no(new Error('network error')); x.send(); }),`,
          `  WebSocket: () => new Promise((ok, no) => { const w = new WebSocket('ws://${at}/w'); w.onopen = () => ok('open'); w.onerror = () => no(new Error('no connection')); }),`,
          `  EventSource: () => new Promise((ok, no) => { const e = new EventSource('http://${at}/e'); e.onopen = () => ok('open'); e.onerror = () => { e.close(); no(new Error('no stream')); }; }),`,
          `  importScripts: () => importScripts('http://${at}/s.js'),`,
          `  'new Worker': () => new Worker('http://${at}/w.js'),`,
          `};`,
          // The world does not answer for the browser's events: the cell waits for them in steps of virtual time.
          `const settle = async (attempt) => {`,
          `  let how;`,
          `  Promise.resolve().then(attempt).then(() => (how = 'reached'), () => (how = 'refused'));`,
          `  for (let i = 0; i < 5000 && how === undefined; i++) await sleep(1);`,
          `  return how ?? 'no answer';`,
          `};`,
          `for (const [name, attempt] of Object.entries(tries)) print(name + ': ' + (await settle(attempt)));`,
          `print(typeof indexedDB, typeof caches, typeof BroadcastChannel, typeof eval);`,
          `try { (async () => {}).constructor('return 1'); print('made code'); } catch (e) { print('code from a string: refused'); }`,
          `print(await redis.ping());`,
        ].join('\n'),
      );
      expect(await runAndWait(page, 'round-trips')).toBe('done');
      expect((await cell(page, 'round-trips').getByRole('log').innerText()).split('\n')).toEqual([
        'import(): refused',
        'fetch: refused',
        'XMLHttpRequest: refused',
        'WebSocket: refused',
        'EventSource: refused',
        'importScripts: refused',
        'new Worker: refused',
        'undefined undefined undefined undefined',
        'code from a string: refused',
        'PONG',
      ]);
      expect(hits).toEqual([]);
    } finally {
      other.closeAllConnections();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
    // What the cell tried was refused by the policy, which says so in the console (the browser lists each
    // request it refused, and the server above saw none); nothing else went wrong.
    expect(problems.filter((p) => !p.includes('Content Security Policy') && !p.includes(`leaving the origin: http://${at}/`) && !p.includes(`leaving the origin: ws://${at}/`))).toEqual([]);
    // The page goes on: a new run, and an error reply with its line.
    await setCode(page, 'round-trips', "await redis.set('a', 1);\nawait redis.hget('a', 'f');");
    expect(await runAndWait(page, 'round-trips')).toBe('failed');
    expect(await cell(page, 'round-trips').getByRole('alert').innerText()).toBe('ReplyError: WRONGTYPE Operation against a key holding the wrong kind of value (line 2, column 17)');
    await page.context().close();
  });

  it('keeps the same sandbox under the dev server (npm start): the frame is served with its policy, and a cell reaches nothing', async () => {
    const { createServer: createViteServer } = await import('vite');
    const dev = await createViteServer({ root, configFile: join(root, 'vite.config.ts'), server: { port: 0, host: '127.0.0.1', hmr: false }, logLevel: 'error' });
    await dev.listen();
    const url = dev.resolvedUrls!.local[0]!;
    const context = await suite.browser.newContext();
    try {
      const page = await context.newPage();
      const frame = await (await page.request.get(url + 'cell-sandbox.html')).text();
      expect(frame).toMatch(/content="default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src blob: 'self';/);
      expect(frame).not.toContain('@vite/client');
      await page.goto(url);
      await page.getByRole('button', { name: `Lesson 16: ${TITLES[16]}` }).click();
      await setCode(
        page,
        'round-trips',
        "let how;\nPromise.resolve().then(() => fetch('http://127.0.0.1:9/x')).then(() => (how = 'reached'), () => (how = 'refused'));\nfor (let i = 0; i < 5000 && how === undefined; i++) await sleep(1);\nprint('fetch: ' + how);\nprint(await redis.ping());",
      );
      expect(await runAndWait(page, 'round-trips')).toBe('done');
      expect(await cell(page, 'round-trips').getByRole('log').innerText()).toBe('fetch: refused\nPONG');
    } finally {
      await context.close();
      await dev.close();
    }
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
    // Every text the line above the output shows, however briefly (a fast machine measures the local rows in a blink).
    // (Hidden while empty, so found by its class, not its role.)
    const status = cell(page, 'benchmark').locator('.cell-status');
    await status.evaluate((el) => {
      const seen: string[] = [];
      (window as unknown as { statusSeen: string[] }).statusSeen = seen;
      new MutationObserver(() => seen.push(el.textContent ?? '')).observe(el, { childList: true, subtree: true, characterData: true });
    });
    const done = runAndWait(page, 'benchmark', 120_000);
    await cell(page, 'benchmark').getByRole('progressbar').waitFor();
    await status.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'benchmark-progress.png') });
    expect(await done).toBe('done');
    expect(await status.innerText()).toMatch(/^Done: /);
    // While it ran, the line said which connection and function it measured, and how far the run was.
    const seen = await page.evaluate(() => (window as unknown as { statusSeen: string[] }).statusSeen);
    expect(seen.some((t) => /^Running… Unix socket, updateToken(Pipeline)?: \d\.\d of 0\.25 s \(\d%\)/.test(t))).toBe(true);
    expect(seen.some((t) => /^Running… VPN, updateToken(Pipeline)?: \d+\.\d of 30 s \(\d+%\)/.test(t))).toBe(true);
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
  }, 180_000);
});
