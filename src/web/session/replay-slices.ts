import { World, type WorldCheckpoint } from '../../../emulator/world/world.js';

/** How the page gives work its turns: the next frame, and timers. */
export interface SliceScheduler {
  /** Runs `cb` at the next turn (an animation frame in the page). */
  next(cb: () => void): void;
  /** Runs `cb` after `ms` wall milliseconds; the result cancels it. */
  after(cb: () => void, ms: number): () => void;
}

export const browserSliceScheduler: SliceScheduler = {
  next(cb) {
    // A hidden tab gets no frames; a timer still lets the replay go on.
    if (typeof requestAnimationFrame === 'function' && document.visibilityState !== 'hidden') requestAnimationFrame(() => cb());
    else setTimeout(cb, 0);
  },
  after(cb, ms) {
    const t = setTimeout(cb, ms);
    return () => clearTimeout(t);
  },
};

/** Wall time one slice of a replay may take, well under the page's 50 ms. */
export const REPLAY_SLICE_MS = 12;

export interface ReplayResult {
  readonly world: World;
  /** Null when the world reached the checkpoint exactly; otherwise why not (it is still usable). */
  readonly mismatch: string | null;
}

/**
 * Rebuilds a world from a checkpoint a slice at a time, each slice at
 * most REPLAY_SLICE_MS of wall time, reporting progress between them.
 * `setup` registers the world's programs (and anything that must see the
 * replay, such as the event log) before the first action.
 */
export function replayInSlices(
  cp: WorldCheckpoint,
  setup: (world: World) => void,
  opts: { scheduler: SliceScheduler; wallNowMs: () => number; onProgress?: (fraction: number) => void; cancelled?: () => boolean },
): Promise<ReplayResult> {
  return new Promise((resolve, reject) => {
    let replay: ReturnType<typeof World.replay>;
    try {
      replay = World.replay(cp, setup);
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const slice = (): void => {
      if (opts.cancelled?.() === true) {
        reject(new ReplayCancelled());
        return;
      }
      const started = opts.wallNowMs();
      let done: boolean;
      try {
        done = replay.step(() => opts.wallNowMs() - started > REPLAY_SLICE_MS);
      } catch (e) {
        // The actions all ran but the world ended elsewhere than it was
        // saved (the emulator changed since): keep what was rebuilt.
        resolve({ world: replay.world, mismatch: e instanceof Error ? e.message : String(e) });
        return;
      }
      opts.onProgress?.(replay.progress);
      if (done) resolve({ world: replay.world, mismatch: null });
      else opts.scheduler.next(slice);
    };
    slice();
  });
}

/** A replay given up between two slices (the learner pressed Cancel): the world it was building is dropped. */
export class ReplayCancelled extends Error {
  constructor() {
    super('the rebuild was cancelled');
    this.name = 'ReplayCancelled';
  }
}
