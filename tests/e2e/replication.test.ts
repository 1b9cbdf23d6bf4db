/**
 * Replication in the page, in Chromium: a replica started from the host
 * shell shows in the cluster panel's topology with its link, the message
 * view draws the handshake and the snapshot between the two hosts, the
 * steps of table 4.2 are in the timeline's events, and one click makes
 * the replica a primary again. Screenshots go to .tmp/e2e/.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, screenLines, terminalRows, typeLines, useBrowser } from './browser.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');
const suite = useBrowser({ shots: SHOTS });

describe.skipIf(!HAVE_CHROMIUM)('replication in the page', () => {
  it('shows the topology, the messages of a sync and the steps of table 4.2, and promotes in one click', async () => {
    const { page, problems } = await newWatchedPage(suite, { viewport: { width: 1500, height: 900 } });
    await page.goto(suite.app.url);
    await terminalRows(page).getByText('redis:6379>').waitFor();
    await typeLines(page, 'SET greeting hello', 'RPUSH queue a b c');
    await page.getByRole('button', { name: 'New terminal' }).click();
    await page.getByRole('menuitem', { name: /Shell on redis/ }).click();
    await page.locator('.terminal-screen:not([hidden]) .xterm-rows').getByText('root@redis:~#').waitFor();
    await typeLines(page, 'sim add-host replica', 'sim ssh replica', 'redis-server --replicaof redis 6379');
    await expect.poll(() => screenLines(page)).toContain('root@replica:~#');

    const topology = page.getByRole('list', { name: 'Primaries and their replicas' });
    await expect.poll(() => topology.innerText(), { timeout: 20_000 }).toMatch(/replica:6379\s+replica of redis:6379 · offset \d+\s+link up/);
    await page.screenshot({ path: join(SHOTS, 'replication-topology.png') });

    await page.getByRole('tab', { name: 'Messages' }).click();
    const view = page.locator('.message-view');
    await view.getByRole('combobox').nth(0).selectOption('replica');
    await view.getByRole('combobox').nth(1).selectOption('redis');
    const diagram = page.getByRole('img', { name: 'Messages between replica and redis' });
    await expect.poll(() => diagram.innerHTML()).toMatch(/PSYNC/);
    const text = await diagram.innerHTML();
    for (const label of ['PING', '+PONG', 'REPLCONF listening-port 6379', '+FULLRESYNC', 'RDB ']) expect(text).toContain(label);
    await page.screenshot({ path: join(SHOTS, 'replication-messages.png') });

    await page.getByRole('tab', { name: 'Cluster' }).click();
    await page.getByRole('button', { name: 'Make redis-server on replica:6379 a primary again (REPLICAOF NO ONE)' }).click();
    await expect.poll(() => topology.innerText()).toMatch(/replica:6379\s+primary/);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
