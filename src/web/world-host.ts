import type { RealtimeDriver } from '../../emulator/sim/index.js';
import type { World } from '../../emulator/world/world.js';

/**
 * What a terminal's program needs from the page's world: the world, its
 * realtime driver, and a way in for outside input.
 */
export interface WorldHost {
  readonly world: World;
  readonly driver: RealtimeDriver;
  /**
   * Runs input from outside the world (a command typed, a line for the
   * shell): virtual time first catches up with the wall clock, then `fn`
   * runs, then the world is woken to carry out what `fn` started.
   */
  input<T>(fn: () => T): T;
}
