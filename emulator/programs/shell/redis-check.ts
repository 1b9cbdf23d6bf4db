import type { SimProcess } from '../../sim/host.js';
import { runRedisCheckAof } from '../redis-check-aof.js';
import { runRedisCheckRdb } from '../redis-check-rdb.js';
import type { Command, CommandContext } from './context.js';
import { TerminalProcess } from './processes.js';

/**
 * redis-check-rdb and redis-check-aof (emulator/programs) on this host's
 * disk, as processes of their own for the pid in their log lines.
 * redis-check-aof --fix asks "Continue? [y/N]:" on standard input; this
 * shell has no input to give a running program, so the answer is the one
 * the command line already expressed: yes.
 */
function asProcess(ctx: CommandContext, name: string, args: string[], run: (proc: SimProcess) => number): number {
  const shell = ctx.host.process(ctx.shell.shellPid);
  const tty = shell instanceof TerminalProcess ? shell.tty : '?';
  const proc = ctx.host.spawn(new TerminalProcess(ctx.host, name, [name, ...args], tty, ctx.shell.shellPid, ctx.world.kernel.now));
  let code = 1;
  try {
    code = run(proc);
  } finally {
    proc.exit(code);
  }
  return code;
}

export const redisCheckRdb: Command = (ctx, args) =>
  asProcess(ctx, 'redis-check-rdb', args, (proc) =>
    runRedisCheckRdb(ctx.host.disk, ctx.cwd, ['redis-check-rdb', ...args], (t) => ctx.out(t), {
      pid: proc.pid,
      nowMs: ctx.world.kernel.now / 1000,
      err: (t) => ctx.err(t),
    }),
  );

export const redisCheckAof: Command = (ctx, args) =>
  asProcess(ctx, 'redis-check-aof', args, (proc) =>
    runRedisCheckAof(ctx.host.disk, ctx.cwd, ['redis-check-aof', ...args], (t) => ctx.out(t), {
      pid: proc.pid,
      nowMs: ctx.world.kernel.now / 1000,
      err: (t) => ctx.err(t),
      answer: 'y',
    }),
  );
