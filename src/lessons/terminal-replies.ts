import type { TimedReply } from './host.js';
import type { Session } from '../../emulator/world/terminal-session.js';
import type { World } from '../../emulator/world/world.js';
import { serverKey, type TerminalSpec } from './schema.js';

/**
 * Which sessions of the world belong to which redis-cli terminal, so a
 * check can read a terminal's last reply from the world itself (replies
 * are recorded in the world's sessions, and come back with a restored
 * checkpoint). A terminal's first session is the one its opening created;
 * when redis-cli reconnects (after a restart of the server), the new
 * session is matched to the terminal with the same client host and server
 * whose own connection has closed; other connections to the same server
 * (redis-cli started in a shell) are left alone.
 */
export class TerminalReplies {
  private readonly sessions = new Map<string, string[]>();
  private readonly specs = new Map<string, Extract<TerminalSpec, { kind: 'redis-cli' }>>();
  private readonly known = new Set<string>();

  constructor(private readonly world: World) {
    for (const id of world.sessions.keys()) this.known.add(id);
  }

  /**
   * Opens a terminal through `open` and claims the sessions it creates.
   *
   *   replies.opening(spec, () => store.openTerminal(choice));
   */
  opening<T>(spec: TerminalSpec, open: () => T): T {
    const result = open();
    if (spec.kind !== 'redis-cli') return result;
    this.specs.set(spec.name, spec);
    const mine: string[] = [];
    for (const id of this.world.sessions.keys()) {
      if (this.known.has(id)) continue;
      this.known.add(id);
      mine.push(id);
    }
    this.sessions.set(spec.name, mine);
    return result;
  }

  /** The last reply the terminal received, or null. */
  lastReply(terminal: string): TimedReply | null {
    this.adopt();
    const ids = this.sessions.get(terminal) ?? [];
    for (let i = ids.length - 1; i >= 0; i--) {
      const s = this.world.sessions.get(ids[i]!);
      if (s === undefined) continue;
      for (let k = s.events.length - 1; k >= 0; k--) {
        const e = s.events[k]!;
        if (e.kind === 'reply') return { reply: e.reply!, t: e.t };
      }
    }
    return null;
  }

  /** Whether the terminal's newest connection is gone (sessionLost). */
  connectionLost(terminal: string): boolean {
    this.adopt();
    const ids = this.sessions.get(terminal) ?? [];
    const s = ids.length === 0 ? undefined : this.world.sessions.get(ids[ids.length - 1]!);
    return s !== undefined && sessionLost(s);
  }

  /** Claims sessions opened since: each goes to a terminal with the same ends whose last session has closed. */
  private adopt(): void {
    for (const [id, s] of this.world.sessions) {
      if (this.known.has(id)) continue;
      this.known.add(id);
      const owner = this.ownerFor(s);
      if (owner !== null) this.sessions.get(owner)!.push(id);
    }
  }

  private ownerFor(s: Session): string | null {
    for (const [name, spec] of this.specs) {
      if (spec.from !== s.from || serverKey(spec.server) !== s.to) continue;
      const ids = this.sessions.get(name)!;
      const last = ids.length === 0 ? undefined : this.world.sessions.get(ids[ids.length - 1]!);
      if (last === undefined || last.closed) return name;
    }
    // Someone else's connection to the same server (redis-cli run from a shell): not the terminal's.
    return null;
  }
}

/** A session whose connection is gone, at its end or at the server's (a server that died, a machine without power). */
export function sessionLost(s: Session): boolean {
  const peer = s.socket.peer;
  return s.closed || (peer !== null && peer.state === 'closed');
}
