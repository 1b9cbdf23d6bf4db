import { gmtime, MONTH_ABBREVIATIONS } from '../numbers/gmtime.js';

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

/** The level characters of serverLogRaw: debug '.', verbose '-', notice '*', warning '#'. */
const LEVEL_MARK = { debug: '.', verbose: '-', notice: '*', warning: '#' } as const;

export type ServerLogLevel = keyof typeof LEVEL_MARK;

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

export function serverLogLine(pid: number, nowMs: number, level: ServerLogLevel, text: string): string {
  return serverLogLineAs(pid, 'C', nowMs, level, text);
}

/** The same line for a process with a role: 'M' for a running server (a primary), 'S' a replica, 'C' a child or a tool, 'X' a sentinel. */
export function serverLogLineAs(pid: number, role: 'C' | 'M' | 'S' | 'X', nowMs: number, level: ServerLogLevel, text: string): string {
  const ms = Math.floor(nowMs);
  const seconds = Math.floor(ms / 1000);
  const t = gmtime(seconds);
  const when = `${two(t.day)} ${MONTH_ABBREVIATIONS[t.month]} ${t.year} ${two(t.hour)}:${two(t.minute)}:${two(t.second)}.${String(ms - seconds * 1000).padStart(3, '0')}`;
  return `${pid}:${role} ${when} ${LEVEL_MARK[level]} ${text}\n`;
}
