/**
 * gmtime for whole seconds since the Unix epoch: the UTC calendar date and
 * time of day, computed from the day count (the proleptic Gregorian
 * calendar, as the C library does), so that the emulator needs no Date
 * object. Redis's log lines, Sentinel's ctime text and the host shell's
 * date(1) all print from it.
 *
 *   gmtime(0)             // { year: 1970, month: 0, day: 1, weekday: 4, yearDay: 1, hour: 0, ... }
 *   MONTH_ABBREVIATIONS[gmtime(1767225600).month]   // 'Jan'
 */

/** The C locale's %a. */
export const WEEKDAY_ABBREVIATIONS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** The C locale's %b. */
export const MONTH_ABBREVIATIONS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A UTC calendar date and time of day (struct tm, with a full year). */
export interface Civil {
  year: number;
  /** 0 to 11. */
  month: number;
  day: number;
  /** 0 (Sunday) to 6. */
  weekday: number;
  /** 1 to 366. */
  yearDay: number;
  hour: number;
  minute: number;
  second: number;
}

const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

export function gmtime(seconds: number): Civil {
  const sec = Math.floor(seconds);
  const days = Math.floor(sec / 86400);
  const rem = sec - days * 86400;
  // Days since 0000-03-01, in 400-year eras of 146097 days.
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 2 : mp - 10;
  const year = yoe + era * 400 + (month <= 1 ? 1 : 0);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return {
    year,
    month,
    day,
    weekday: (((days + 4) % 7) + 7) % 7,
    yearDay: DAYS_BEFORE_MONTH[month]! + (leap && month > 1 ? 1 : 0) + day,
    hour: Math.floor(rem / 3600),
    minute: Math.floor((rem % 3600) / 60),
    second: rem % 60,
  };
}
