import type { Reply } from '../resp/reply.js';
import { BLOCKED } from './blocking.js';
import type { Client } from './client.js';
import type { RedisServer } from './server.js';

/**
 * Pausing clients (src/networking.c pauseClients): CLIENT PAUSE, and a
 * primary handing over with FAILOVER, hold back every command (ALL) or
 * those that may write (WRITE) until a time or an unpause. Each purpose
 * keeps its own pause; the most restrictive kind applies, until the
 * furthest end among pauses of that kind. A held command is postponed
 * (BLOCKED_POSTPONE) and processed again from the start once the pause
 * becomes less restrictive, when it may be held again. Replicas are never
 * paused, and while paused no key expires or is evicted.
 */

/** CLIENT_PAUSE_OFF, _WRITE, _ALL, in order of restriction. */
export type PauseType = 'off' | 'write' | 'all';

const RANK: Record<PauseType, number> = { off: 0, write: 1, all: 2 };

/** PAUSE_BY_CLIENT_COMMAND, PAUSE_DURING_SHUTDOWN, PAUSE_DURING_FAILOVER. */
export type PausePurpose = 'client-command' | 'shutdown' | 'failover';

interface PauseEvent {
  type: PauseType;
  endMs: number;
}

export class ClientPause {
  /** server.client_pause_type and client_pause_end_time. */
  type: PauseType = 'off';
  endMs = 0;
  private readonly byPurpose = new Map<PausePurpose, PauseEvent>();
  /** Clients whose command waits for the pause to end, in the order they came. */
  private postponed: Array<{ c: Client; argv: string[] }> = [];
  /** Postponed clients let go, whose commands are to be processed again. */
  private released: Array<{ c: Client; argv: string[] }> = [];

  constructor(private readonly server: RedisServer) {}

  /** pauseClients: a pause for `purpose` until `endMs` (unix ms), merged with its earlier one. */
  pause(purpose: PausePurpose, endMs: number, type: PauseType): void {
    const p = this.byPurpose.get(purpose);
    if (p === undefined) this.byPurpose.set(purpose, { type, endMs });
    else {
      if (RANK[type] > RANK[p.type]) p.type = type;
      if (endMs > p.endMs) p.endMs = endMs;
    }
    this.update();
  }

  /** unpauseClients. */
  unpause(purpose: PausePurpose): void {
    if (!this.byPurpose.delete(purpose)) return;
    this.update();
  }

  /** checkClientPauseTimeoutAndReturnIfPaused: ends pauses whose time is up; whether any remains. */
  paused(): boolean {
    if (this.type === 'off') return false;
    if (this.endMs < this.server.nowMs) this.update();
    return (this.type as PauseType) !== 'off';
  }

  /** Whether a command with these traits is held now (processCommand's pause check). */
  holds(c: Client, mayReplicate: boolean): boolean {
    if (this.type === 'off' || c.role === 'replica') return false;
    return this.type === 'all' || mayReplicate;
  }

  /** Holds a client's command until the pause eases (blockClient with BLOCKED_POSTPONE). */
  postpone(c: Client, argv: string[]): Reply {
    this.postponed.push({ c, argv });
    c.postponed = true;
    return BLOCKED;
  }

  /** A postponed client went away. */
  forget(c: Client): void {
    if (!c.postponed) return;
    c.postponed = false;
    this.postponed = this.postponed.filter((p) => p.c !== c);
    this.released = this.released.filter((p) => p.c !== c);
  }

  /** Clients waiting for the pause to end. */
  get postponedCount(): number {
    return this.postponed.length;
  }

  /** updateClientPauseTypeAndEndTime. */
  private update(): void {
    const old = this.type;
    const now = this.server.nowMs;
    let type: PauseType = 'off';
    for (const [purpose, p] of this.byPurpose) {
      if (p.endMs < now) this.byPurpose.delete(purpose);
      else if (RANK[p.type] > RANK[type]) type = p.type;
    }
    let end = 0;
    for (const p of this.byPurpose.values()) if (p.type === type && p.endMs > end) end = p.endMs;
    this.type = type;
    this.endMs = end;
    if (RANK[type] < RANK[old] && this.postponed.length !== 0) {
      // unblockPostponedClients: they are processed again once the current command is done.
      this.released.push(...this.postponed);
      this.postponed = [];
    }
  }

  /** Whether released clients wait to be processed again. */
  get hasReleased(): boolean {
    return this.released.length !== 0;
  }

  /**
   * processUnblockedClients for postponed ones: each held command is
   * processed again, in order, as if it had just arrived; one the pause
   * still holds waits again.
   */
  processReleased(): void {
    const waiting = this.released;
    this.released = [];
    for (const { c, argv } of waiting) {
      c.postponed = false;
      if (c.closed) continue;
      const reply = this.server.execute(c, argv);
      if (reply === BLOCKED) continue;
      c.onAsyncReply?.(reply);
      c.onResume?.();
    }
  }
}
