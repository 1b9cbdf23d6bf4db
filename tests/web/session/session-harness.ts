import { expect } from 'vitest';
import { datasetDigest } from '../../../emulator/commands/debug-digest.js';
import type { World } from '../../../emulator/world/world.js';
import { MemoryStore } from '../../../src/web/session/kv-store.js';
import type { SliceScheduler } from '../../../src/web/session/replay-slices.js';
import { StateProviders } from '../../../src/web/session/state-providers.js';
import { WorkbookSession } from '../../../src/web/session/workbook-session.js';
import { WorldStore, type FrameScheduler, type TerminalChoice } from '../../../src/web/world-store.js';
import { Screen } from '../terminal/screen.js';
// Loaded with the harness, so a session's checks (imported when a session is read) are ready at once.
import '../../../src/web/session/session-data.js';
import { loadShellParts } from '../../../src/web/shell-loader.js';

// The page loads the host shell's code when a shell is first needed; here it is loaded
// beforehand, so that the harness's fake clocks alone drive every terminal.
await loadShellParts();

/** A frame of the page, in wall ms. */
const FRAME_MS = 16;

/**
 * A page without the browser: a WorldStore and a WorkbookSession on a
 * wall clock the test moves, with frames, timers and replay slices run by
 * the test, and a key-value store in memory that outlives the "page" (a
 * second harness on the same store is the page reloaded).
 */
export function sessionHarness(opts: { kv?: MemoryStore; open?: boolean; wallStepMs?: number } = {}) {
  let wall = 1000;
  const frames: Array<() => void> = [];
  const timers: Array<{ at: number; cb: () => void }> = [];
  const scheduler: FrameScheduler = {
    frame: (cb) => frames.push(cb),
    later: (cb, ms) => timers.push({ at: wall + ms, cb }),
  };
  const slices: SliceScheduler = {
    next: (cb) => frames.push(cb),
    after: (cb, ms) => {
      const t = { at: wall + ms, cb };
      timers.push(t);
      return () => {
        const i = timers.indexOf(t);
        if (i >= 0) timers.splice(i, 1);
      };
    },
  };
  const kv = opts.kv ?? new MemoryStore();
  const providers = new StateProviders();
  // Each read of the wall clock moves it on a little, so a replay sees time pass within its slices.
  const wallStep = opts.wallStepMs ?? 0;
  const wallNowMs = (): number => (wall += wallStep);
  const store = new WorldStore({ seed: 1, wallNowMs, scheduler });
  const session = new WorkbookSession(store, { kv, scheduler: slices, wallNowMs, providers, saveDelayMs: 500 });
  store.start();

  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  const run = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += FRAME_MS) {
      wall += FRAME_MS;
      for (const timer of timers.filter((x) => x.at <= wall)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.cb();
      }
      for (const cb of frames.splice(0)) cb();
      await settle();
      await settle();
    }
  };

  /** Runs frames until `work` settles (it may wait on real time as well as on frames), up to 30 s of wall time. */
  const until = async <T>(work: Promise<T>): Promise<T> => {
    let done = false;
    void work.finally(() => (done = true)).catch(() => undefined);
    const started = Date.now();
    while (!done && Date.now() - started < 30_000) await run(FRAME_MS);
    return work;
  };

  const screens = new Map<string, { screen: Screen; raw: string }>();
  /** Shows a terminal on a model screen (what was shown so far is drawn first). */
  const view = (id: string, cols = 80) => {
    const session = store.terminal(id)!;
    const screen = new Screen(cols);
    const entry = { screen, raw: '' };
    session.resize(cols);
    session.attach((text) => {
      entry.raw += text;
      screen.write(text);
    });
    screens.set(id, entry);
    return {
      id,
      session,
      screen,
      lines: () => screen.text(),
    };
  };

  return {
    store,
    session,
    kv,
    providers,
    run,
    view,
    /** Opens a terminal and shows it. */
    open(choice?: TerminalChoice, title?: string) {
      const id = store.openTerminal(choice, title === undefined ? {} : { title });
      return view(id);
    },
    /**
     * Loads the stored session, running frames meanwhile as the page would:
     * reading a session first loads its checks (a dynamic import), which
     * takes real time, not frames.
     */
    load: (): Promise<boolean> => until(session.load()),
    until,
    /** Runs until the session is no longer busy (a replay), up to `maxMs` of wall time. */
    async idle(maxMs = 20_000): Promise<void> {
      for (let t = 0; t < maxMs && session.getSnapshot().busy !== null; t += FRAME_MS) await run(FRAME_MS);
      await run(50);
    },
  };
}

/** The dataset of the redis-server on `host`, as DEBUG DIGEST sees it. */
export function digest(world: World, host = 'redis', port = 6379): string {
  const p = world.redis(host, port);
  if (p === undefined) return 'no server';
  return datasetDigest(p.server.dbs);
}

/** What a reload must bring back exactly: the data, the trace, the virtual time and the events run. */
export function worldState(world: World): { digest: string; hash: string; now: number; events: number } {
  return { digest: digest(world), hash: world.trace.hash(), now: world.kernel.now, events: world.kernel.eventsRun };
}

/**
 * The page reloaded: saves the session paused, closes the page, opens
 * another on the same store and runs until it has replayed the world,
 * which must be the same world (data, trace, virtual time, events run).
 */
export async function reloaded(first: ReturnType<typeof sessionHarness>): Promise<ReturnType<typeof sessionHarness>> {
  first.store.pause();
  await first.session.save();
  const expected = worldState(first.store.world);
  first.store.stop();
  first.session.dispose();
  const again = sessionHarness({ kv: first.kv });
  expect(await again.load()).toBe(true);
  await again.idle();
  expect(worldState(again.store.world)).toEqual(expected);
  return again;
}
