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

/**
 * strftime in the C locale for UTC, for the conversions date(1) users
 * reach for: %a %A %b %B %c %d %D %e %F %H %I %j %m %M %n %N %p %r %R %s
 * %S %t %T %u %w %y %Y %z %:z %Z %%. Unknown conversions print as typed,
 * as GNU date does.
 */
export function strftime(format: string, us: number): string {
  const d = new Date(Math.floor(us / 1000));
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
    const hour = d.getUTCHours();
    switch (spec) {
      case 'a': out += DAYS[d.getUTCDay()]; break;
      case 'A': out += DAY_NAMES[d.getUTCDay()]; break;
      case 'b': case 'h': out += MONTHS[d.getUTCMonth()]; break;
      case 'B': out += MONTH_NAMES[d.getUTCMonth()]; break;
      case 'c': out += strftime('%a %b %e %H:%M:%S %Y', us); break;
      case 'd': out += pad(d.getUTCDate(), 2); break;
      case 'D': out += strftime('%m/%d/%y', us); break;
      case 'e': out += pad(d.getUTCDate(), 2, ' '); break;
      case 'F': out += strftime('%Y-%m-%d', us); break;
      case 'H': out += pad(hour, 2); break;
      case 'I': out += pad(hour % 12 === 0 ? 12 : hour % 12, 2); break;
      case 'j': out += pad(dayOfYear(d), 3); break;
      case 'm': out += pad(d.getUTCMonth() + 1, 2); break;
      case 'M': out += pad(d.getUTCMinutes(), 2); break;
      case 'n': out += '\n'; break;
      case 'N': out += pad(Math.floor(us % 1e6) * 1000, 9); break;
      case 'p': out += hour < 12 ? 'AM' : 'PM'; break;
      case 'r': out += strftime('%I:%M:%S %p', us); break;
      case 'R': out += strftime('%H:%M', us); break;
      case 's': out += String(sec); break;
      case 'S': out += pad(d.getUTCSeconds(), 2); break;
      case 't': out += '\t'; break;
      case 'T': out += strftime('%H:%M:%S', us); break;
      case 'u': out += String(d.getUTCDay() === 0 ? 7 : d.getUTCDay()); break;
      case 'w': out += String(d.getUTCDay()); break;
      case 'y': out += pad(d.getUTCFullYear() % 100, 2); break;
      case 'Y': out += String(d.getUTCFullYear()); break;
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

function dayOfYear(d: Date): number {
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  return Math.floor((d.getTime() - start) / 86_400_000) + 1;
}

/** GNU date's default output in the C locale: "Thu Jan  1 00:00:00 UTC 2026". */
export function dateDefault(us: number): string {
  return strftime('%a %b %e %H:%M:%S %Z %Y', us);
}
