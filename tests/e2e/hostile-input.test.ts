/**
 * Input meant to break the page, in Chromium: a line of 200 KB pasted into
 * a terminal; a crafted session file, and one whose replay would take
 * hours. The page takes what it can, refuses the rest with a reason, lets
 * a long rebuild be cancelled, and stays usable. Screenshots go to
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

  it('refuses a crafted session file with its reason, cancels a rebuild that would take hours, and keeps its sandbox', async () => {
    const { page, problems } = await open();
    await page.locator('.terminal-screen:not([hidden]) .xterm-helper-textarea').focus();
    await typeLines(page, 'SET kept 1');
    await expect.poll(() => terminalText(page)).toContain('OK');
    await page.getByRole('button', { name: /^History/ }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const exported = JSON.parse(await (await (await download).createReadStream()).toArray().then((b) => Buffer.concat(b).toString('utf8'))) as {
      activeBranch: string;
      branches: Array<{ id: string; startUs: number; head: { nowUs: number; eventsRun: number } }>;
      logs: Record<string, Array<{ action: { kind: string; profile?: unknown } }>>;
    };
    const importFile = (data: unknown) => page.locator('.session-controls input[type="file"]').setInputFiles({ name: 'session.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(data)) });

    const crafted = structuredClone(exported);
    const addHost = crafted.logs[crafted.activeBranch]!.find((a) => a.action.kind === 'addHost')!;
    addHost.action.profile = { name: 'odd', cpuSpeed: 0, forkMsPerGb: 15, disk: 'tape', memoryBytes: 2 ** 30 };
    await importFile(crafted);
    await expect.poll(() => page.locator('.import-error').innerText()).toMatch(/^The session file is damaged: logs\..*not a machine profile the workbook knows/);

    // A world 300 days on: valid, but hours of replay.
    const long = structuredClone(exported);
    const head = long.branches.find((b) => b.id === long.activeBranch)!.head;
    head.nowUs = long.branches[0]!.startUs + 300 * 24 * 3600 * 1e6;
    head.eventsRun = 200_000_000;
    await importFile(long);
    const progress = page.getByRole('progressbar', { name: 'Importing the session' });
    await progress.waitFor();
    await page.screenshot({ path: join(SHOTS, 'import-progress.png') });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await progress.waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('.import-error').innerText()).toMatch(/cancelled/);
    // The sandbox the page had is still there and answers.
    await page.locator('.terminal-screen:not([hidden]) .xterm-helper-textarea').focus();
    await typeLines(page, 'GET kept');
    await expect.poll(() => terminalText(page)).toContain('"1"');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
