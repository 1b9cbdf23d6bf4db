/**
 * Input meant to break the page, in Chromium: a line of 200 KB pasted into
 * a terminal. The page takes it and stays usable. Screenshots go to
 * .tmp/e2e/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, terminalRows, terminalText, typeLines, useBrowser, type Opened } from './browser.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');

const suite = useBrowser({ shots: SHOTS });

async function open(): Promise<Opened> {
  const opened = await newWatchedPage(suite);
  await opened.page.goto(suite.app.url);
  await terminalRows(opened.page).getByText('redis:6379>').first().waitFor();
  return opened;
}

/** Pastes text into the terminal shown now, as the browser does on Ctrl+V. */
async function paste(page: Page, text: string): Promise<void> {
  await page.locator('.terminal-screen:not([hidden]) .xterm-helper-textarea').evaluate((area, pasted) => {
    const data = new DataTransfer();
    data.setData('text/plain', pasted);
    area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

describe.skipIf(!HAVE_CHROMIUM)('hostile input in Chromium', () => {
  it('takes a pasted line of 200 KB whole and sends it; the terminal goes on', async () => {
    const { page, problems } = await open();
    await page.locator('.terminal-screen:not([hidden]) .xterm-helper-textarea').focus();
    const value = 'v'.repeat(200 * 1024);
    await paste(page, `SET big ${value}`);
    await page.keyboard.press('Enter');
    await typeLines(page, 'STRLEN big');
    await expect.poll(() => terminalText(page), { timeout: 20_000 }).toContain(`(integer) ${value.length}`);
    await page.screenshot({ path: join(SHOTS, 'huge-paste.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
