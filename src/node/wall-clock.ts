import type { Clock } from '../../emulator/index.js';

/**
 * The machine's clock in microseconds since the Unix epoch, as
 * gettimeofday gives Redis: the high-resolution timer counts the
 * microseconds from the moment the process started (performance.timeOrigin,
 * read from the system clock), and the system clock keeps it honest. A
 * reading outside the millisecond the system clock says it is (the clock
 * was set or slewed since) moves the timer by just enough to be inside it,
 * so the time follows the machine's clock wherever it goes, as Redis's
 * does, and never changes while the two agree.
 */
export class WallClock implements Clock {
  private offsetUs = Math.round(performance.timeOrigin * 1000);

  nowUs(): number {
    const us = this.offsetUs + Math.floor(performance.now() * 1000);
    const msStartUs = Date.now() * 1000;
    if (us < msStartUs) {
      this.offsetUs += msStartUs - us;
      return msStartUs;
    }
    if (us >= msStartUs + 1000) {
      this.offsetUs -= us - (msStartUs + 999);
      return msStartUs + 999;
    }
    return us;
  }
}
