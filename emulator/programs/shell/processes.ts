import { SimProcess, type Host } from '../../sim/host.js';
import type { World } from '../../world/world.js';

/**
 * Processes that belong to a terminal session: the login shell and the
 * programs it runs in the foreground. ps shows their terminal (pts/N);
 * daemons such as redis-server have none.
 */
export class TerminalProcess extends SimProcess {
  constructor(
    host: Host,
    name: string,
    argv: readonly string[],
    readonly tty: string,
    readonly ppid: number,
    readonly startUs: number,
  ) {
    super(host, name, argv);
  }
}

/** An interactive bash: it ignores SIGTERM and SIGINT, as bash does at a prompt. */
export class LoginShellProcess extends TerminalProcess {
  /** Whether a program runs in the foreground (ps shows '+' on the one that does). */
  foregroundBusy = false;

  protected override onTerminate(): void {}
}

/** A program run in the foreground; the shell decides what signals do to it. */
export class ProgramProcess extends TerminalProcess {
  onSignal: ((sig: 'TERM' | 'INT') => void) | null = null;
  onGone: (() => void) | null = null;

  protected override onTerminate(sig: 'TERM' | 'INT'): void {
    if (this.onSignal !== null) this.onSignal(sig);
    else this.exit(0);
  }

  override onExit(): void {
    this.onGone?.();
  }
}

/**
 * When a process started: known for terminal processes; for others, read
 * from the trace's spawn line (the host's boot time if it has scrolled
 * away).
 */
export function startTimeUs(world: World, proc: SimProcess): number {
  if (proc instanceof TerminalProcess) return proc.startUs;
  const prefix = `${proc.pid} `;
  const entries = world.trace.entries;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'spawn' && e.source === proc.host.name && e.text.startsWith(prefix)) return world.kernel.startUs + e.t;
  }
  return world.kernel.startUs;
}

/** The first pts/N free on a host. */
export function freeTty(host: Host): string {
  const used = new Set<string>();
  for (const p of host.processes.values()) if (p instanceof LoginShellProcess) used.add(p.tty);
  for (let n = 0; ; n++) if (!used.has(`pts/${n}`)) return `pts/${n}`;
}
