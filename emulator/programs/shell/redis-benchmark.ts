import { startBenchmark } from '../redis-benchmark.js';
import type { Command } from './context.js';

/**
 * redis-benchmark 7.0.15: the simulated tool (emulator/programs/
 * redis-benchmark.ts) runs on this host in the foreground; Ctrl-C ends it
 * as SIGINT ends the real one.
 */
export const redisBenchmark: Command = (ctx, args) => {
  const proc = startBenchmark(ctx.world, ctx.host.name, args, (text) => ctx.out(text), { err: (text) => ctx.err(text) });
  return ctx.adopt(proc);
};
