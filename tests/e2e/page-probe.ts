/**
 * What the browser tests and npm run bench -- web watch in the page, from
 * outside its code: an init script, run before the page's own scripts, that
 * records when the first prompt is drawn, when keys go down and show, the
 * frames and every long task.
 */
import type { BrowserContext } from 'playwright-core';

export interface Probe {
  promptAt: number | null;
  keys: Array<{ key: string; downAt: number; shownAt: number | null; framesBefore: number | null }>;
  frames: number;
  frameTimes: number[];
  longTasks: Array<{ start: number; duration: number }>;
}

declare global {
  interface Window {
    __probe: Probe;
  }
}

/** Runs in the page before its scripts: watches rows, keys, frames and long tasks. */
function installProbe(): void {
  const probe: Probe = { promptAt: null, keys: [], frames: 0, frameTimes: [], longTasks: [] };
  window.__probe = probe;
  const tick = (t: number): void => {
    probe.frames++;
    if (probe.frameTimes.length < 600) probe.frameTimes.push(t);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) probe.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  window.addEventListener(
    'keydown',
    (e) => {
      if (e.key.length === 1) probe.keys.push({ key: e.key, downAt: performance.now(), shownAt: null, framesBefore: probe.frames });
    },
    true,
  );
  new MutationObserver(() => {
    const rows = document.querySelector('.terminal-screen:not([hidden]) .xterm-rows');
    const text = rows?.textContent ?? '';
    if (probe.promptAt === null && text.includes('redis:6379>')) {
      probe.promptAt = performance.now();
      // For a trace of the page (npm run bench -- web): the moment, on the page's main thread.
      performance.mark('workbook-prompt');
    }
    const last = probe.keys[probe.keys.length - 1];
    if (last !== undefined && last.shownAt === null && text.includes(last.key)) {
      last.shownAt = performance.now();
      last.framesBefore = probe.frames - (last.framesBefore ?? 0);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

/**
 * Installs the probe in every page of `context`. It goes as source text with
 * the name helper some compilers wrap named functions in (tsx does; the page
 * has no such helper).
 */
export async function watchPages(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: `var __name = (f) => f; (${installProbe.toString()})();` });
}
