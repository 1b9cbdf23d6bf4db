import type { SimEvent } from '../../sim/kernel.js';
import type { Command } from './context.js';

/** GNU sleep: seconds, or a number with s, m, h or d; several add up. */
export const sleep: Command = (ctx, args) => {
  if (args.length === 0) {
    ctx.err("sleep: missing operand\nTry 'sleep --help' for more information.\n");
    return 1;
  }
  let us = 0;
  for (const a of args) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
    if (m === null) {
      ctx.err(`sleep: invalid time interval '${a}'\nTry 'sleep --help' for more information.\n`);
      return 1;
    }
    const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2]!]!;
    us += Math.round(Number(m[1]) * unit * 1e6);
  }
  let timer: SimEvent | null = null;
  const job = ctx.foreground('sleep', ['sleep', ...args], {
    onInterrupt: () => {
      ctx.world.kernel.cancel(timer);
      job.finish(130);
    },
    onKilled: () => ctx.world.kernel.cancel(timer),
  });
  timer = ctx.world.kernel.after(us, () => job.finish(0));
  return 'job';
};

/**
 * poweroff: the machine shuts down at once. (systemd would stop services
 * first; a simulated power-off is the abrupt kind, like `sim power-loss`.)
 */
export const poweroff: Command = (ctx) => {
  ctx.host.powerOff();
  return 0;
};

export const trueCommand: Command = () => 0;
export const falseCommand: Command = () => 1;
