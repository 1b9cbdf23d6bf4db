import type { LogLevel } from './server-config.js';

const SEVERITY: Record<LogLevel, number> = { debug: 0, verbose: 1, notice: 2, warning: 3 };
const MARK: Record<LogLevel, string> = { debug: '.', verbose: '-', notice: '*', warning: '#' };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Log lines in redis-server's format (src/server.c serverLogRaw):
 * `pid:role 21 Nov 2026 05:43:23.626 * message`, where the role is C while
 * the configuration loads and M once the server runs (S for a replica, X
 * for a sentinel), and the mark after
 * the time is the level (. debug, - verbose, * notice, # warning).
 */
export class ServerLog {
  role: 'C' | 'M' | 'S' | 'X' = 'C';

  constructor(
    private readonly write: (line: string) => void,
    public level: LogLevel = 'notice',
    private readonly pid: number = process.pid,
  ) {}

  enabled(level: LogLevel): boolean {
    return SEVERITY[level] >= SEVERITY[this.level];
  }

  log(level: LogLevel, message: string): void {
    if (!this.enabled(level)) return;
    this.write(`${this.pid}:${this.role} ${timestamp(new Date())} ${MARK[level]} ${message}\n`);
  }

  warning(message: string): void {
    this.log('warning', message);
  }

  notice(message: string): void {
    this.log('notice', message);
  }

  verbose(message: string): void {
    this.log('verbose', message);
  }

  /** Text as it is, without the pid, time and mark (Redis's LL_RAW), at notice level. */
  raw(text: string): void {
    if (this.enabled('notice')) this.write(text);
  }
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** strftime "%d %b %Y %H:%M:%S." plus milliseconds, in local time. */
function timestamp(d: Date): string {
  return `${pad(d.getDate())} ${MONTHS[d.getMonth()]} ${d.getFullYear()} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}
