import { HostShell } from '../../emulator/programs/shell-parts.js';
import type { World } from '../../emulator/world/world.js';
import { parseEventLine } from './event-lines.js';
import type { LessonHost } from './host.js';
import { runningServer } from './observe.js';
import { parseServerRef, type WorldSpec } from './schema.js';
import { configPath } from './world.js';

/**
 * Plays a lesson's scripted events as shell lines typed by an operator: a
 * root shell on the host each event concerns runs `sim power-loss A`,
 * `redis-server /etc/redis/redis.conf` or `kill -9 1003`. The world
 * records those lines like any learner's, so a checkpoint replays them,
 * and their output is what the lesson pane shows under the block.
 */
export class EventPlayer {
  private world: World | null = null;
  private shells = new Map<string, HostShell>();

  constructor(
    private readonly host: LessonHost,
    private readonly spec: WorldSpec,
  ) {}

  /** Plays one event line; resolves with what the shell printed. */
  async play(line: string): Promise<string> {
    const ev = parseEventLine(line, this.spec);
    // A stopped server takes a while to shut down (its last snapshot, the
    // AOF's fsync): the next event waits for it to be gone, so that a
    // `start` right after finds its port free.
    const stopping = ev.verb === 'stop' ? runningServer(this.host.world, parseServerRef(ev.args[0]!).host, parseServerRef(ev.args[0]!).port) : null;
    const command = this.commandFor(ev.verb, ev.args);
    if (typeof command !== 'string') return command.note;
    let output = '';
    const shell = this.shell(ev.host);
    const previous = this.writers.get(shell);
    this.writers.set(shell, (t) => (output += t));
    try {
      const prompt = shell.prompt;
      this.host.input(() => shell.run(command));
      output = prompt + command + '\n' + output;
      // The next event follows as soon as this one has ended: a program the
      // line started has finished, a server has loaded its data.
      if (shell.busy) await this.host.settleUntil(() => !shell.busy);
      if (ev.verb === 'start') await this.host.settleUntil(() => serverReady(this.host.world, ev.args[0]!));
      if (stopping !== null) await this.host.settleUntil(() => !stopping.alive);
    } finally {
      this.writers.set(shell, previous ?? null);
    }
    return output;
  }

  private readonly writers = new Map<HostShell, ((t: string) => void) | null>();

  /** The shell line for an event, or a note when there is nothing to do. */
  private commandFor(verb: string, args: readonly string[]): string | { note: string } {
    if (verb === 'start' || verb === 'stop' || verb === 'kill') {
      const { host, port } = parseServerRef(args[0]!);
      if (verb === 'start') return `redis-server ${configPath(port)}`;
      const p = runningServer(this.host.world, host, port);
      if (p === null) return { note: `(no redis-server is running on ${host}:${port}: nothing to ${verb})\n` };
      return verb === 'kill' ? `kill -9 ${p.pid}` : `kill ${p.pid}`;
    }
    if (verb === 'shell') return args[1]!;
    return `sim ${[verb, ...args].join(' ')}`;
  }

  /** The operator's shell on a host of the current world, opened on first use. */
  private shell(hostName: string): HostShell {
    const world = this.host.world;
    if (world !== this.world) {
      this.world = world;
      this.shells = new Map();
    }
    let shell = this.shells.get(hostName);
    if (shell === undefined) {
      const created = this.host.input(
        () => new HostShell(world, hostName, (t) => this.writers.get(created)?.(t), { driver: this.host.driver ?? undefined }),
      );
      shell = created;
      this.shells.set(hostName, shell);
    }
    return shell;
  }
}

/** The server is up and has loaded its data (or has given up starting). */
function serverReady(world: World, ref: string): boolean {
  const { host, port } = parseServerRef(ref);
  const p = runningServer(world, host, port);
  return p === null || !p.server.stats.persistence.loading;
}
