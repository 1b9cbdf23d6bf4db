import { RealtimeDriver, WireRecorder } from '../../emulator/sim/index.js';
import type { World } from '../../emulator/world/world.js';
import { clusterView, type ClusterView } from './cluster/cluster-view.js';
import { DeferredShellProgram } from './terminal/deferred-shell.js';
import { RedisCliProgram, type ProgramState, type TerminalProgram } from './terminal/programs.js';
import { TerminalSession } from './terminal/terminal-session.js';
import type { WorldHost } from './world-host.js';
import { buildSandboxWorld, CLIENT_HOST, SERVER_HOST, SERVER_PORT } from './world-setup.js';

/** The virtual clock and the time controls, as the timeline shows them. */
export interface ClockView {
  /** Virtual time, us since the Unix epoch. */
  readonly nowUs: number;
  /** When the world began, us since the Unix epoch. */
  readonly startUs: number;
  readonly speed: number;
  readonly paused: boolean;
}

export type TerminalChoice =
  | { readonly kind: 'redis-cli'; readonly from: string; readonly to: string; readonly port: number }
  | { readonly kind: 'shell'; readonly host: string };

export interface TerminalInfo {
  readonly id: string;
  readonly title: string;
  readonly kind: TerminalChoice['kind'];
  readonly choice: TerminalChoice;
}

/**
 * A terminal as plain data, to take up again later in a world restored
 * to the same point (a reload, a rewind): WorldStore.saveTerminal and
 * openTerminal's `restore`.
 */
export interface SavedTerminal {
  readonly id: string;
  readonly title: string;
  readonly choice: TerminalChoice;
  /** What the screen showed, without the prompt it was waiting at. */
  readonly screen: string;
  /** Whether its program had ended (Enter starts it again). */
  readonly ended: boolean;
  readonly history: readonly string[];
  /** The program's state and the world session or shell it ran on; null once ended. */
  readonly program: ProgramState | null;
  /** Every session and shell of the world the terminal has used, so events in the trace name it. */
  readonly worldIds: readonly string[];
}

export interface OpenTerminalOptions {
  /** The tab's title instead of one made from the choice ("Frank"). */
  readonly title?: string;
  /** A saved terminal to take up in the world now hosted, with its id, screen, history and connection. */
  readonly restore?: SavedTerminal;
}

/**
 * Everything the page shows, as one immutable value per version. Parts
 * that did not change keep their identity, so a component that selects
 * one re-renders only when it changes.
 */
export interface WorkbookSnapshot {
  readonly version: number;
  readonly clock: ClockView;
  readonly cluster: ClusterView;
  readonly terminals: readonly TerminalInfo[];
  readonly activeTerminal: string | null;
}

/** How the store gets called again: once per animation frame, and soon after input. */
export interface FrameScheduler {
  frame(cb: () => void): void;
  later(cb: () => void, ms: number): void;
}

export const browserScheduler: FrameScheduler = {
  frame(cb) {
    // A hidden tab gets no animation frames; the world still moves, slowly.
    if (typeof requestAnimationFrame === 'function' && document.visibilityState !== 'hidden') requestAnimationFrame(() => cb());
    else setTimeout(cb, 100);
  },
  later(cb, ms) {
    setTimeout(cb, ms);
  },
};

export interface WorldStoreOptions {
  seed?: number;
  /** The wall clock in ms (performance.now in the page). */
  wallNowMs?: () => number;
  scheduler?: FrameScheduler;
  /** A world to host instead of the sandbox. */
  world?: World;
}

/** Wall time the world may take per frame, so typing and scrolling stay smooth. */
export const FRAME_BUDGET_MS = 8;
/** The cluster panel is rebuilt at most this often while only the world's own events change it. */
const CLUSTER_REFRESH_MS = 100;
/**
 * While virtual time runs on its own, the clock the page shows moves on at
 * most this often. At every frame it re-rendered the timeline and had the
 * browser lay out and paint it again, 60 times a second: a CPU profile of
 * a page doing nothing else found that most of its main thread's work.
 * An action (a step, a pause, a command) shows the clock at once.
 */
export const CLOCK_REFRESH_MS = 100;
/** Virtual time one press of Step moves on by default. */
export const DEFAULT_STEP_MS = 100;

