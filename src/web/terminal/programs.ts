import { RedisCliRepl, type CliState, type LineResult } from '../../../emulator/redis-cli/repl.js';
import { CLOSED, type CliLink, formatReply } from '../../../emulator/redis-cli/index.js';
import { SessionLink } from '../../../emulator/programs/index.js';
import { commandCodeFor } from '../command-code.js';
import type { WorldHost } from '../world-host.js';
import type { LineAssist } from './line-assist.js';
import { redisCliAssist } from './redis-cli-assist.js';

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
  /** Tab completion and grey hints for the line typed at the prompt now, if the program has them. */
  assist?(): LineAssist | null;
  /** What to save to take the program up again in a restored world (see the constructors' `restore`). */
  saveState(): ProgramState;
}

/** A program's state as plain data, with the ids of the world's session or shell it runs on. */
export type ProgramState = { readonly kind: 'redis-cli'; readonly cli: RedisCliState } | { readonly kind: 'shell'; readonly shell: ShellState };

export interface RedisCliState {
  /** The world session it was connected on ("terminal-3"), or null. */
  readonly session: string | null;
  readonly cli: CliState;
}

export interface ShellState {
  /** The world's shell ("shell-2"). */
  readonly shell: string;
  /** The redis-cli started in the shell and running when it was saved. */
  readonly nested: { readonly spec: RedisCliSpec; readonly state: RedisCliState } | null;
}

/**
 * How a program prints: bytes made inert on the screen, or with `styled`,
 * text it composed itself whose colours are kept (redis-cli's help).
 */
export type ProgramWrite = (bytes: string, styled?: boolean) => void;

/** Told of each session or shell of the world a program opens or takes up, by its id. */
export type WorldIdListener = (worldId: string) => void;

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
 * redis-cli 7.0 in a tab: the emulator's RedisCliRepl (the same loop and
 * formatting as `npm run cli`) over a session of the world. With
 * `restore`, it takes up a session of a restored world in its saved state
 * (inside MULTI, on another database) without sending anything.
 */
export class RedisCliProgram implements TerminalProgram {
  readonly name = 'redis-cli';
  private readonly session: RedisCliRepl;
  private readonly links: SessionLink[] = [];
  private lineAssist: LineAssist | null = null;
  private closed = false;
  /** Replies the restored session still owes to commands sent before it was saved. */
  private owed = 0;
  private restored = false;

  constructor(
    private readonly host: WorldHost,
    private readonly spec: RedisCliSpec,
    private readonly write: ProgramWrite,
    restore?: RedisCliState,
    private readonly onWorldId?: WorldIdListener,
  ) {
    const port = spec.port;
    this.session = new RedisCliRepl({
      connect: () => this.link(),
      host: spec.shownHost,
      port: typeof port === 'number' ? port : 0,
      output: spec.raw === true ? 'raw' : 'tty',
      showPushes: true,
      resp3: spec.resp3 ?? false,
      db: spec.db ?? 0,
      write: (bytes) => this.out(bytes),
      writeError: (text) => this.out(text),
      writeHelp: (text) => this.out(text, true),
      // redis-cli times a slow command by the clock of the machine it runs on.
      nowMs: () => host.world.kernel.now / 1000,
    });
    if (restore !== undefined) this.takeUp(restore);
  }

  get prompt(): string {
    return this.session.prompt;
  }

  async start(): Promise<void> {
    if (!this.restored) {
      await this.session.connect();
      return;
    }
    // A command was running when the terminal was saved: its replies come
    // now, printed as redis-cli prints them, before the next prompt.
    const link = this.links[this.links.length - 1];
    const output = this.session.state().output;
    for (; this.owed > 0 && link !== undefined; this.owed--) {
      const r = await link.read();
      if (r === CLOSED) break;
      this.out(formatReply(r, output, false));
    }
  }

  saveState(): ProgramState {
    return { kind: 'redis-cli', cli: this.cliState() };
  }

  /** The connection and redis-cli's state between lines. */
  cliState(): RedisCliState {
    const cli = this.session.state();
    const link = this.links[this.links.length - 1];
    return { session: cli.connected && link !== undefined ? link.id : null, cli };
  }

  runLine(line: string): Promise<LineResult> {
    return this.session.runLine(line);
  }

  assist(): LineAssist {
    this.lineAssist ??= redisCliAssist(() => this.session.hints);
    return this.lineAssist;
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

  private out(bytes: string, styled = false): void {
    if (!this.closed) this.write(bytes, styled);
  }

  /** Adopts the saved session, if the restored world has it, in the saved state. */
  private takeUp(saved: RedisCliState): void {
    this.restored = true;
    const { from, to, port } = this.spec;
    const session = saved.session === null ? undefined : this.host.world.sessions.get(saved.session);
    if (session === undefined || !saved.cli.connected) {
      this.session.adopt(null, { ...saved.cli, connected: false });
      return;
    }
    const l = new SessionLink(this.host.world, from, `${to}:${port}`, session);
    this.links.push(l);
    this.onWorldId?.(l.id);
    if (saved.cli.streaming) {
      // A pub/sub or MONITOR stream cannot be picked up halfway: as after
      // Ctrl-C, redis-cli drops that connection and opens a new one.
      this.host.input(() => l.close());
      this.session.adopt(null, { ...saved.cli, dbnum: 0, inMulti: false, connected: false });
      this.restored = false;
      return;
    }
    this.owed = session.pending;
    this.session.adopt(this.wrap(l), saved.cli);
  }

  /** A connection through the simulated network; what it sends wakes the world at once. */
  private link(): CliLink {
    const { from, to, port } = this.spec;
    const l = this.host.input(() => new SessionLink(this.host.world, from, `${to}:${port}`));
    this.links.push(l);
    this.onWorldId?.(l.id);
    return this.wrap(l);
  }

  /**
   * The connection as redis-cli uses it. A command whose code the page
   * has not loaded yet (see command-code.ts) goes once it has; what is
   * sent or closed after it waits its turn, so the order holds.
   */
  private wrap(l: SessionLink): CliLink {
    const host = this.host;
    let waiting: Promise<void> | null = null;
    const after = (load: Promise<void>, act: () => void): void => {
      const p = load.then(() => host.input(act));
      waiting = p;
      void p.then(() => {
        if (waiting === p) waiting = null;
      });
    };
    return {
      send: (argv) => {
        const load = waiting ?? commandCodeFor(argv);
        if (load === null) host.input(() => l.send(argv));
        else after(load, () => l.send(argv));
      },
      read: () => l.read(),
      close: () => {
        if (waiting === null) host.input(() => l.close());
        else after(waiting, () => l.close());
      },
      get closed() {
        return l.closed;
      },
    };
  }
}
