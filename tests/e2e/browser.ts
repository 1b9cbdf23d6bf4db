/**
 * What every browser test file shares: the production build served and
 * Debian's Chromium launched once per file, a page opened with an eye on
 * everything that should not happen (console errors, page errors, dialogs,
 * requests leaving the app's origin), and reading and typing in the
 * terminal shown now.
 */
import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { buildAndServe, CHROMIUM_ARGS, CHROMIUM_PATH, CHROMIUM_REQUIRED, chromiumSkipNotice, HAVE_CHROMIUM, type ServedApp } from './app-server.js';

export { HAVE_CHROMIUM };

if (!HAVE_CHROMIUM) {
  if (CHROMIUM_REQUIRED) throw new Error(`${CHROMIUM_PATH} is required here (CI) but was not found: apt-get install chromium`);
  console.warn(`\n!!! ${chromiumSkipNotice()}\n`);
}

export interface BrowserSuite {
  readonly app: ServedApp;
  readonly browser: Browser;
}

/**
 * Builds and serves the app and launches Chromium before the file's tests,
 * closes both after them; `shots` is a folder made ready for screenshots.
 * Call once at the top of a file: its describe blocks share one build.
 */
export function useBrowser(opts: { shots?: string; timeoutMs?: number; logBuild?: boolean } = {}): BrowserSuite {
  let app: ServedApp | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    app = await buildAndServe();
    if (opts.logBuild) console.log('build: ' + app.files.map((f) => `${f.name} ${(f.bytes / 1024).toFixed(1)} KB`).join(', '));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    if (opts.shots !== undefined) await mkdir(opts.shots, { recursive: true });
  }, opts.timeoutMs ?? 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  return {
    get app() {
      return app!;
    },
    get browser() {
      return browser!;
    },
  };
}

export interface Opened {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors, dialogs and requests to anywhere but the app's origin. */
  problems: string[];
}

/** A new page on the app (not yet navigated), every problem it meets listed in `problems`. */
export async function newWatchedPage(
  suite: BrowserSuite,
  opts: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<Opened> {
  const context = await suite.browser.newContext({ viewport: opts.viewport ?? { width: 1400, height: 800 }, colorScheme: opts.colorScheme ?? 'light', deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems: string[] = [];
  const origin = new URL(suite.app.url).origin;
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('request', (r) => {
    const url = new URL(r.url());
    // data: and blob: URLs are the page's own (icons, downloads).
    if (url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:') problems.push(`request leaving the origin: ${r.url()}`);
  });
  return { context, page, problems };
}

/** The rows of the terminal shown now. */
export function terminalRows(page: Page) {
  return page.locator('.terminal-screen:not([hidden]) .xterm-rows');
}

/** The text of the terminal shown now, non-breaking spaces as spaces. */
export async function terminalText(page: Page): Promise<string> {
  return (await terminalRows(page).innerText()).replace(/\u00a0/g, ' ');
}

/** The rows of the terminal shown now, as text, trailing blanks and empty rows dropped. */
export async function screenLines(page: Page): Promise<string[]> {
  const lines = (await terminalText(page)).split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Types each line into the focused terminal and presses Enter after it. */
export async function typeLines(page: Page, ...lines: string[]): Promise<void> {
  for (const line of lines) {
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
  }
}
