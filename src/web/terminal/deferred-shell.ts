import type { LineResult } from '../../../emulator/redis-cli/repl.js';
import { loadShellParts } from '../shell-loader.js';
import type { WorldHost } from '../world-host.js';
import type { LineAssist } from './line-assist.js';
import type { ProgramState, ProgramWrite, ShellState, TerminalProgram, WorldIdListener } from './programs.js';
import type { ShellProgram } from './shell-program.js';

/**
 * A host shell tab whose code arrives with its first use: start() loads
 * the shell (see shell-parts.ts) and then opens it, so the tab shows its
 * prompt once the shell is there. Keys typed meanwhile wait, as they wait
 * for any program's first prompt.
 */
export class DeferredShellProgram implements TerminalProgram {
  readonly name = 'bash';
  private shell: ShellProgram | null = null;
  private closed = false;

  constructor(
    private readonly host: WorldHost,
    private readonly hostName: string,
    private readonly write: ProgramWrite,
    private readonly columns: number,
    private readonly restore?: ShellState,
    private readonly onWorldId?: WorldIdListener,
  ) {}

  get prompt(): string {
    return this.shell?.prompt ?? '';
  }

  async start(): Promise<void> {
    const { ShellProgram } = await loadShellParts();
    // Closed while loading: the tab is gone, nothing is opened in the world.
    if (this.closed) return;
    this.shell = new ShellProgram(this.host, this.hostName, this.write, this.columns, this.restore, this.onWorldId);
    await this.shell.start();
  }

  runLine(line: string): Promise<LineResult> {
    return this.opened().runLine(line);
  }

  endOfInput(): Promise<LineResult> {
    return this.opened().endOfInput();
  }

  interrupt(): 'continue' | 'exit' {
    return this.shell?.interrupt() ?? 'continue';
  }

  close(): void {
    this.closed = true;
    this.shell?.close();
  }

  assist(): LineAssist | null {
    return this.shell?.assist() ?? null;
  }

  /** Before the shell is open, what a restore gave (the same shell is taken up again), or a shell not yet made. */
  saveState(): ProgramState {
    return this.shell?.saveState() ?? { kind: 'shell', shell: this.restore ?? { shell: '', nested: null } };
  }

  private opened(): ShellProgram {
    if (this.shell === null) throw new Error('the shell is not open yet');
    return this.shell;
  }
}
