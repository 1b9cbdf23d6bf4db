import type { World } from '../world/world.js';
import type { ClientCpuName } from '../sim/cpu.js';

/**
 * The mistake of the book's table 4.5: opening a new connection for every
 * command. Each connection costs a handshake and the client's setup work,
 * and the client's side of each closed connection sits in TIME_WAIT for 60
 * seconds, so the ephemeral ports run out and connect() fails with "Cannot
 * assign requested address".
 */
export interface ConnectPerCommandResult {
  /** Commands completed before the first failure (or the time limit). */
  commands: number;
  /** Commands per second of virtual time while it worked. */
  commandsPerSec: number;
  /** The error that ended the run, if any. */
  error: string | null;
  /** Virtual seconds until the error. */
  seconds: number;
}

export async function connectPerCommand(
  world: World,
  opts: { from: string; to: string; client?: ClientCpuName; maxSeconds?: number },
): Promise<ConnectPerCommandResult> {
  const start = world.kernel.now;
  const end = start + (opts.maxSeconds ?? 120) * 1e6;
  let commands = 0;
  let error: string | null = null;
  let lastOk = start;
  const loop = (async () => {
    while (world.kernel.now < end) {
      const r = world.connect({ from: opts.from, to: opts.to, client: opts.client ?? 'python' });
      try {
        await r.set('key', 'value');
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
        return;
      }
      commands++;
      lastOk = world.kernel.now;
      r.disconnect();
    }
  })();
  await world.settle(loop, { maxMs: (opts.maxSeconds ?? 120) * 1000 + 300_000 });
  const seconds = (lastOk - start) / 1e6;
  return { commands, commandsPerSec: seconds > 0 ? commands / seconds : 0, error, seconds };
}
