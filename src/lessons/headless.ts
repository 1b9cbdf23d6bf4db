import { RedisCliRepl } from '../../emulator/redis-cli/repl.js';
import { HostShell } from '../../emulator/programs/shell-parts.js';
import { SessionLink } from '../../emulator/programs/index.js';
import type { World } from '../../emulator/world/world.js';
import type { LessonHost, TimedReply } from './host.js';
import { parseServerRef, type TerminalSpec } from './schema.js';
import { TerminalReplies } from './terminal-replies.js';

/** One terminal without a screen: redis-cli over a session of the world, or a host shell. */
interface HeadlessTerminal {
  readonly prompt: string;
  run(line: string): Promise<void>;
}

/**
 * A lesson's world on the kernel, driven by hand: no page, no wall clock.
 * Each typed line runs until its reply or its program's end, and the
 * terminals' screens are kept as one transcript, for tests and scripts.
 *
 *   const host = new HeadlessLessonHost();
 *   const runner = new LessonRunner(lesson, host);
 *   runner.start();
 *   await runner.playSolution(0);
 *   host.transcript;   // "[redis] A:6379> SET a 1\nOK\n..."
 */
export class HeadlessLessonHost implements LessonHost {
  readonly driver = null;
  private current: World | null = null;
  private terminals = new Map<string, HeadlessTerminal>();
  private replies: TerminalReplies | null = null;
  /** Everything shown in every terminal, each line tagged with its terminal's name. */
  transcript = '';

  /** @param thinkMs virtual time a learner takes before each line or block of events. */
  constructor(readonly thinkMs = 2000) {}

  get world(): World {
    if (this.current === null) throw new Error('no world yet: start the lesson first');
    return this.current;
  }

  setWorld(world: World): void {
    this.current = world;
    this.terminals = new Map();
    this.replies = new TerminalReplies(world);
  }

  openTerminals(specs: readonly TerminalSpec[]): void {
    for (const spec of specs) this.terminals.set(spec.name, this.replies!.opening(spec, () => this.open(spec)));
  }

  private open(spec: TerminalSpec): HeadlessTerminal {
    const world = this.world;
    const print = (text: string) => this.print(spec.name, text);
    if (spec.kind === 'shell') {
      const shell = new HostShell(world, spec.host, print);
      return {
        get prompt() {
          return shell.prompt;
        },
        run: (line) => {
          shell.run(line);
          world.runUntil(() => !shell.busy, { maxMs: 600_000 });
          return Promise.resolve();
        },
      };
    }
    const { host, port } = parseServerRef(spec.server);
    let link: SessionLink | null = null;
    // The line still running: a MONITOR or SUBSCRIBE, which never ends by itself.
    let streaming: Promise<unknown> | null = null;
    const cli = new RedisCliRepl({
      connect: () => {
        link = new SessionLink(world, spec.from, `${host}:${port}`);
        // A reply settles a promise redis-cli awaits: let world.settle run it at the reply's virtual time.
        link.session.subscribe(() => {
          world.kernel.promisesSettled = true;
        });
        return link;
      },
      host,
      port,
      output: 'tty',
      showPushes: true,
      write: print,
      writeError: print,
      nowMs: () => world.kernel.now / 1000,
    });
    // redis-cli connects before its first prompt; the connection is made at once.
    void cli.connect();
    return {
      get prompt() {
        return cli.prompt;
      },
      run: async (line) => {
        // The learner presses Ctrl-C to type into a terminal that prints a stream, as redis-cli needs.
        if (streaming !== null) {
          this.print(spec.name, '^C\n');
          cli.interrupt();
          await world.settle(streaming, { maxMs: 60_000 });
          streaming = null;
        }
        let ended = false;
        const running = cli.runLine(line).finally(() => {
          ended = true;
        });
        // A stream's first reply (MONITOR's OK, SUBSCRIBE's confirmation) ends the line for the learner; what comes after is printed as it comes.
        await world.kernel.runUntilAsync(() => ended || (cli.busy && link !== null && link.session.pending === 0), { maxMs: 600_000 });
        if (ended) await running;
        else streaming = running;
      },
    };
  }

  async typeLine(terminal: string, line: string): Promise<void> {
    const t = this.terminals.get(terminal);
    if (t === undefined) throw new Error(`no terminal named ${terminal}`);
    this.print(terminal, `${t.prompt}${line}\n`);
    await t.run(line);
  }

  input<T>(fn: () => T): T {
    return fn();
  }

  settleUntil(ready: () => boolean): Promise<void> {
    this.world.runUntil(ready, { maxMs: 60_000 });
    return Promise.resolve();
  }

  think(): Promise<void> {
    this.world.advance(this.thinkMs);
    return Promise.resolve();
  }

  eventsPlayed(output: string): void {
    this.print('events', output);
  }

  /** The world here only moves when told to: nothing to hold. */
  holdingTime<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  connectionLost(terminal: string): boolean {
    const t = this.terminals.get(terminal);
    // "not connected>": redis-cli knows, and its next command connects again by itself.
    if (t === undefined || t.prompt.startsWith('not connected')) return false;
    return this.replies?.connectionLost(terminal) ?? false;
  }

  lastReply(terminal: string): TimedReply | null {
    return this.replies?.lastReply(terminal) ?? null;
  }

  /** Adds a line of the lesson's own (events, checks) to the transcript. */
  note(text: string): void {
    this.print('lesson', text.endsWith('\n') ? text : `${text}\n`);
  }

  private print(name: string, text: string): void {
    const lines = text.replace(/\r/g, '').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    for (const l of lines) this.transcript += `[${name}] ${l}\n`;
  }
}
