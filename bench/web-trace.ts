/**
 * The CPU time of the page's main-thread tasks, from a Chromium trace:
 * each task's thread time (what the thread ran, not the wall time it
 * took), so a figure measured on a loaded machine still says how long the
 * page's own work is. A long task's wall duration counts every moment
 * the thread was descheduled; its thread time does not.
 */
import type { Browser, Page } from 'playwright-core';

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly pid: number;
  readonly tid: number;
}

export interface TaskTimes {
  /** The longest task's thread time, ms. */
  readonly longestCpuMs: number;
  /** The longest task's wall time, ms. */
  readonly longestWallMs: number;
  /** Thread time of every task until `until` (or the end), ms. */
  readonly totalCpuMs: number;
}

/** A performance mark the page sets, to find its main thread in the trace (and the moment). */
async function mark(page: Page, name: string): Promise<void> {
  await page.evaluate((n) => void performance.mark(n), name);
}

/**
 * Traces the browser while `during` runs, and returns the CPU time of the
 * tasks of `page`'s main thread from `during`'s start to its end, or to
 * the performance mark `until` when the page sets one.
 */
export async function traceTasks(browser: Browser, page: Page, during: () => Promise<void>, opts: { until?: string; beforeNavigation?: boolean } = {}): Promise<TaskTimes> {
  await browser.startTracing(page, { categories: ['toplevel', 'blink.user_timing'] });
  let events: TraceEvent[];
  try {
    if (opts.beforeNavigation !== true) await mark(page, 'bench-from');
    await during();
    await mark(page, 'bench-to');
  } finally {
    events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
  }
  const to = events.find((e) => e.name === 'bench-to');
  if (to === undefined) throw new Error('the trace has no mark from the page');
  const from = events.find((e) => e.name === 'bench-from' && e.pid === to.pid);
  const end = events.find((e) => opts.until !== undefined && e.name === opts.until && e.pid === to.pid) ?? to;
  // A task of the thread's scheduler, as the 'toplevel' category names it.
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.pid === to.pid && e.tid === to.tid && e.ts >= (from?.ts ?? 0) && e.ts <= end.ts);
  let longest: TraceEvent | null = null;
  for (const t of tasks) if (longest === null || (t.tdur ?? 0) > (longest.tdur ?? 0)) longest = t;
  return {
    longestCpuMs: (longest?.tdur ?? 0) / 1000,
    longestWallMs: (longest?.dur ?? 0) / 1000,
    totalCpuMs: tasks.reduce((n, t) => n + (t.tdur ?? 0), 0) / 1000,
  };
}
