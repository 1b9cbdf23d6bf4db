import type { LineResult } from '../../../emulator/redis-cli/repl.js';
import { HostShell, type RedisCliTarget } from '../../../emulator/programs/shell-parts.js';
import type { WorldHost } from '../world-host.js';
import type { LineAssist } from './line-assist.js';
import { RedisCliProgram, type ProgramState, type ProgramWrite, type RedisCliSpec, type ShellState, type TerminalProgram, type WorldIdListener } from './programs.js';
import { shellAssist } from './shell-assist.js';
import { lineMayStartSentinel, loadSentinelParts } from '../sentinel-code.js';

/**
 * A root shell on a host (the emulator's HostShell). `redis-cli` without a
 * command opens an interactive redis-cli in the same tab; quitting it comes
 * back to the shell, as in a real terminal.
 */
export class ShellProgram implements TerminalProgram {
  readonly name = 'bash';
  private readonly shell: HostShell;
  private nested: RedisCliProgram | null = null;
  private nestedSpec: RedisCliSpec | null = null;
  /** Ends the line a nested redis-cli runs when Ctrl-C kills it. */
  private cancelNested: (() => void) | null = null;
  private exitAsked = false;
  private closed = false;
  private lineAssist: LineAssist | null = null;

  /**
   * Opens a shell on `hostName`, or with `restore` takes up the shell of a
   * restored world (and the redis-cli running in it), whose output while
   * it was replayed is already on the saved screen.
   */
  constructor(
    private readonly host: WorldHost,
    hostName: string,
    private readonly write: ProgramWrite,
    columns: number,
    restore?: ShellState,
    private readonly onWorldId?: WorldIdListener,
  ) {
    const opts = {
      driver: host.driver,
      onExit: () => {
        this.exitAsked = true;
        return true;
      },
      onRedisCli: (target: RedisCliTarget) => this.openRedisCli(target),
    };
    const replayed = restore === undefined ? undefined : HostShell.all(host.world).find((s) => s.id === restore.shell);
    if (replayed !== undefined) {
      replayed.attach((text) => this.out(text), opts);
      this.shell = replayed;
      if (restore?.nested) {
        this.nestedSpec = restore.nested.spec;
        this.nested = new RedisCliProgram(host, restore.nested.spec, (bytes, styled) => this.out(bytes, styled), restore.nested.state, onWorldId);
      }
    } else {
      this.shell = host.input(() => new HostShell(host.world, hostName, (text) => this.out(text), { ...opts, columns }));
    }
    onWorldId?.(this.shell.id);
  }

  get prompt(): string {
    return this.nested?.prompt ?? this.shell.prompt;
  }

  /** A restored shell may be running a program, or its redis-cli a command: the prompt waits for it. */
  start(): Promise<void> {
    if (this.nested !== null) return this.nested.start();
    if (!this.shell.busy) return Promise.resolve();
    return new Promise((resolve) => {
      this.shell.onIdle = () => {
        this.shell.onIdle = null;
        resolve();
      };
    });
  }

  saveState(): ProgramState {
    const nested = this.nested !== null && this.nestedSpec !== null ? { spec: this.nestedSpec, state: this.nested.cliState() } : null;
    return { kind: 'shell', shell: { shell: this.shell.id, nested } };
  }

  /** The shell's completion, or that of the redis-cli running in it. */
  assist(): LineAssist | null {
    if (this.nested !== null) return this.nested.assist();
    this.lineAssist ??= shellAssist(this.shell);
    return this.lineAssist;
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

  private out(bytes: string, styled = false): void {
    if (!this.closed) this.write(bytes, styled);
  }

  /** Runs a shell line and waits until its program, if it takes time, has ended. */
  private async runShellLine(line: string): Promise<void> {
    if (lineMayStartSentinel(line)) {
      // Sentinel starts within the line once its code is in: the line then replays the same way.
      const parts = await loadSentinelParts().catch(() => null);
      parts?.registerSentinelParts(this.host.world);
    }
    return this.shell.runUntilIdle(line, (run) => this.host.input(run));
  }

  private openRedisCli(t: RedisCliTarget): boolean {
    this.nestedSpec = { from: this.shell.hostName, to: t.host, shownHost: t.shownHost, port: t.port, db: t.db, resp3: t.resp3, raw: t.raw };
    this.nested = new RedisCliProgram(this.host, this.nestedSpec, (bytes, styled) => this.out(bytes, styled), undefined, this.onWorldId);
    return true;
  }

  private leaveRedisCli(): void {
    this.nested?.close();
    this.nested = null;
    this.nestedSpec = null;
  }
}
