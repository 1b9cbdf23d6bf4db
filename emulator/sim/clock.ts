/**
 * Virtual time. Everything in the emulator that needs "now" asks a Clock;
 * nothing reads the wall clock. Time is an integer number of microseconds
 * since the simulation's epoch, which is itself a Unix time so that
 * EXPIREAT, TIME and LASTSAVE give believable values.
 */
export interface Clock {
  /** Microseconds since the Unix epoch, in virtual time. */
  nowUs(): number;
}

/** 2026-01-01T00:00:00Z, the default origin of virtual time. */
export const DEFAULT_EPOCH_US = 1_767_225_600_000_000;

/**
 * A clock that only moves when told to. Tests and lesson checks drive it.
 *
 *   const clock = new ManualClock();
 *   clock.advanceMs(1500);
 */
export class ManualClock implements Clock {
  private us: number;

  constructor(startUs: number = DEFAULT_EPOCH_US) {
    this.us = startUs;
  }

  nowUs(): number {
    return this.us;
  }

  advanceUs(us: number): void {
    if (!(us >= 0) || !Number.isInteger(us)) throw new RangeError(`cannot advance the clock by ${us} us`);
    this.us += us;
  }

  advanceMs(ms: number): void {
    this.advanceUs(Math.round(ms * 1000));
  }

  setUs(us: number): void {
    if (us < this.us) throw new RangeError('virtual time never goes backwards');
    this.us = us;
  }
}
