/**
 * The ledger tab in Chromium: after lesson 12's failover it lists the
 * writes the old primary acknowledged and lost, with the verdict in
 * sentences, reached by the keyboard from the pane's tabs.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, useBrowser } from './browser.js';
import { doStepForMe } from './lesson-steps.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e/ledger');

describe.skipIf(!HAVE_CHROMIUM)('the ledger tab', () => {
  const suite = useBrowser({ shots: SHOTS });
  it('shows what the split brain of lesson 12 cost, as text, by the keyboard', async () => {
    const { page, problems } = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
    await page.goto(suite.app.url);
    await page.getByRole('button', { name: 'Lesson 12: Replacing a failed master' }).click();
    await page.locator('section.lesson-step').waitFor();
    await page.getByRole('slider', { name: 'Speed' }).fill('7');
    for (let i = 0; i < 3; i++) await doStepForMe(page);
    const tab = page.getByRole('tab', { name: 'Messages' });
    await tab.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByRole('tab', { name: 'Ledger' }).getAttribute('aria-selected')).toBe('true');
    const verdict = page.locator('.ledger-verdict');
    await expect.poll(() => verdict.innerText(), { timeout: 60_000 }).toMatch(/^\d+ writes acknowledged, \d+ of them judged against the data on B, the primary now\.\n+\d+ writes acknowledged by C after the partition were lost\.$/);
    const rows = page.getByRole('region', { name: 'Acknowledged writes, newest first' });
    await page.keyboard.press('Tab');
    await expect.poll(() => rows.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await rows.locator('tr.lost').count()).toBeGreaterThan(0);
    await expect.poll(() => rows.locator('tr.lost').first().innerText()).toMatch(/C \(primary\)\s+(INCR reports:written|SET order:\d+ paid)\s+\S+\s+lost/);
    await page.screenshot({ path: join(SHOTS, 'ledger-tab.png') });
    expect(problems).toEqual([]);
  }, 600_000);
});
