import type { SimProcess } from '../../sim/host.js';
import { RedisProcess } from '../../process/redis-process.js';
import { usedMemory } from '../../server/info.js';
import type { Command, CommandContext } from './context.js';
import { strftime } from './dates.js';
import { LoginShellProcess, ProgramProcess, startTimeUs, TerminalProcess } from './processes.js';

/**
 * ps from procps-ng 4.0 on a host whose pid_max is 4194304 (systemd's
 * setting on 64-bit Debian 12), so PIDs take 7 columns. Forms: `ps` (this
 * terminal's processes), `ps -e`/`-A` (all), `-f` (full), and BSD's
 * `ps aux`/`ps ax`. On a terminal, lines are cut at its width, as ps does.
 * The simulated machine runs only what the world started, so there is no
 * init or sshd; daemons show parent 1.
 */
export const ps: Command = (ctx, args) => {
  const form = parseForm(args);
  if ('error' in form) {
    ctx.err(`error: ${form.error}\n\n${USAGE}`);
    return 1;
  }
  const shell = ctx.host.process(ctx.shell.shellPid);
  const tty = shell instanceof TerminalProcess ? shell.tty : '?';
  // ps itself runs for the time it takes to print, and lists itself.
  const self = ctx.host.spawn(new TerminalProcess(ctx.host, 'ps', ['ps', ...args], tty, ctx.shell.shellPid, ctx.world.kernel.now));
  try {
    const procs = [...ctx.host.processes.values()]
      .filter((p) => (form.all ? form.withoutTty || ttyOf(p) !== '?' : ttyOf(p) === tty))
      .sort((a, b) => a.pid - b.pid);
    const lines = render(ctx, form, procs, self);
    ctx.out(lines.map((l) => (ctx.isTerminal ? cut(l, ctx.columns) : l) + '\n').join(''));
  } finally {
    self.exit(0);
  }
  return 0;
};

const USAGE = `Usage:
 ps [options]

 Try 'ps --help <simple|list|output|threads|misc|all>'
  or 'ps --help <s|l|o|t|m|a>'
 for additional help text.

For more details see ps(1).
`;

interface Form {
  all: boolean;
  /** Include processes without a terminal (every one, for -e and BSD x). */
  withoutTty: boolean;
  style: 'default' | 'full' | 'bsd-user' | 'bsd';
}

function parseForm(args: readonly string[]): Form | { error: string } {
  const form: Form = { all: false, withoutTty: false, style: 'default' };
  for (const a of args) {
    if (a.startsWith('--')) return { error: 'unknown gnu long option' };
    if (a.startsWith('-')) {
      for (const c of a.slice(1)) {
        if (c === 'e' || c === 'A') {
          form.all = true;
          form.withoutTty = true;
        } else if (c === 'f') {
          form.style = 'full';
        } else {
          return { error: 'unsupported SysV option' };
        }
      }
      continue;
    }
    // BSD options, without a dash.
    let bsd: Form['style'] = 'bsd';
    for (const c of a) {
      if (c === 'a') form.all = true;
      else if (c === 'x') {
        form.all = true;
        form.withoutTty = true;
      } else if (c === 'u') bsd = 'bsd-user';
      else return { error: 'unsupported option (BSD syntax)' };
    }
    form.style = bsd;
  }
  return form;
}

function ttyOf(p: SimProcess): string {
  return p instanceof TerminalProcess ? p.tty : '?';
}

function render(ctx: CommandContext, form: Form, procs: SimProcess[], self: SimProcess): string[] {
  const now = ctx.world.kernel.now;
  const lines: string[] = [];
  switch (form.style) {
    case 'default':
      lines.push(`${'PID'.padStart(7)} TTY          TIME CMD`);
      for (const p of procs) lines.push(`${pid(p)} ${ttyOf(p).padEnd(8)} 00:00:00 ${comm(p)}`);
      break;
    case 'full':
      lines.push(`UID     ${'PID'.padStart(8)} ${'PPID'.padStart(7)}  C STIME TTY          TIME CMD`);
      for (const p of procs) {
        lines.push(`root    ${pid(p).padStart(8)} ${String(ppid(p)).padStart(7)}  0 ${startColumn(startTimeUs(ctx.world, p), now)} ${ttyOf(p).padEnd(8)} 00:00:00 ${args(p)}`);
      }
      break;
    case 'bsd':
      lines.push(`${'PID'.padStart(7)} TTY      STAT   TIME COMMAND`);
      for (const p of procs) lines.push(`${pid(p)} ${ttyOf(p).padEnd(8)} ${stat(p, self).padEnd(4)}   0:00 ${args(p)}`);
      break;
    case 'bsd-user':
      lines.push(`USER    ${'PID'.padStart(8)} %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND`);
      for (const p of procs) {
        const mem = memoryOf(p);
        const pctMem = ((mem.rssKb * 1024 * 100) / ctx.host.profile.memoryBytes).toFixed(1);
        lines.push(
          `root    ${pid(p).padStart(8)}  0.0 ${pctMem.padStart(4)} ${String(mem.vszKb).padStart(6)} ${String(mem.rssKb).padStart(5)} ` +
            `${ttyOf(p).padEnd(8)} ${stat(p, self).padEnd(4)} ${startColumn(startTimeUs(ctx.world, p), now)}   0:00 ${args(p)}`,
        );
      }
      break;
  }
  return lines;
}

function pid(p: SimProcess): string {
  return String(p.pid).padStart(7);
}

function ppid(p: SimProcess): number {
  return p instanceof TerminalProcess ? p.ppid : 1;
}

/** The command name as the kernel keeps it (15 characters at most). */
function comm(p: SimProcess): string {
  return p.name.slice(0, 15);
}

function args(p: SimProcess): string {
  return p.argv.join(' ');
}

/** Process state: sleeping daemons with threads (Ssl), the shell (Ss), the foreground (+), ps itself (R+). */
function stat(p: SimProcess, self: SimProcess): string {
  if (p === self) return 'R+';
  if (p instanceof LoginShellProcess) return p.foregroundBusy || (self instanceof TerminalProcess && self.ppid === p.pid) ? 'Ss' : 'Ss+';
  if (p instanceof ProgramProcess) return 'S+';
  if (p instanceof RedisProcess) return 'Ssl';
  return 'S';
}

/** START and STIME: the time of day within 24 hours, the date within a year, else the year. */
function startColumn(startUs: number, nowUs: number): string {
  const age = nowUs - startUs;
  if (age < 24 * 3600e6) return strftime('%H:%M', startUs);
  if (age < 365 * 24 * 3600e6) return strftime('%b%d', startUs);
  return strftime(' %Y', startUs);
}

/** Virtual and resident size in KiB: a program's usual figures, redis-server's grow with its data. */
function memoryOf(p: SimProcess): { vszKb: number; rssKb: number } {
  if (p instanceof RedisProcess) {
    const used = Math.round(usedMemory(p.server) / 1024);
    return { vszKb: 67_252 + used, rssKb: 9_856 + used };
  }
  if (p instanceof LoginShellProcess) return { vszKb: 7_236, rssKb: 3_968 };
  if (p.name === 'ps') return { vszKb: 11_084, rssKb: 4_480 };
  return { vszKb: 9_364, rssKb: 3_200 };
}

function cut(line: string, width: number): string {
  return line.length > width ? line.slice(0, width) : line;
}
