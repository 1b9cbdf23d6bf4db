import type { RealtimeDriver } from '../../emulator/sim/index.js';
import type { World } from '../../emulator/world/world.js';
import type { Reply } from '../../emulator/resp/reply.js';
import type { TerminalSpec } from './schema.js';

/** A reply and the virtual time it arrived at, in us since the world began. */
export interface TimedReply {
  readonly reply: Reply;
  readonly t: number;
}

/**
 * Where a lesson runs: a world and its named terminals. Two kinds exist:
 * HeadlessLessonHost (headless.ts: a World on the kernel, driven by hand,
 * for tests and scripts) and the page's adapter over its WorldStore
 * (src/web/lesson/store-host.ts). The runner does everything through this.
 */
export interface LessonHost {
  /** The world the lesson acts on now. */
  readonly world: World;
  /** The driver when the world follows the wall clock (so `advance` steps it); null when driven by hand. */
  readonly driver: RealtimeDriver | null;
  /** Hosts another world; the old world's terminals are closed. */
  setWorld(world: World): void;
  /** Opens the lesson's terminals on the current world, in order; the first ends up active. */
  openTerminals(specs: readonly TerminalSpec[]): void;
  /**
   * Types a line into a named terminal, followed by Enter. Headless, it
   * resolves once the line has run; in the page, once it is typed (the
   * world runs on its own there, and checks follow it).
   */
  typeLine(terminal: string, line: string): Promise<void>;
  /** Runs outside input on the world (the page catches virtual time up first and wakes the world after). */
  input<T>(fn: () => T): T;
  /**
   * Headless: runs the world until `ready` holds (at most a minute of
   * virtual time), as a learner would wait for a server to start. The
   * page does nothing: its world runs on its own.
   */
  settleUntil(ready: () => boolean): Promise<void>;
  /**
   * Headless: lets the time a learner takes to read and type pass (a
   * reference solution played without it would do everything in one
   * instant, which no learner does). The page does nothing.
   */
  think(): Promise<void>;
  /** What the shells printed while playing a block of events (the headless transcript keeps it). */
  eventsPlayed(output: string): void;
  /**
   * Runs a block of events with the world's clock held, so nothing but
   * the events happens between them however fast the page's clock runs;
   * the clock goes on as before afterwards.
   */
  holdingTime<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Whether a redis-cli terminal's connection is gone (the server it talked
   * to died, or its machine lost power) and redis-cli does not know yet:
   * its next command fails with "Server closed the connection", and the
   * one after connects again.
   */
  connectionLost(terminal: string): boolean;
  /** The last reply a redis-cli terminal received and when (us since the world began), or null. */
  lastReply(terminal: string): TimedReply | null;
}
