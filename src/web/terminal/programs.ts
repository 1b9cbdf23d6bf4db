import { CliSession, type LineResult } from '../../../emulator/cli/session.js';
import type { CliLink } from '../../../emulator/cli/link.js';
import { HostShell, type RedisCliTarget } from '../../../emulator/programs/shell.js';
import { SessionLink } from '../../../emulator/programs/session-link.js';
import type { WorldHost } from '../world-host.js';

/**
 * What runs in a terminal tab: redis-cli on a connection of the world, or
 * a root shell on one of its hosts. Lines and output are byte strings
 * (UTF-8 bytes, one char per byte), as the emulator's programs take them.
 */
export interface TerminalProgram {
  /** What the program is called when it ends ("redis-cli", "bash"). */
  readonly name: string;
  /** The prompt to show now, as bytes. */
  readonly prompt: string;
  /** Gets ready for the first line (redis-cli connects before its first prompt). */
  start(): Promise<void>;
  /** Runs one line; resolves when the program waits for the next one. */
  runLine(line: string): Promise<LineResult>;
  /** Ctrl-D on an empty line. */
  endOfInput(): Promise<LineResult>;
  /**
   * Ctrl-C while a line runs: 'continue' when the program handles it and
   * runLine will resolve; 'exit' when the program dies of it.
   */
  interrupt(): 'continue' | 'exit';
  /** The tab is closed or the program has ended: drop connections, print nothing more. */
  close(): void;
}

export interface RedisCliSpec {
  /** The host redis-cli runs on. */
  readonly from: string;
  /** The host of the server, the name the prompt shows, and the port (or Unix socket path). */
  readonly to: string;
  readonly shownHost: string;
  readonly port: number | string;
  readonly db?: number;
  readonly resp3?: boolean;
  /** --raw (true), --no-raw (false), or redis-cli's default on a terminal (null). */
  readonly raw?: boolean | null;
}

/**
 * redis-cli 7.0 in a tab: the emulator's CliSession (the same loop and
 * formatting as `npm run cli`) over a session of the world.
 */
export class RedisCliProgram implements TerminalProgram {
  readonly name = 'redis-cli';
  private readonly session: CliSession;
  private readonly links: SessionLink[] = [];
  private closed = false;

  constructor(
    private readonly host: WorldHost,
    private readonly spec: RedisCliSpec,
    private readonly write: (bytes: string) => void,
  ) {
    const port = spec.port;
    this.session = new CliSession({
      connect: () => this.link(),
      host: spec.shownHost,
      port: typeof port === 'number' ? port : 0,
      output: spec.raw === true ? 'raw' : 'tty',
      showPushes: true,
      resp3: spec.resp3 ?? false,
      db: spec.db ?? 0,
      write: (bytes) => this.out(bytes),
      writeError: (text) => this.out(text),
      // redis-cli times a slow command by the clock of the machine it runs on.
      nowMs: () => host.world.kernel.now / 1000,
    });
  }

  get prompt(): string {
    return this.session.prompt;
  }

  async start(): Promise<void> {
    await this.session.connect();
  }

  runLine(line: string): Promise<LineResult> {
    return this.session.runLine(line);
  }

  endOfInput(): Promise<LineResult> {
    return Promise.resolve({ history: false, exit: 0 });
  }

  interrupt(): 'continue' | 'exit' {
    // The terminal echoes ^C while redis-cli waits for a reply.
    this.out('^C');
    return this.session.interrupt();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const open = this.links.filter((l) => !l.closed);
    if (open.length !== 0) this.host.input(() => open.forEach((l) => l.close()));
  }

  private out(bytes: string): void {
    if (!this.closed) this.write(bytes);
  }

  /** A connection through the simulated network; what it sends wakes the world at once. */
  private link(): CliLink {
    const { from, to, port } = this.spec;
    const l = this.host.input(() => new SessionLink(this.host.world, from, `${to}:${port}`));
    this.links.push(l);
    const host = this.host;
    return {
      send: (argv) => host.input(() => l.send(argv)),
      read: () => l.read(),
      close: () => host.input(() => l.close()),
      get closed() {
        return l.closed;
      },
    };
  }
}

/**
 * A root shell on a host (the emulator's HostShell). `redis-cli` without a
 * command opens an interactive redis-cli in the same tab; quitting it comes
 * back to the shell, as in a real terminal.
 */
export class ShellProgram implements TerminalProgram {
  readonly name = 'bash';
  private readonly shell: HostShell;
  private nested: RedisCliProgram | null = null;
  /** Ends the line a nested redis-cli runs when Ctrl-C kills it. */
  private cancelNested: (() => void) | null = null;
  private exitAsked = false;
  private closed = false;

  constructor(
    private readonly host: WorldHost,
    hostName: string,
    private readonly write: (bytes: string) => void,
    columns: number,
  ) {
    this.shell = host.input(
      () =>
        new HostShell(host.world, hostName, (text) => this.out(text), {
          driver: host.driver,
          columns,
          onExit: () => {
            this.exitAsked = true;
            return true;
          },
          onRedisCli: (target) => this.openRedisCli(target),
        }),
    );
  }

  get prompt(): string {
    return this.nested?.prompt ?? this.shell.prompt;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  async runLine(line: string): Promise<LineResult> {
    const nested = this.nested;
    if (nested !== null) {
      const r = await new Promise<LineResult>((resolve) => {
        this.cancelNested = () => resolve({ history: true, exit: 130 });
        nested.runLine(line).then(resolve, () => resolve({ history: true, exit: 1 }));
      });
      this.cancelNested = null;
      if (r.exit !== undefined) this.leaveRedisCli();
      return { history: r.history };
    }
    await this.runShellLine(line);
    const nowNested = this.nested as RedisCliProgram | null;
    if (nowNested !== null) await nowNested.start();
    if (this.exitAsked) return { history: true, exit: this.shell.lastStatus };
    return { history: true };
  }

  async endOfInput(): Promise<LineResult> {
    if (this.nested !== null) {
      this.leaveRedisCli();
      return { history: false };
    }
    // bash answers Ctrl-D at an empty prompt as it answers "exit".
    const r = await this.runLine('exit');
    return { ...r, history: false };
  }

  interrupt(): 'continue' | 'exit' {
    if (this.nested !== null) {
      if (this.nested.interrupt() === 'exit') this.cancelNested?.();
      return 'continue';
    }
    this.host.input(() => this.shell.interrupt());
    return 'continue';
  }

  close(): void {
    if (this.closed) return;
    this.nested?.close();
    this.closed = true;
  }

  private out(bytes: string): void {
    if (!this.closed) this.write(bytes);
  }

  /** Runs a shell line and waits until its program, if it takes time, has ended. */
  private runShellLine(line: string): Promise<void> {
    return this.shell.runUntilIdle(line, (run) => this.host.input(run));
  }

  private openRedisCli(t: RedisCliTarget): boolean {
    this.nested = new RedisCliProgram(
      this.host,
      { from: this.shell.hostName, to: t.host, shownHost: t.shownHost, port: t.port, db: t.db, resp3: t.resp3, raw: t.raw },
      (bytes) => this.out(bytes),
    );
    return true;
  }

  private leaveRedisCli(): void {
    this.nested?.close();
    this.nested = null;
  }
}
