/**
 * An accessibility audit with axe-core in Chromium, over the views a learner
 * meets: the lesson list, a lesson, the cluster panel, the disk view and the
 * timeline's history. Serious and critical violations fail the test, each
 * named with the elements it found.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, terminalRows, typeLines, useBrowser } from './browser.js';

const suite = useBrowser();
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** Serious and critical violations on the page as it is, one line each. */
async function audit(page: Page, include?: string): Promise<string[]> {
  // Evaluated from outside the page, so the page's own policy (no inline scripts) stays as it is.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeSource);
  const violations = await page.evaluate(async (sel) => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const r = await axe.run(sel === undefined ? document : { include: [sel] }, { resultTypes: ['violations'] });
    return r.violations;
  }, include);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')})`);
}

describe.skipIf(!HAVE_CHROMIUM)('an accessibility audit with axe-core', () => {
  it('finds nothing serious or critical on the lesson list, a lesson, the cluster panel, the disk view and the history', async () => {
    const { page, problems } = await newWatchedPage(suite, { viewport: { width: 1280, height: 720 } });
    await page.goto(suite.app.url);
    await terminalRows(page).getByText('redis:6379>').waitFor();
    await typeLines(page, 'SET greeting hello', 'SAVE');
    await terminalRows(page).getByText('OK').nth(1).waitFor();
    const found: Record<string, string[]> = {};
    found['lesson list and cluster panel'] = await audit(page);
    await page.getByRole('tab', { name: 'Disk' }).click();
    await page.getByRole('button', { name: 'Open /var/lib/redis/dump.rdb on redis' }).waitFor();
    found['disk view'] = await audit(page);
    await page.getByRole('button', { name: /^History/ }).click();
    found['history'] = await audit(page);
    await page.keyboard.press('Escape');
    // In screen reader mode, what a fault did to the cluster is said in the cluster's live region.
    await page.getByRole('button', { name: 'Screen reader', exact: true }).click();
    await page.getByRole('tab', { name: 'Cluster' }).click();
    await page.getByRole('button', { name: 'Cut the power of redis' }).click();
    const region = page.getByRole('status', { name: 'Cluster changes' });
    await expect.poll(() => region.textContent(), { timeout: 30_000 }).toContain('Host redis lost power.');
    expect(await region.textContent()).toContain('redis:6379 is no longer running.');
    await page.getByRole('button', { name: 'Screen reader', exact: true }).click();
    await page.getByRole('button', { name: 'Lesson 2: Snapshots' }).click();
    await page.getByRole('navigation', { name: 'Steps' }).waitFor();
    found['a lesson'] = await audit(page);
    // The tab list holds only tabs, so the keyboard closes one with Delete on the focused tab.
    const tabs = page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab');
    const open = await tabs.count();
    expect(open).toBeGreaterThan(0);
    await page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { selected: true }).focus();
    await page.keyboard.press('Delete');
    await expect.poll(() => tabs.count()).toBe(open - 1);
    expect(found).toEqual({ 'lesson list and cluster panel': [], 'disk view': [], history: [], 'a lesson': [] });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
