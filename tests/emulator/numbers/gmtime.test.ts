import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gmtime } from '../../../emulator/numbers/gmtime.js';

describe('gmtime', () => {
  it('gives the calendar the C library gives, for any second from 1900 to 2400', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2_208_988_800, max: 13_569_465_600 }), (seconds) => {
        const d = new Date(seconds * 1000);
        const startOfYear = Date.UTC(d.getUTCFullYear(), 0, 1) / 1000;
        expect(gmtime(seconds)).toEqual({
          year: d.getUTCFullYear(),
          month: d.getUTCMonth(),
          day: d.getUTCDate(),
          weekday: d.getUTCDay(),
          yearDay: Math.floor((seconds - startOfYear) / 86400) + 1,
          hour: d.getUTCHours(),
          minute: d.getUTCMinutes(),
          second: d.getUTCSeconds(),
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('counts the leap day of a year divisible by 400 and not of one divisible by 100 only', () => {
    expect(gmtime(951_782_400)).toMatchObject({ year: 2000, month: 1, day: 29, yearDay: 60 });
    expect(gmtime(4_107_542_400)).toMatchObject({ year: 2100, month: 2, day: 1, yearDay: 60 });
  });
});
