/**
 * The page under the dev server (`npm start`, Vite's dev mode) behaves as
 * the production build does: one smoke path, run against both. A learner
 * sees the lesson list, types a few commands, saves, opens the Disk tab and the file viewer on
 * dump.rdb, which must decode the file (its reader is loaded on demand,
 * which is where dev and build differ most).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, typeLines, useBrowser } from './browser.js';

const root = join(import.meta.dirname, '../..');
const suite = useBrowser({ shots: join(root, '.tmp/e2e') });

/** The smoke path on the workbook at `url`; returns the errors the page reported. */
async function smokePath(page: Page, url: string, shot: string): Promise<string[]> {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // The dev server transforms each module on its first request, which on a loaded machine takes
  // longer than a page load is given: wait for the page to come up, not for its load event.
  await page.goto(url, { waitUntil: 'commit' });
  const terminal = page.locator('.terminal-screen:not([hidden]) .xterm-rows');
  await terminal.getByText('redis:6379>').waitFor({ timeout: 150_000 });
  // The lesson list comes from a module the build (or the dev server) makes from the lesson files.
  await page.getByRole('list', { name: 'Lessons' }).getByRole('button', { name: 'Lesson 0: The workbook and the keyspace', exact: true }).waitFor({ timeout: 60_000 });
  await typeLines(page, 'SET greeting hello', 'SAVE');
  await terminal.getByText('OK').nth(1).waitFor();
  await page.getByRole('tab', { name: 'Disk' }).click();
  const dump = page.getByRole('button', { name: 'Open /var/lib/redis/dump.rdb on redis' });
  await dump.click();
  const viewer = page.getByRole('dialog', { name: /dump\.rdb/ });
  await expect.poll(() => viewer.locator('.facts').innerText(), { timeout: 60_000 }).toMatch(/RDB version 10[\s\S]*complete: the checksum matches/);
  await expect.poll(() => viewer.getByRole('list', { name: 'Records' }).innerText()).toMatch(/"greeting"\s+string/);
  await page.screenshot({ path: join(root, '.tmp/e2e', shot) });
  await page.keyboard.press('Escape');
  await expect.poll(() => viewer.count()).toBe(0);
  return problems;
}

describe.skipIf(!HAVE_CHROMIUM)('the same page under the dev server and in the build', () => {
  it('opens the file viewer on dump.rdb in the production build', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 } });
    try {
      expect(await smokePath(await context.newPage(), suite.app.url, 'build-viewer.png')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('opens the file viewer on dump.rdb under the dev server (npm start)', async () => {
    const { createServer } = await import('vite');
    const dev = await createServer({ root, configFile: join(root, 'vite.config.ts'), server: { port: 0, host: '127.0.0.1', hmr: false }, logLevel: 'error' });
    await dev.listen();
    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 } });
    try {
      const page = await context.newPage();
      expect(await smokePath(page, dev.resolvedUrls!.local[0]!, 'dev-server-viewer.png')).toEqual([]);
    } finally {
      await context.close();
      await dev.close();
    }
  }, 300_000);
});
