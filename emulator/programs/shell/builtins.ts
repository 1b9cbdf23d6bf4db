import type { Command } from './context.js';
import { dateDefault, strftime } from './dates.js';
import { quoteArg } from './quoting.js';

/** bash's echo: -n (no newline), -e (backslash escapes), -E (none, the default). */
export const echo: Command = (ctx, args) => {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!/^-[neE]+$/.test(a)) break;
    for (const c of a.slice(1)) {
      if (c === 'n') newline = false;
      else if (c === 'e') escapes = true;
      else escapes = false;
    }
  }
  let text = args.slice(i).join(' ');
  if (escapes) {
    const cut = text.indexOf('\\c');
    if (cut >= 0) {
      text = text.slice(0, cut);
      newline = false;
    }
    text = text.replace(/\\(0[0-7]{0,3}|x[0-9a-fA-F]{1,2}|[abefnrtv\\])/g, (_m, e: string) => {
      const named: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
      if (e[0] === '0') return String.fromCharCode(parseInt(e.slice(1) || '0', 8) & 0xff);
      if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
      return named[e]!;
    });
  }
  ctx.out(text + (newline ? '\n' : ''));
  return 0;
};

/** bash's cd: no argument goes home, `-` to the previous directory (and prints it). */
export const cd: Command = (ctx, args) => {
  const ops = args[0] === '--' ? args.slice(1) : args;
  if (ops.length > 1) {
    ctx.err('bash: cd: too many arguments\n');
    return 1;
  }
  let target = ops[0] ?? ctx.home;
  if (target === '-') {
    if (ctx.shell.oldCwd === null) {
      ctx.err('bash: cd: OLDPWD not set\n');
      return 1;
    }
    target = ctx.shell.oldCwd;
    ctx.out(target + '\n');
  }
  if (target === '') return 0;
  const path = ctx.resolve(target);
  try {
    if (!ctx.host.disk.stat(path).isDirectory) {
      ctx.err(`bash: cd: ${target}: Not a directory\n`);
      return 1;
    }
  } catch {
    ctx.err(`bash: cd: ${target}: No such file or directory\n`);
    return 1;
  }
  ctx.shell.setCwd(path);
  return 0;
};

export const hostname: Command = (ctx, args) => {
  if (args.length !== 0 && args[0] !== '-s' && args[0] !== '--short') {
    ctx.err('hostname: you must be root to change the host name\n');
    return 1;
  }
  ctx.out(ctx.host.name + '\n');
  return 0;
};

/** GNU date in the C locale and UTC: the default format, -u, -R, -I and +FORMAT. */
export const date: Command = (ctx, args) => {
  const now = ctx.world.kernel.now;
  let format: string | null = null;
  for (const a of args) {
    if (a === '-u' || a === '--utc' || a === '--universal') continue;
    if (a === '-R' || a === '--rfc-email') format = '%a, %d %b %Y %H:%M:%S %z';
    else if (a === '-I' || a === '--iso-8601') format = '%Y-%m-%d';
    else if (a.startsWith('+')) format = a.slice(1);
    else {
      ctx.err(a.startsWith('-') ? `date: invalid option -- '${a.slice(1, 2)}'\nTry 'date --help' for more information.\n` : `date: invalid date ${quoteArg(a)}\n`);
      return 1;
    }
  }
  ctx.out((format === null ? dateDefault(now) : strftime(format, now)) + '\n');
  return 0;
};

export const clear: Command = (ctx) => {
  ctx.out('\x1b[H\x1b[2J\x1b[3J');
  return 0;
};

export const HELP = `This is a shell on a simulated Linux machine. It runs one command per line:
  ls [-l] [-a] [-h] [path...]   cat path...        hexdump [-C] path   sha256sum path...
  cp src dst                    rm [-rf] path...   mkdir [-p] dir    rmdir dir
  touch file                    sync               pwd    cd [dir]   echo text
  ps [-ef | aux]                kill [-9|-TERM|-INT] pid...          date    hostname
  ping [-c N] host              scp [host:]path [host:]path
  redis-server [redis.conf] [--option value...]   (starts in the background)
  redis-cli [-h host] [-p port] command [args...]
  redis-benchmark [options]     redis-check-rdb file    redis-check-aof [--fix] file
  sysctl [-w] net.ipv4.ip_local_port_range[="first last"]  (the ports for outgoing connections)
  poweroff
Output can go to a file with > and >>. Pipes, ; and && are not simulated.
sim help lists what the simulation itself can do (partitions, power cuts, time).
`;

export const help: Command = (ctx) => {
  ctx.out(HELP);
  return 0;
};
