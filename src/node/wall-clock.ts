import type { Clock } from '../../emulator/index.js';

/**
 * Real time for a server that talks to real clients: microseconds since the
 * Unix epoch from the high-resolution timer (which does not jump back when
 * the system clock is adjusted while the server runs).
 */
export class WallClock implements Clock {
  private readonly originUs = Math.round(performance.timeOrigin * 1000);

  nowUs(): number {
    return this.originUs + Math.floor(performance.now() * 1000);
  }
}
