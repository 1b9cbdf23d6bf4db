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

export function serverLogLine(pid: number, nowMs: number, level: ServerLogLevel, text: string): string {
  const d = new Date(Math.floor(nowMs));
  const ms = String(Math.floor(nowMs) % 1000).padStart(3, '0');
  const when = `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${ms}`;
  return `${pid}:C ${when} ${LEVEL_MARK[level]} ${text}\n`;
}
