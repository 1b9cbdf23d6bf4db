import { HostShell } from '../../../emulator/programs/shell-parts.js';
import type { World } from '../../../emulator/world/world.js';
import type { LessonHost, TimedReply } from '../../lessons/host.js';
import { parseServerRef, type TerminalSpec } from '../../lessons/schema.js';
import { sessionLost } from '../../lessons/terminal-replies.js';
import type { TerminalChoice, WorldStore } from '../world-store.js';

/**
 * A lesson's host in the page: the WorldStore's world, its realtime
 * driver and its terminal tabs. Lines are typed into the tabs the way the
 * learner types; the world runs on its own and the checks follow it.
 */
export class StoreLessonHost implements LessonHost {
  /** Tab ids by the lesson's terminal names. */
  private readonly tabs = new Map<string, string>();
  private readonly specs = new Map<string, TerminalSpec>();

  constructor(private readonly store: WorldStore) {}

  get world(): World {
    return this.store.world;
  }

  get driver() {
    return this.store.driver;
  }

  setWorld(world: World): void {
    this.store.replaceWorld(world);
    this.tabs.clear();
    this.specs.clear();
  }

  /**
   * Takes up a world that is already hosted (restored from a checkpoint),
   * with its terminal tabs, matched to the lesson's names by title.
   */
  adoptWorld(specs: readonly TerminalSpec[]): void {
    this.tabs.clear();
    this.specs.clear();
    const open = this.store.getSnapshot().terminals;
    for (const spec of specs) {
      this.specs.set(spec.name, spec);
      const tab = open.find((t) => t.title === spec.name);
      if (tab !== undefined) this.tabs.set(spec.name, tab.id);
    }
  }

  openTerminals(specs: readonly TerminalSpec[]): void {
    for (const spec of specs) this.open(spec);
    const first = specs[0];
    if (first !== undefined) this.store.selectTerminal(this.tabs.get(first.name)!);
  }

  private open(spec: TerminalSpec): string {
    this.specs.set(spec.name, spec);
    const id = this.store.openTerminal(choiceOf(spec), { title: spec.name });
    this.tabs.set(spec.name, id);
    return id;
  }

  /** The tab of a lesson terminal, opened again if the learner closed it. */
  tab(name: string): string | null {
    const id = this.tabs.get(name);
    if (id !== undefined && this.store.terminal(id) !== undefined) return id;
    const spec = this.specs.get(name);
    return spec === undefined ? null : this.open(spec);
  }

  /** Types the line once the terminal is at its prompt, and resolves once it has run. */
  async typeLine(terminal: string, line: string): Promise<void> {
    const id = this.tab(terminal);
    if (id === null) throw new Error(`no terminal named ${terminal}`);
    this.store.selectTerminal(id);
    await this.whenIdle([id]);
    // redis-cli printing a stream (MONITOR, SUBSCRIBE) has had its reply and reads no line: Ctrl-C first, as a learner would.
    const session = this.store.terminal(id);
    if (this.specs.get(terminal)?.kind === 'redis-cli' && session?.running === true && !this.busy(id)) session.input('\x03');
    this.store.sendLine(id, line);
    await this.whenIdle([id]);
  }

  /**
   * Whether a tab's program is working on a line: a command of its
   * redis-cli waits for its reply, or its shell runs a program. The store
   * knows which world sessions and shells belong to which tab.
   */
  private busy(tab: string): boolean {
    const world = this.store.world;
    for (const s of world.sessions.values()) if (s.pending > 0 && !s.closed && this.store.terminalOfWorldId(s.id) === tab) return true;
    for (const sh of HostShell.all(world)) if (sh.busy && this.store.terminalOfWorldId(sh.id) === tab) return true;
    return false;
  }

  /**
   * Resolves once none of the tabs is busy, as the world runs. A paused
   * world would never get there: then, and after IDLE_WAIT_MS at most,
   * it resolves anyway.
   */
  private whenIdle(tabs: readonly string[]): Promise<void> {
    return new Promise((resolve) => {
      const started = performance.now();
      let off: (() => void) | null = null;
      let done = false;
      const check = () => {
        if (done) return;
        if (this.store.driver.isPaused || performance.now() - started > IDLE_WAIT_MS || !tabs.some((t) => this.busy(t))) {
          done = true;
          off?.();
          resolve();
        }
      };
      off = this.store.subscribe(check);
      // Whatever the line set off in this task (the terminal printing a reply) comes first.
      setTimeout(check, 0);
      setTimeout(check, IDLE_WAIT_MS + 10);
    });
  }

  input<T>(fn: () => T): T {
    return this.store.input(fn);
  }

  settleUntil(ready: () => boolean): Promise<void> {
    // Run the world by hand to that point, as `sim advance` would, then
    // let the driver follow the wall clock from there.
    this.store.input(() => this.store.world.runUntil(ready, { maxMs: 60_000 }));
    this.store.step(0);
    return Promise.resolve();
  }

  think(): Promise<void> {
    return Promise.resolve();
  }

  eventsPlayed(): void {}

  async holdingTime<T>(fn: () => Promise<T>): Promise<T> {
    // What the learner typed happens before the events.
    await this.whenIdle([...this.tabs.values()]);
    const wasPaused = this.store.driver.isPaused;
    this.store.pause();
    try {
      return await fn();
    } finally {
      if (!wasPaused) this.store.resume();
    }
  }

  /** Whether the newest world session of the terminal's tab has lost its connection, and its redis-cli does not know yet. */
  connectionLost(terminal: string): boolean {
    const id = this.tabs.get(terminal);
    if (id === undefined || this.store.terminalPrompt(id)?.startsWith('not connected') !== false) return false;
    const sessions = [...this.store.world.sessions.values()];
    for (let i = sessions.length - 1; i >= 0; i--) if (this.store.terminalOfWorldId(sessions[i]!.id) === id) return sessionLost(sessions[i]!);
    return false;
  }

  /** The newest reply on any world session the terminal's tab has used (the store knows which). */
  lastReply(terminal: string): TimedReply | null {
    const id = this.tabs.get(terminal);
    if (id === undefined) return null;
    const sessions = [...this.store.world.sessions.values()];
    for (let i = sessions.length - 1; i >= 0; i--) {
      const s = sessions[i]!;
      if (this.store.terminalOfWorldId(s.id) !== id) continue;
      for (let k = s.events.length - 1; k >= 0; k--) if (s.events[k]!.kind === 'reply') return { reply: s.events[k]!.reply!, t: s.events[k]!.t };
    }
    return null;
  }
}

/** Longest wait for a terminal to finish a line before going on regardless (a MONITOR never does). */
const IDLE_WAIT_MS = 30_000;

function choiceOf(spec: TerminalSpec): TerminalChoice {
  if (spec.kind === 'shell') return { kind: 'shell', host: spec.host };
  const { host, port } = parseServerRef(spec.server);
  return { kind: 'redis-cli', from: spec.from, to: host, port };
}
