import type { Command, CommandContext } from './context.js';
import { REDIS_VERSION } from './redis-server.js';

/**
 * `redis-sentinel <config>` and `redis-server <config> --sentinel`: Redis
 * runs Sentinel as redis-server in sentinel mode, started, like the
 * server here, in the background. Sentinel's code is not part of what a
 * first page loads, so the first start loads it, then spawns the process.
 */
type SentinelCode = typeof import('../../sentinel/daemon.js');
let loaded: SentinelCode | null = null;
let loading: Promise<SentinelCode> | null = null;

/**
 * Loads Sentinel's code once (a lesson that starts sentinels asks for it
 * when it begins); after that `redis-sentinel` starts at once.
 */
export function loadSentinelCode(): Promise<SentinelCode> {
  loading ??= import('../../sentinel/daemon.js').then((m) => (loaded = m));
  return loading;
}

export const redisSentinel: Command = (ctx, args) => startSentinel(ctx, 'redis-sentinel', args);

/** The shared start; `program` is what the line typed ran. */
export function startSentinel(ctx: CommandContext, program: string, args: readonly string[]): number | 'job' {
  const first = args[0];
  if (first === '-v' || first === '--version') {
    ctx.out(`Redis server v=${REDIS_VERSION} sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0\n`);
    return 0;
  }
  const config = args.find((a) => !a.startsWith('--'));
  if (config === undefined) {
    // main() in src/server.c: sentinel mode needs a file it can rewrite.
    ctx.err('Sentinel needs config file on disk to save state. Exiting...\n');
    return 1;
  }
  const path = ctx.resolve(config);
  const start = (code: SentinelCode): number => {
    code.registerSentinel(ctx.world);
    return spawnSentinel(ctx, path);
  };
  // Once the code is here (loaded by a lesson, or registered by the page before a line
  // that names Sentinel and before a replay), the start is immediate, so the same line
  // does the same thing at the same time when a world replays.
  if (loaded !== null) return start(loaded);
  if (ctx.world.hasDaemon('redis-sentinel')) return spawnSentinel(ctx, path);
  const job = ctx.foreground(program, [program, ...args], { onInterrupt: () => job.finish(130), onKilled: () => {} });
  void loadSentinelCode().then(
    (code) => {
      if (job.running) job.finish(start(code));
    },
    (e: unknown) => {
      ctx.err(`${program}: ${(e as Error).message}\n`);
      if (job.running) job.finish(1);
    },
  );
  return 'job';
}

/** Starts redis-sentinel on the shell's host; its exit status as the shell sees it. */
function spawnSentinel(ctx: CommandContext, path: string): number {
  try {
    ctx.world.spawn(ctx.host.name, 'redis-sentinel', { config: path });
    return 0;
  } catch (e) {
    ctx.err(`${(e as Error).message}\n`);
    return 1;
  }
}
