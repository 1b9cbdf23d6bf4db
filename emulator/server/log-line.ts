/**
 * A line of Redis's log as serverLogRaw prints it before the process has
 * a role, which is how redis-check-aof and redis-check-rdb print the
 * server's warnings they share code with:
 *
 *   serverLogLine(4242, 1767225600123, 'warning', 'Terminating server after rdb file reading failure.')
 *   // "4242:C 01 Jan 2026 00:00:00.123 # Terminating server after rdb file reading failure.\n"
 *
 * Times are printed in UTC, the zone of a freshly installed server.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The level characters of serverLogRaw: debug '.', verbose '-', notice '*', warning '#'. */
const LEVEL_MARK = { debug: '.', verbose: '-', notice: '*', warning: '#' } as const;

export type ServerLogLevel = keyof typeof LEVEL_MARK;

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Year, month (1-12) and day of a count of days since 1970-01-01 (the proleptic Gregorian calendar, as gmtime uses). */
export function civilDate(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

export function serverLogLine(pid: number, nowMs: number, level: ServerLogLevel, text: string): string {
  return serverLogLineAs(pid, 'C', nowMs, level, text);
}

/** The same line for a process with a role: 'M' for a running server (a primary), 'S' a replica, 'C' a child or a tool, 'X' a sentinel. */
export function serverLogLineAs(pid: number, role: 'C' | 'M' | 'S' | 'X', nowMs: number, level: ServerLogLevel, text: string): string {
  const ms = Math.floor(nowMs);
  const days = Math.floor(ms / 86_400_000);
  const inDay = ms - days * 86_400_000;
  const [year, month, day] = civilDate(days);
  const hh = Math.floor(inDay / 3_600_000);
  const mm = Math.floor(inDay / 60_000) % 60;
  const ss = Math.floor(inDay / 1000) % 60;
  const when = `${two(day)} ${MONTHS[month - 1]} ${year} ${two(hh)}:${two(mm)}:${two(ss)}.${String(inDay % 1000).padStart(3, '0')}`;
  return `${pid}:${role} ${when} ${LEVEL_MARK[level]} ${text}\n`;
}