/**
 * The page's world and everything the UI reads from it. The world runs
 * outside React, driven by a RealtimeDriver from animation frames (at most
 * FRAME_BUDGET_MS of work each); React reads snapshots through
 * useSyncExternalStore and changes things only through the named actions
 * below (terminals, time controls), never by touching the world.
 *
 *   const store = new WorldStore();
 *   store.start();
 *   const id = store.openTerminal({ kind: 'redis-cli', from: 'app', to: 'redis', port: 6379 });
 *   store.sendLine(id, 'SET a 1');
 */
export class WorldStore implements WorldHost {
  private currentWorld: World;
  private currentDriver: RealtimeDriver;
  private readonly wallNowMs: () => number;
  private readonly scheduler: FrameScheduler;
  private readonly listeners = new Set<() => void>();
  private readonly sessions = new Map<string, TerminalSession>();
  /** Each terminal's program now, and the world sessions and shells each has used. */
  private readonly programs = new Map<string, TerminalProgram | null>();
  private readonly worldIds = new Map<string, string[]>();
  private readonly worldListeners = new Set<(world: World) => void>();
  private snapshot: WorkbookSnapshot;
  private running = false;
  private frameQueued = false;
  private laterQueued = false;
  /** Wall ms spent running the world in the current frame. */
  private spentMs = 0;
  /** The world changed since the cluster view was built; `urgent` when by an action. */
  private worldDirty = false;
  private urgent = false;
  private clusterBuiltAt = -Infinity;
  private clockBuiltAt = -Infinity;
  private terminalsDirty = false;
  private terminalList: TerminalInfo[] = [];
  private active: string | null = null;
  private nextTerminal = 1;

  constructor(opts: WorldStoreOptions = {}) {
    this.wallNowMs = opts.wallNowMs ?? (() => performance.now());
    this.scheduler = opts.scheduler ?? browserScheduler;
    this.currentWorld = opts.world ?? buildSandboxWorld(opts.seed ?? 1);
    // Paused until start(), so the time between building the page and
    // showing it is not counted as virtual time.
    this.currentDriver = this.newDriver(this.currentWorld, true, 1);
    this.snapshot = {
      version: 0,
      clock: this.clockView(),
      cluster: clusterView(this.world),
      terminals: [],
      activeTerminal: null,
    };
  }

  get world(): World {
    return this.currentWorld;
  }

  get driver(): RealtimeDriver {
    return this.currentDriver;
  }

  private newDriver(world: World, paused: boolean, speed: number): RealtimeDriver {
    // The message view draws what the network carried: it is recorded from the start.
    world.network.wire ??= new WireRecorder();
    const driver = new RealtimeDriver(world.kernel, this.wallNowMs, { paused });
    driver.maxTickMs = FRAME_BUDGET_MS;
    driver.speed = speed;
    return driver;
  }

  /**
   * Hosts another world from now on (a lesson's start, a restored
   * checkpoint, an imported session). The terminals of the old world are
   * closed, since their connections belonged to it; the speed and the
   * paused state carry over.
   */
  replaceWorld(world: World): void {
    for (const id of [...this.sessions.keys()]) this.closeTerminal(id);
    const old = this.currentDriver;
    this.currentWorld = world;
    this.currentDriver = this.newDriver(world, old.isPaused || !this.running, old.speed);
    this.worldDirty = true;
    this.urgent = true;
    this.nextTerminal = 1;
    this.changed();
    this.requestFrame();
    for (const l of [...this.worldListeners]) l(world);
  }

  /** Calls `listener` with each world hosted from now on (replaceWorld). Returns the unsubscribe. */
  onWorldChange(listener: (world: World) => void): () => void {
    this.worldListeners.add(listener);
    return () => this.worldListeners.delete(listener);
  }

