import { RedisProcess } from '../../process/redis-process.js';
import type { Command } from './context.js';

/**
 * bash's kill builtin. The world's processes know SIGKILL (gone at once),
 * SIGTERM and SIGINT (redis-server shuts down cleanly); redis-server
 * ignores SIGHUP as Redis does. Other signals are refused with a note.
 */
export const kill: Command = (ctx, args) => {
  if (args.length === 0) {
    ctx.err(USAGE);
    return 2;
  }
  let signal = 'TERM';
  let i = 0;
  const first = args[0]!;
  if (first === '-l' || first === '-L') {
    if (args.length === 1) {
      ctx.out(signalTable());
      return 0;
    }
    let status = 0;
    for (const a of args.slice(1)) {
      const n = /^\d+$/.test(a) ? Number(a) : null;
      const name = n !== null ? (n > 128 ? SIGNALS[n - 128] : SIGNALS[n]) : signalNumber(a) !== null ? String(signalNumber(a)) : undefined;
      if (name === undefined) {
        ctx.err(`bash: kill: ${a}: invalid signal specification\n`);
        status = 1;
      } else ctx.out(`${n !== null ? name.replace(/^SIG/, '') : name}\n`);
    }
    return status;
  }
  if (first === '-s' || first === '-n') {
    const spec = args[1];
    if (spec === undefined) {
      ctx.err(`bash: kill: ${first}: option requires an argument\n${USAGE}`);
      return 2;
    }
    const n = first === '-n' ? (/^\d+$/.test(spec) ? Number(spec) : null) : signalNumber(spec);
    if (n === null || SIGNALS[n] === undefined) {
      ctx.err(`bash: kill: ${spec}: invalid signal specification\n`);
      return 1;
    }
    signal = SIGNALS[n]!.slice(3);
    i = 2;
  } else if (first.startsWith('-') && first !== '-' && first !== '--') {
    const spec = first.slice(1);
    const n = signalNumber(spec);
    if (n === null) {
      ctx.err(`bash: kill: ${spec}: invalid signal specification\n`);
      return 1;
    }
    signal = SIGNALS[n]!.slice(3);
    i = 1;
  } else if (first === '--') {
    i = 1;
  }
  const targets = args.slice(i);
  if (targets.length === 0) {
    ctx.err(USAGE);
    return 2;
  }
  let status = 0;
  for (const t of targets) {
    if (t.startsWith('%')) {
      ctx.err(`bash: kill: ${t}: no such job\n`);
      status = 1;
      continue;
    }
    if (!/^-?\d+$/.test(t)) {
      ctx.err(`bash: kill: ${t}: arguments must be process or job IDs\n`);
      status = 1;
      continue;
    }
    const proc = ctx.host.process(Number(t));
    if (proc === undefined || !proc.alive) {
      ctx.err(`bash: kill: (${t}) - No such process\n`);
      status = 1;
      continue;
    }
    if (signal === 'KILL' || signal === 'TERM' || signal === 'INT') {
      proc.signal(signal);
    } else if (signal === 'HUP' && proc instanceof RedisProcess) {
      // Redis ignores SIGHUP (setupSignalHandlers).
    } else {
      ctx.err(`bash: kill: SIG${signal}: this signal is not simulated (KILL, TERM and INT are)\n`);
      status = 1;
    }
  }
  return status;
};

const USAGE = 'kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n';

/** Linux's signals by number, as bash names them. */
const SIGNALS: Record<number, string> = {
  1: 'SIGHUP', 2: 'SIGINT', 3: 'SIGQUIT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE',
  9: 'SIGKILL', 10: 'SIGUSR1', 11: 'SIGSEGV', 12: 'SIGUSR2', 13: 'SIGPIPE', 14: 'SIGALRM', 15: 'SIGTERM',
  16: 'SIGSTKFLT', 17: 'SIGCHLD', 18: 'SIGCONT', 19: 'SIGSTOP', 20: 'SIGTSTP', 21: 'SIGTTIN', 22: 'SIGTTOU',
  23: 'SIGURG', 24: 'SIGXCPU', 25: 'SIGXFSZ', 26: 'SIGVTALRM', 27: 'SIGPROF', 28: 'SIGWINCH', 29: 'SIGIO',
  30: 'SIGPWR', 31: 'SIGSYS',
};
for (let n = 34; n <= 64; n++) SIGNALS[n] = n === 34 ? 'SIGRTMIN' : n === 64 ? 'SIGRTMAX' : n <= 49 ? `SIGRTMIN+${n - 34}` : `SIGRTMAX-${64 - n}`;

/** A signal given as 9, KILL, SIGKILL or kill; null if unknown. */
function signalNumber(spec: string): number | null {
  if (/^\d+$/.test(spec)) {
    const n = Number(spec);
    return SIGNALS[n] !== undefined ? n : null;
  }
  const upper = spec.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  for (const [n, s] of Object.entries(SIGNALS)) if (s === name) return Number(n);
  return null;
}

/** kill -l: five to a line, each "%2d) %s" followed by a tab. */
function signalTable(): string {
  const nums = Object.keys(SIGNALS).map(Number).sort((a, b) => a - b);
  let out = '';
  nums.forEach((n, k) => {
    out += `${String(n).padStart(2)}) ${SIGNALS[n]}\t`;
    if (k % 5 === 4) out = out.slice(0, -1) + '\n';
  });
  return out.endsWith('\n') ? out : out + '\n';
}
