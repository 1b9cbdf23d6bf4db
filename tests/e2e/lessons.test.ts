/**
 * The lesson pane in a real browser: the production build in Debian's
 * Chromium. (A newcomer finishing every lesson: newcomer-*.test.ts.)
 * Screenshots of the lesson pane go to .tmp/e2e/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, newWatchedPage, useBrowser, type Opened } from './browser.js';
import { lessonFileNames } from '../lessons/lesson-files.js';
import { doStepForMe, stateInList } from './lesson-steps.js';

const SHOTS = join(import.meta.dirname, '../../.tmp/e2e');

const suite = useBrowser({ shots: SHOTS });

/** The step of the lesson in the session the browser keeps (what the page opened again would restore), or null. */
function savedStep(page: Page): Promise<number | null> {
  return page.evaluate(
    () =>
      new Promise<number | null>((resolve) => {
        const open = indexedDB.open('redis-workbook');
        open.onerror = () => resolve(null);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('session')) return resolve(null);
          const get = db.transaction('session').objectStore('session').get('meta');
          get.onsuccess = () => resolve((get.result as { state?: { lesson?: { progress?: { step?: number } } } } | undefined)?.state?.lesson?.progress?.step ?? null);
          get.onerror = () => resolve(null);
        };
      }),
  );
}

async function open(colorScheme: 'light' | 'dark', viewport = { width: 1440, height: 900 }): Promise<Opened> {
  const opened = await newWatchedPage(suite, { colorScheme, viewport });
  await opened.page.goto(suite.app.url);
  await opened.page.getByRole('list', { name: 'Lessons' }).waitFor();
  return opened;
}

/** A link to lesson 0 made by someone `steps` steps into it, in a browser context of their own. */
async function linkIntoLessonZero(steps: number): Promise<string> {
  const sharer = await open('light');
  await sharer.page.getByRole('button', { name: 'Lesson 0: The workbook and the keyspace', exact: true }).click();
  for (let i = 0; i < steps; i++) await doStepForMe(sharer.page);
  await expect.poll(() => sharer.page.locator('.step-title').innerText()).toMatch(new RegExp(`^Step ${steps + 1} of 6`));
  await sharer.page.getByRole('button', { name: /^History/ }).click();
  await sharer.page.getByRole('button', { name: 'Share link' }).click();
  const link = await sharer.page.getByRole('textbox', { name: 'Link to this moment' }).inputValue();
  expect(sharer.problems).toEqual([]);
  await sharer.page.context().close();
  return link;
}

