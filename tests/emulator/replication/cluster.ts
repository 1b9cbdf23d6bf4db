import { World } from '../../../emulator/world/world.js';
import type { LinkProfileName } from '../../../emulator/sim/links.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

/**
 * Two servers on hosts A and B (and C for chains), an application host
 * next to them; B is made a replica of A in each test.
 */
export function setup(opts: { config?: Record<string, string>; link?: LinkProfileName; hosts?: string[] } = {}) {
  const world = new World({ seed: 7 });
  const hosts = opts.hosts ?? ['A', 'B'];
  world.addHost('app', 'metal');
  for (const h of hosts) {
    world.addHost(h, 'metal');
    world.link('app', h, 'lan');
  }
  for (let i = 0; i < hosts.length; i++) for (let j = i + 1; j < hosts.length; j++) world.link(hosts[i]!, hosts[j]!, opts.link ?? 'lan');
  const procs = new Map<string, RedisProcess>();
  for (const h of hosts) procs.set(h, world.startRedis(h, { config: { save: '', 'enable-debug-command': 'yes', ...opts.config } }));
  const client = (h: string) => world.connect({ from: 'app', to: `${h}:6379` });
  const clients = new Map(hosts.map((h) => [h, client(h)]));
  const run = async (h: string, command: string, ...args: string[]): Promise<unknown> => {
    try {
      return await world.settle(clients.get(h)!.call(command, ...args));
    } catch (e) {
      return (e as Error).message;
    }
  };
  const log = (h: string): string[] => world.trace.find('log', h).map((e) => e.text);
  const field = async (h: string, name: string): Promise<string | undefined> => {
    const text = (await run(h, 'INFO', 'replication')) as string;
    return new RegExp(`^${name}:(.*)\\r$`, 'm').exec(text)?.[1];
  };
  const until = (done: () => boolean, maxMs = 30_000): void => {
    if (!world.runUntil(done, { maxMs })) throw new Error('condition not reached in time');
  };
  const linkUp = (h: string): boolean => procs.get(h)!.server.replication.replica.state === 'connected';
  return { world, procs, run, log, field, until, linkUp, server: (h: string) => procs.get(h)!.server };
}
