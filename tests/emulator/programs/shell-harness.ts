/**
 * A world with a shell on it, for the shell's tests: `run` types a line,
 * lets the world run until the shell waits for the next one, and returns
 * what the line printed.
 */
import { World } from '../../../emulator/world/world.js';
import { HostShell, type HostShellOptions } from '../../../emulator/programs/shell.js';
import { installRedisHost } from '../../../emulator/programs/host-setup.js';

export interface ShellWorld {
  world: World;
  shell: HostShell;
  /** Types a line and runs the world until the shell is idle (at most `maxMs` of virtual time). */
  run(line: string, maxMs?: number): string;
  /** Everything printed so far. */
  readonly transcript: string;
}

export function shellWorld(opts: { seed?: number; hosts?: string[]; redis?: boolean; shell?: HostShellOptions } = {}): ShellWorld {
  const world = new World({ seed: opts.seed ?? 1 });
  for (const name of opts.hosts ?? ['redis']) {
    world.addHost(name, 'metal');
    installRedisHost(world, name);
  }
  // Let the installation's flush complete.
  world.advance(1);
  if (opts.redis) world.startRedis((opts.hosts ?? ['redis'])[0]!, { config: { dir: '/var/lib/redis' } });
  let all = '';
  let pending = '';
  const shell = new HostShell(world, (opts.hosts ?? ['redis'])[0]!, (text) => {
    all += text;
    pending += text;
  }, opts.shell);
  return {
    world,
    shell,
    run(line: string, maxMs = 600_000): string {
      pending = '';
      shell.run(line);
      world.runUntil(() => !shell.busy, { maxMs });
      return pending;
    },
    get transcript() {
      return all;
    },
  };
}

/** Bytes as a byte string's array, for writing test files. */
export function bytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