describe.skipIf(!HAVE_CHROMIUM)('lessons in Chromium', () => {
  it('lists the lessons of the catalogue and the sandbox without loading a lesson file, and loads only the file of the lesson opened', async () => {
    const opened = await newWatchedPage(suite, { colorScheme: 'light', viewport: { width: 1440, height: 900 } });
    const { page, problems } = opened;
    // The lesson files are built into chunks named after them ("02-snapshots-<hash>.js").
    const lessonFetched: string[] = [];
    page.on('request', (r) => {
      const name = new URL(r.url()).pathname.split('/').pop() ?? '';
      const file = lessonFileNames().find((f) => name.startsWith(`${f.replace(/\.md$/, '')}-`));
      if (file !== undefined) lessonFetched.push(file);
    });
    await page.goto(suite.app.url);
    const list = page.getByRole('list', { name: 'Lessons' });
    await list.waitFor();
    // Each entry's name is its own text (the number and title), the rest its description.
    for (const name of ['Lesson 0: The workbook and the keyspace', 'Lesson 2: Snapshots', 'Lesson 5: The append-only file', 'Lesson 11: Verifying snapshots and append-only files', 'Sandbox: no lesson']) {
      expect(await list.getByRole('button', { name, exact: true }).count(), name).toBe(1);
    }
    expect(await list.getByRole('listitem').count()).toBe(lessonFileNames().length + 1);
    await expect.poll(() => stateInList(page, 2, 'Snapshots').innerText()).toBe('Not started');
    await page.screenshot({ path: join(SHOTS, 'lesson-picker.png') });
    // The list came from the catalogue made when the page was built: no lesson was loaded or parsed to show it.
    await page.locator('.terminal-screen:not([hidden]) .xterm-rows').getByText('redis:6379>').waitFor();
    expect(lessonFetched).toEqual([]);
    await list.getByRole('button', { name: 'Lesson 2: Snapshots', exact: true }).click();
    await expect.poll(() => page.locator('.step-title').innerText()).toMatch(/^Step 1 of \d+/);
    expect(lessonFetched).toEqual(['02-snapshots.md']);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a step, its checks, a hint and the solution in the dark theme', async () => {
    const { page, problems } = await open('dark');
    await page.getByRole('button', { name: 'Lesson 11: Verifying snapshots and append-only files' }).click();
    await page.getByRole('button', { name: 'Show a hint (1 of 1)' }).click();
    await page.getByRole('button', { name: 'Show the solution' }).click();
    await page.getByRole('button', { name: 'Show it' }).click();
    await page.getByRole('button', { name: /^Play: Two writes/ }).click();
    await page.locator('.events-block .block-output').waitFor();
    await expect.poll(() => page.locator('.check.ok').count()).toBeGreaterThan(0);
    await page.locator('.lesson-pane').screenshot({ path: join(SHOTS, 'lesson-11-dark.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('keeps every lesson where it was left: the list says not started, step k of n or finished, and a finished lesson reopens finished, with Start again', async () => {
    const { page, problems } = await open('light');
    const zero = 'The workbook and the keyspace';
    const two = 'Snapshots';
    await expect.poll(() => stateInList(page, 0, zero).innerText()).toBe('Not started');
    await page.getByRole('button', { name: `Lesson 0: ${zero}`, exact: true }).click();
    await page.getByRole('slider', { name: 'Speed' }).fill('7');
    for (let i = 0; i < 6; i++) await doStepForMe(page);
    await page.getByText('Lesson complete').waitFor();
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 0, zero).innerText()).toBe('✓ Finished');

    // Another lesson, one step in: lesson 0 stays finished, lesson 2 shows where it is.
    await page.getByRole('button', { name: `Lesson 2: ${two}`, exact: true }).click();
    await page.locator('section.lesson-step').waitFor();
    await doStepForMe(page);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 2, two).innerText()).toMatch(/^Step 2 of \d+/);
    await expect.poll(() => stateInList(page, 0, zero).innerText()).toBe('✓ Finished');

    // Lesson 0 reopens finished, its world as it was left; lesson 2 reopens at its second step.
    await page.getByRole('button', { name: `Lesson 0: ${zero}`, exact: true }).click();
    await page.getByText('Lesson complete').waitFor({ timeout: 60_000 });
    await expect(page.getByRole('button', { name: 'Start again' }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await page.getByRole('button', { name: `Lesson 2: ${two}`, exact: true }).click();
    await expect.poll(() => page.locator('.step-title').innerText(), { timeout: 60_000 }).toMatch(/^Step 2 of /);

    // A reload keeps the list, and Start again forgets where the lesson was.
    await page.reload();
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 0, zero).innerText()).toBe('✓ Finished');
    await page.screenshot({ path: join(SHOTS, 'lesson-list-progress.png') });
    await page.getByRole('button', { name: 'Start lesson 0 again' }).click();
    await page.getByRole('group', { name: /^Start “The workbook and the keyspace” again/ }).getByRole('button', { name: 'Start again' }).click();
    await expect.poll(() => page.locator('.step-title').innerText(), { timeout: 60_000 }).toMatch(/^Step 1 of 6/);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 0, zero).innerText()).toBe('Step 1 of 6 · open now');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 240_000);

  it('opens a shared moment of a lesson beside the learner\'s own progress in it: labelled as shared, the list keeps the learner\'s step, and the learner goes back to it', async () => {
    const zero = 'The workbook and the keyspace';
    // Someone two steps into lesson 0 makes a link.
    const link = await linkIntoLessonZero(2);

    // The learner is one step into the same lesson, and opens the link.
    const { page, problems } = await open('light');
    await page.getByRole('button', { name: `Lesson 0: ${zero}`, exact: true }).click();
    await doStepForMe(page);
    await expect.poll(() => page.locator('.step-title').innerText()).toMatch(/^Step 2 of 6/);
    // Saved a moment after each change, as a learner copying the link would give it time to be.
    await expect.poll(() => savedStep(page), { timeout: 10_000 }).toBe(1);
    // The workbook left, then opened again from the link (a link differing only in its fragment would not load the page again).
    // Lesson 0's file is held back a while, as a slow network or a busy machine would: the learner's session comes back,
    // and the link opens, before their lesson has been taken up again; their lesson must still be kept for them.
    const zeroFile = lessonFileNames().find((f) => f.startsWith('00-'))!.replace(/\.md$/, '');
    const slowLesson = new RegExp(`/${zeroFile}-[^/]*\\.js$`);
    await page.route(slowLesson, async (route) => {
      await new Promise((r) => setTimeout(r, 2000));
      await route.continue();
    });
    await page.goto('about:blank');
    await page.goto(link);
    const note = page.getByRole('note', { name: 'Shared moment' });
    await note.waitFor({ timeout: 60_000 });
    await page.unroute(slowLesson);
    await expect.poll(() => page.locator('.step-title').innerText(), { timeout: 20_000 }).toMatch(/^Step 3 of 6/);
    await expect.poll(() => note.innerText(), { timeout: 20_000 }).toMatch(/not kept as your progress.*yours is at step 2 of 6/s);
    expect(await note.innerText()).toMatch(/not kept as your progress.*yours is at step 2 of 6/s);
    await page.locator('.lesson-pane').screenshot({ path: join(SHOTS, 'lesson-shared-moment.png') });

    // What the learner does in it stays out of their own progress: the list still says step 2.
    await doStepForMe(page);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 0, zero).innerText(), { timeout: 20_000 }).toBe('Step 2 of 6 · a shared moment is open');
    await page.locator('.lesson-pane').screenshot({ path: join(SHOTS, 'lesson-list-shared-moment.png') });
    // A reload keeps it a shared moment, and the list as it was.
    await page.reload();
    await note.waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 0, zero).innerText(), { timeout: 20_000 }).toBe('Step 2 of 6 · a shared moment is open');
    await page.getByRole('button', { name: `Back to the shared moment in “${zero}”` }).click();

    // Back to their own: their step, their world, their list.
    await note.getByRole('button', { name: 'Back to my own progress' }).click();
    await expect.poll(() => page.locator('.step-title').innerText(), { timeout: 60_000 }).toMatch(/^Step 2 of 6/);
    expect(await note.count()).toBe(0);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await expect.poll(() => stateInList(page, 0, zero).innerText(), { timeout: 20_000 }).toBe('Step 2 of 6 · open now');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 180_000);

  it('opens a shared link pasted into the address of a workbook already open, where only the fragment changes and the page does not load again', async () => {
    const link = await linkIntoLessonZero(1);

    const { page, problems } = await open('light');
    await page.evaluate((hash) => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
      location.hash = hash;
    }, new URL(link).hash);
    await page.getByRole('note', { name: 'Shared moment' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('.step-title').innerText()).toMatch(/^Step 2 of 6/);
    // The same page, and the link no longer in its address.
    expect(await page.evaluate(() => [(window as unknown as { notReloaded?: boolean }).notReloaded, location.hash])).toEqual([true, '']);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('starts the next step at its title, with the focus there, after "Next step" at the foot of a long step', async () => {
    const { page, problems } = await open('light', { width: 1280, height: 720 });
    await page.getByRole('button', { name: 'Lesson 5: The append-only file', exact: true }).click();
    await page.locator('section.lesson-step').waitFor();
    const body = page.locator('.lesson-body');
    const title = page.locator('#lesson-step-title');
    for (const next of ['Step 2 of ', 'Step 3 of ']) {
      await doStepForMe(page);
      await expect.poll(() => title.innerText()).toMatch(new RegExp(`^${next}`));
      // The button was at the foot of the step before: the pane had scrolled down to it.
      const seen = async (): Promise<boolean> => {
        const [b, t] = await Promise.all([body.boundingBox(), title.boundingBox()]);
        return b !== null && t !== null && t.y >= b.y && t.y + t.height <= b.y + b.height;
      };
      await expect.poll(seen).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('lesson-step-title');
    }
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('never shows what a block printed in a timeline rewound away from', async () => {
    const { page, problems } = await open('light');
    await page.getByRole('button', { name: 'Lesson 11: Verifying snapshots and append-only files' }).click();
    await page.getByRole('button', { name: /^Play: Two writes/ }).click();
    const output = page.locator('.events-block .block-output');
    await output.waitFor();
    await page.getByRole('button', { name: /^History/ }).click();
    await page.getByRole('button', { name: /^Rewind to before power loss/ }).first().click();
    await expect.poll(() => page.getByRole('combobox', { name: 'Branch' }).locator('option').count()).toBe(2);
    await expect.poll(() => output.count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('shows a fault notice only with the world that made it: another lesson or the sandbox does not inherit it', async () => {
    const { page, problems } = await open('light');
    const status = page.locator('.cluster-pane .fault-status');
    await page.getByRole('button', { name: /^Kill redis-server \(pid \d+\) on redis with SIGKILL/ }).click();
    await expect.poll(() => status.innerText()).toMatch(/^redis: redis-server \(pid \d+\) killed/);
    await page.getByRole('button', { name: 'Lesson 0: The workbook and the keyspace', exact: true }).click();
    await page.locator('section.lesson-step').waitFor();
    await expect.poll(() => status.innerText()).toBe('');
    await page.getByRole('button', { name: /^Power loss: Cut the power of / }).first().click();
    await expect.poll(() => status.innerText()).toMatch(/^\w+: power cut/);
    await page.getByRole('button', { name: 'All lessons' }).click();
    await page.getByRole('button', { name: 'Sandbox: no lesson' }).click();
    await page.getByRole('button', { name: /^Kill redis-server \(pid \d+\) on redis with SIGKILL/ }).waitFor();
    await expect.poll(() => status.innerText()).toBe('');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
