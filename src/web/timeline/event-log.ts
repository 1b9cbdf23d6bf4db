import type { TraceEntry } from '../../../emulator/sim/trace.js';
import type { World, WorldAction } from '../../../emulator/world/world.js';

/**
 * The world's trace as the timeline's event list reads it, and who caused
 * each entry: the world session ("terminal-3") a command came on, or the
 * session or shell ("shell-1") whose outside action was running when the
 * entry was added (a `sim power-loss` typed in a shell). The entries stay
 * in the trace's own window (its newest 20,000 or so); nothing is copied.
 *
 * Attach it before the world does anything (for a restored world, before
 * the replay) so every entry gets its cause.
 */
export class EventLog {
  private readonly causes = new WeakMap<TraceEntry, string>();
  /** Client socket id -> world session id (null: not a session's). */
  private readonly socketOwners = new Map<number, string | null>();
  private readonly unsubscribe: () => void;

  constructor(readonly world: World) {
    this.unsubscribe = world.trace.subscribe((e) => this.note(e));
  }

  dispose(): void {
    this.unsubscribe();
  }

  /** Entries added so far, including those the trace no longer keeps. */
  get total(): number {
    return this.world.trace.count;
  }

  /** The entries kept, oldest first. */
  get entries(): readonly TraceEntry[] {
    return this.world.trace.entries;
  }

  /** The absolute number (0 for the world's first entry) of entries[0]. */
  get firstIndex(): number {
    return this.world.trace.count - this.world.trace.entries.length;
  }

  /** The session or shell of the world that caused an entry, if known. */
  causeOf(entry: TraceEntry): string | null {
    return this.causes.get(entry) ?? null;
  }

  private note(e: TraceEntry): void {
    if (e.socket !== undefined) {
      const owner = this.sessionOfSocket(e.socket);
      if (owner !== null) this.causes.set(e, owner);
      return;
    }
    const rec = this.world.currentAction;
    if (rec === null) return;
    const owner = actionOwner(rec.action);
    if (owner !== null) this.causes.set(e, owner);
  }

  private sessionOfSocket(socket: number): string | null {
    const known = this.socketOwners.get(socket);
    if (known !== undefined) return known;
    let owner: string | null = null;
    for (const s of this.world.sessions.values()) {
      if (s.socket.id === socket) {
        owner = s.id;
        break;
      }
    }
    this.socketOwners.set(socket, owner);
    return owner;
  }
}

/** The world session or shell an outside action acts for ("terminal-3", "shell-1"), if any. */
export function actionOwner(a: WorldAction): string | null {
  switch (a.kind) {
    case 'openSession':
    case 'send':
    case 'closeSession':
      return a.id;
    case 'program': {
      const id = (a.args as { id?: unknown } | null)?.id;
      return typeof id === 'string' ? id : null;
    }
    default:
      return null;
  }
}