  // ---- useSyncExternalStore ----

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): WorkbookSnapshot => this.snapshot;

  // ---- the loop ----

  /** Starts following the wall clock. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.driver.resume();
    this.requestFrame();
  }

  /** Stops the loop (the page is going away, or a test is done). */
  stop(): void {
    this.running = false;
    for (const s of this.sessions.values()) s.dispose();
  }

  input<T>(fn: () => T): T {
    this.advance();
    const result = fn();
    this.worldDirty = true;
    this.urgent = true;
    this.requestFrame();
    this.requestLater();
    return result;
  }

  private requestFrame(): void {
    if (this.frameQueued || !this.running) return;
    this.frameQueued = true;
    this.scheduler.frame(() => this.frame());
  }

  /**
   * Input usually sets off events due within the frame (a command reaches
   * the server in microseconds): run them as soon as they are due rather
   * than at the next frame, so a pasted block of commands does not wait a
   * frame per line. The frame's budget still bounds the work.
   */
  private requestLater(): void {
    if (this.laterQueued || !this.running || this.driver.isPaused) return;
    const wait = this.driver.nextWakeMs();
    if (wait === null || wait > FRAME_BUDGET_MS) return;
    this.laterQueued = true;
    this.scheduler.later(() => {
      this.laterQueued = false;
      if (this.advance()) this.requestLater();
    }, wait);
  }

  private frame(): void {
    this.frameQueued = false;
    if (!this.running) return;
    this.spentMs = 0;
    this.advance();
    this.publish();
    if (!this.driver.isPaused) this.requestFrame();
  }

  /** Runs the events due, within what is left of the frame's budget. Returns whether any ran. */
  private advance(): boolean {
    const left = FRAME_BUDGET_MS - this.spentMs;
    if (left < 0.5) return false;
    const k = this.world.kernel;
    const before = k.eventsRun;
    const started = this.wallNowMs();
    this.driver.maxTickMs = left;
    this.driver.tick();
    this.spentMs += this.wallNowMs() - started;
    if (k.eventsRun === before) return false;
    this.worldDirty = true;
    return true;
  }

  /** Builds the next snapshot if anything shown has changed, and tells the subscribers. Once per frame. */
  private publish(): void {
    const prev = this.snapshot;
    let clock = prev.clock;
    const k = this.world.kernel;
    const wall = this.wallNowMs();
    const ticking = !this.driver.isPaused && !this.urgent && wall - this.clockBuiltAt < CLOCK_REFRESH_MS;
    if ((clock.nowUs !== k.now && !ticking) || clock.speed !== this.driver.speed || clock.paused !== this.driver.isPaused) {
      clock = this.clockView();
      this.clockBuiltAt = wall;
    }
    let cluster = prev.cluster;
    if (this.worldDirty && (this.urgent || wall - this.clusterBuiltAt >= CLUSTER_REFRESH_MS)) {
      cluster = clusterView(this.world);
      this.clusterBuiltAt = wall;
      this.worldDirty = false;
      this.urgent = false;
    }
    let terminals = prev.terminals;
    if (this.terminalsDirty) {
      terminals = [...this.terminalList];
      this.terminalsDirty = false;
    }
    if (clock === prev.clock && cluster === prev.cluster && terminals === prev.terminals && this.active === prev.activeTerminal) return;
    this.snapshot = { version: prev.version + 1, clock, cluster, terminals, activeTerminal: this.active };
    for (const l of [...this.listeners]) l();
  }

  private clockView(): ClockView {
    const k = this.world.kernel;
    return { nowUs: k.now, startUs: k.startUs, speed: this.driver.speed, paused: this.driver.isPaused };
  }

  /** Something the UI shows changed outside the world: publish at the next frame even when paused. */
  private changed(): void {
    if (this.running) this.requestFrame();
    else this.publish();
  }

  private saveHolds = 0;

  /**
   * Holds the session's saves back until the returned function is called:
   * a code cell's run moves the world in a burst of thousands of actions,
   * and a save every second meanwhile copied them and the terminals'
   * screens into the browser's storage (a fortieth of lesson 16's
   * benchmark). The run's end is a change like any other: it is saved.
   */
  holdSaves(): () => void {
    this.saveHolds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.saveHolds--;
      this.changed();
    };
  }

  /** Whether a run holds the session's saves back. */
  get savesHeld(): boolean {
    return this.saveHolds !== 0;
  }

  // ---- actions: time ----

  setSpeed(speed: number): void {
    this.driver.speed = speed;
    this.changed();
  }

  pause(): void {
    this.advance();
    this.driver.pause();
    this.changed();
  }

  resume(): void {
    this.driver.resume();
    this.changed();
  }

  /** Moves virtual time on by `ms` at once (meant for a paused world). */
  step(ms = DEFAULT_STEP_MS): void {
    this.driver.step(ms);
    this.worldDirty = true;
    this.urgent = true;
    this.changed();
  }

  // ---- actions: terminals ----

  /**
   * Opens a terminal tab and makes it the active one; returns its id. With
   * `restore`, the saved terminal comes back under its own id, attached
   * to its session or shell in the world now hosted.
   */
  openTerminal(choice: TerminalChoice = { kind: 'redis-cli', from: CLIENT_HOST, to: SERVER_HOST, port: SERVER_PORT }, opts: OpenTerminalOptions = {}): string {
    const saved = opts.restore;
    const id = saved?.id ?? `t${this.nextTerminal++}`;
    if (this.sessions.has(id)) throw new Error(`terminal ${id} is already open`);
    const numbered = /^t(\d+)$/.exec(id);
    if (numbered !== null) this.nextTerminal = Math.max(this.nextTerminal, Number(numbered[1]) + 1);
    const base = choice.kind === 'redis-cli' ? `redis-cli ${choice.to}:${choice.port}` : `root@${choice.host}`;
    const same = this.terminalList.filter((t) => t.title === base || t.title.startsWith(base + ' #')).length;
    const title = saved?.title ?? opts.title ?? (same === 0 ? base : `${base} #${same + 1}`);
    const ids: string[] = [...(saved?.worldIds ?? [])];
    this.worldIds.set(id, ids);
    const bind = (worldId: string): void => {
      if (!ids.includes(worldId)) ids.push(worldId);
    };
    // The saved state is taken up by the first program only; after it ends, Enter starts a fresh one.
    let state = saved?.program ?? undefined;
    const session = new TerminalSession(id, title, (write, columns) => {
      const restore = state;
      state = undefined;
      const program =
        choice.kind === 'redis-cli'
          ? new RedisCliProgram(
              this,
              { from: choice.from, to: choice.to, shownHost: choice.to, port: choice.port },
              write,
              restore?.kind === 'redis-cli' ? restore.cli : undefined,
              bind,
            )
          : new DeferredShellProgram(this, choice.host, write, columns, restore?.kind === 'shell' ? restore.shell : undefined, bind);
      this.programs.set(id, program);
      return program;
    });
    this.sessions.set(id, session);
    this.programs.set(id, null);
    this.terminalList.push({ id, title, kind: choice.kind, choice });
    this.terminalsDirty = true;
    this.active = id;
    if (saved === undefined) session.start();
    else {
      session.setHistory(saved.history);
      session.resume(saved.screen, saved.ended);
    }
    this.changed();
    return id;
  }

  /** The terminal tabs now, in order (the snapshot has them as of the last frame). */
  listTerminals(): readonly TerminalInfo[] {
    return [...this.terminalList];
  }

  /** The terminal tab shown now. */
  get activeTerminalId(): string | null {
    return this.active;
  }

  /**
   * A terminal as plain data (see SavedTerminal), or undefined if there is
   * no such tab. `beforeRunningLine` saves the screen as it was before the
   * line running now was typed (a checkpoint taken just before that line acts).
   */
  saveTerminal(id: string, opts: { beforeRunningLine?: boolean } = {}): SavedTerminal | undefined {
    const session = this.sessions.get(id);
    const info = this.terminalList.find((t) => t.id === id);
    if (session === undefined || info === undefined) return undefined;
    const { text, ended } = session.screen(opts);
    const program = ended ? null : (this.programs.get(id) ?? null);
    return {
      id,
      title: info.title,
      choice: info.choice,
      screen: text,
      ended,
      history: [...session.history()],
      program: program?.saveState() ?? null,
      worldIds: [...(this.worldIds.get(id) ?? [])],
    };
  }

  /** The prompt a tab's program shows now ("A:6379> ", "not connected> "), or null when none runs. */
  terminalPrompt(id: string): string | null {
    return this.programs.get(id)?.prompt ?? null;
  }

  /** The terminal that opened a session or a shell of the world ("terminal-3", "shell-1"), if it is still open. */
  terminalOfWorldId(worldId: string): string | null {
    for (const [id, ids] of this.worldIds) if (ids.includes(worldId)) return id;
    return null;
  }

  closeTerminal(id: string): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    session.dispose();
    this.sessions.delete(id);
    this.programs.delete(id);
    this.worldIds.delete(id);
    const at = this.terminalList.findIndex((t) => t.id === id);
    this.terminalList.splice(at, 1);
    this.terminalsDirty = true;
    if (this.active === id) this.active = this.terminalList[Math.min(at, this.terminalList.length - 1)]?.id ?? null;
    this.changed();
  }

  selectTerminal(id: string): void {
    if (!this.sessions.has(id) || this.active === id) return;
    this.active = id;
    this.changed();
  }

  terminal(id: string): TerminalSession | undefined {
    return this.sessions.get(id);
  }

  /** Runs a line in a terminal as if it were typed there, followed by Enter. */
  sendLine(id: string, line: string): void {
    this.sessions.get(id)?.sendLine(line);
  }
}
