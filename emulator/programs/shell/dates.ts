/**
 * Dates as the C library prints them in the "C" locale and the UTC time
 * zone, which is what a freshly installed server uses. Times are virtual
 * microseconds since the Unix epoch.
 */
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function pad(n: number, width: number, fill = '0'): string {
  return String(n).padStart(width, fill);
}

/** A UTC calendar date and time of day. */
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

/**
 * The UTC calendar date of a time, computed from the day count (the
 * proleptic Gregorian calendar, as gmtime does), so that the emulator
 * needs no Date object.
 */
export function civil(us: number): Civil {
  const sec = Math.floor(us / 1e6);
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
  const before = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][month]! + (leap && month > 1 ? 1 : 0);
  return {
    year,
    month,
    day,
    weekday: (((days + 4) % 7) + 7) % 7,
    yearDay: before + day,
    hour: Math.floor(rem / 3600),
    minute: Math.floor((rem % 3600) / 60),
    second: rem % 60,
  };
}

/**
 * strftime in the C locale for UTC, for the conversions date(1) users
 * reach for: %a %A %b %B %c %d %D %e %F %H %I %j %m %M %n %N %p %r %R %s
 * %S %t %T %u %w %y %Y %z %:z %Z %%. Unknown conversions print as typed,
 * as GNU date does.
 */
export function strftime(format: string, us: number): string {
  const d = civil(us);
  const sec = Math.floor(us / 1e6);
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%' || i + 1 >= format.length) {
      out += c;
      continue;
    }
    let spec = format[++i]!;
    if (spec === ':' && format[i + 1] === 'z') {
      i++;
      out += '+00:00';
      continue;
    }
    const hour = d.hour;
    switch (spec) {
      case 'a': out += DAYS[d.weekday]; break;
      case 'A': out += DAY_NAMES[d.weekday]; break;
      case 'b': case 'h': out += MONTHS[d.month]; break;
      case 'B': out += MONTH_NAMES[d.month]; break;
      case 'c': out += strftime('%a %b %e %H:%M:%S %Y', us); break;
      case 'd': out += pad(d.day, 2); break;
      case 'D': out += strftime('%m/%d/%y', us); break;
      case 'e': out += pad(d.day, 2, ' '); break;
      case 'F': out += strftime('%Y-%m-%d', us); break;
      case 'H': out += pad(hour, 2); break;
      case 'I': out += pad(hour % 12 === 0 ? 12 : hour % 12, 2); break;
      case 'j': out += pad(d.yearDay, 3); break;
      case 'm': out += pad(d.month + 1, 2); break;
      case 'M': out += pad(d.minute, 2); break;
      case 'n': out += '\n'; break;
      case 'N': out += pad(Math.floor(us % 1e6) * 1000, 9); break;
      case 'p': out += hour < 12 ? 'AM' : 'PM'; break;
      case 'r': out += strftime('%I:%M:%S %p', us); break;
      case 'R': out += strftime('%H:%M', us); break;
      case 's': out += String(sec); break;
      case 'S': out += pad(d.second, 2); break;
      case 't': out += '\t'; break;
      case 'T': out += strftime('%H:%M:%S', us); break;
      case 'u': out += String(d.weekday === 0 ? 7 : d.weekday); break;
      case 'w': out += String(d.weekday); break;
      case 'y': out += pad(d.year % 100, 2); break;
      case 'Y': out += String(d.year); break;
      case 'z': out += '+0000'; break;
      case 'Z': out += 'UTC'; break;
      case '%': out += '%'; break;
      default:
        spec = '%' + spec;
        out += spec;
    }
  }
  return out;
}

/** GNU date's default output in the C locale: "Thu Jan  1 00:00:00 UTC 2026". */
export function dateDefault(us: number): string {
  return strftime('%a %b %e %H:%M:%S %Z %Y', us);
}
