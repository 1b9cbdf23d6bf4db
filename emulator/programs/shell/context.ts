import type { Host, SimProcess } from '../../sim/host.js';
import type { RealtimeDriver } from '../../sim/realtime.js';
import type { World } from '../../world/world.js';

/**
 * What a shell command sees: the world, the host it runs on, the shell's
 * state, and its two output streams. Output is a byte string (one char per
 * byte), as a terminal receives it.
 */
export interface CommandContext {
  readonly world: World;
  readonly host: Host;
  /** The shell's working directory (absolute, normalised). */
  readonly cwd: string;
  /** $HOME. */
  readonly home: string;
  /** The terminal's width, for ls's columns and scp's progress meter. */
  readonly columns: number;
  /** Whether standard output is the terminal (not redirected to a file). */
  readonly isTerminal: boolean;
  /** The realtime driver, when the world follows the wall clock. */
  readonly driver: RealtimeDriver | null;
  readonly shell: ShellControl;
  /** Standard output. */
  out(text: string): void;
  /** Standard error. */
  err(text: string): void;
  /** An absolute, normalised path for a path as typed (relative to cwd, ~ already expanded). */
  resolve(path: string): string;
  /**
   * Starts a program that takes virtual time: the shell is busy, and its
   * process shows in ps, until the program calls `finish`.
   */
  foreground(name: string, argv: readonly string[], handlers: JobHandlers): Job;
  /**
   * Runs a program that is a process of its own (redis-benchmark) in the
   * foreground until it exits; Ctrl-C sends it SIGINT. Returns its exit
   * status if it has already ended.
   */
  adopt(process: SimProcess): number | 'job';
}

/** What a command may do to the shell itself. */
export interface ShellControl {
  setCwd(path: string): void;
  /** Moves the shell to another host (sim ssh). */
  switchHost(name: string): void;
  /** The previous working directory, for `cd -`. */
  readonly oldCwd: string | null;
  /** The pid of the login shell on this host ($$). */
  readonly shellPid: number;
  /** `exit`: leaves the shell if the terminal allows it. */
  exit(): boolean;
  /** `redis-cli` with no command: an interactive session, if the terminal offers one. */
  interactiveRedisCli(target: RedisCliTarget): boolean;
}

export interface RedisCliTarget {
  /** The host the server runs on, and the name the prompt shows. */
  readonly host: string;
  readonly shownHost: string;
  readonly port: number | string;
  readonly db: number;
  readonly resp3: boolean;
  readonly raw: boolean | null;
}

export interface JobHandlers {
  /**
   * Ctrl-C (the shell has printed ^C). The program prints what its
   * counterpart prints on SIGINT and calls finish, now or later.
   */
  onInterrupt(): void;
  /** The process was killed or its host lost power: release what it holds. */
  onKilled?(): void;
}

export interface Job {
  readonly process: SimProcess;
  readonly running: boolean;
  /** The program ends with this exit status (130 after SIGINT makes the shell end the line). */
  finish(status: number): void;
}

/** A command: returns its exit status, or 'job' when it went on in the foreground. */
export type Command = (ctx: CommandContext, args: string[]) => number | 'job';
