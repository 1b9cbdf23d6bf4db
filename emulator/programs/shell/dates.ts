import { gmtime, MONTH_ABBREVIATIONS, WEEKDAY_ABBREVIATIONS } from '../../numbers/gmtime.js';

/**
 * Dates as the C library prints them in the "C" locale and the UTC time
 * zone, which is what a freshly installed server uses. Times are virtual
 * microseconds since the Unix epoch.
 */
const DAYS = WEEKDAY_ABBREVIATIONS;
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = MONTH_ABBREVIATIONS;
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function pad(n: number, width: number, fill = '0'): string {
  return String(n).padStart(width, fill);
}

/**
 * strftime in the C locale for UTC, for the conversions date(1) users
 * reach for: %a %A %b %B %c %d %D %e %F %H %I %j %m %M %n %N %p %r %R %s
 * %S %t %T %u %w %y %Y %z %:z %Z %%. Unknown conversions print as typed,
 * as GNU date does.
 */
export function strftime(format: string, us: number): string {
  const d = gmtime(Math.floor(us / 1e6));
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
