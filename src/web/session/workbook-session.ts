import { SessionLink } from '../../../emulator/programs/index.js';
import type { RecordedAction, World, WorldCheckpoint } from '../../../emulator/world/world.js';
import { loadCommandCode } from '../command-code.js';
import { loadShellParts } from '../shell-loader.js';
import { formatElapsed } from '../timeline/clock-format.js';
import { actionOwner, EventLog } from '../timeline/event-log.js';
import { replayNeedsShell } from '../world-programs.js';
import { loadSentinelParts, replayNeedsSentinel } from '../sentinel-loader.js';
import type { SavedTerminal, TerminalChoice, WorldStore } from '../world-store.js';
import { buildSandboxWorld } from '../world-setup.js';
import { faultLabel } from './fault-label.js';
import type { KeyValueStore } from './kv-store.js';
import { browserSliceScheduler, ReplayCancelled, replayInSlices, type SliceScheduler } from './replay-slices.js';
import { SESSION_FORMAT, SESSION_VERSION, type BranchData, type CheckpointData, type Moment, type SessionFile } from './session-format.js';
import { SessionPersistence, type SaveSource } from './session-persistence.js';
import { stateProviders as pageProviders, type StateProviders } from './state-providers.js';
import { setupWorldPrograms } from './world-programs-setup.js';

/** The checks of a session file (zod): loaded when a session is read, not with the page. */
const sessionChecks = (): Promise<typeof import('./session-data.js')> => import('./session-data.js');

/** A checkpoint as the timeline shows it. */
export interface CheckpointView {
  readonly id: string;
  readonly label: string;
  readonly auto: boolean;
  /** Virtual time since the world began, us. */
  readonly atUs: number;
}

export interface BranchView {
  readonly id: string;
  readonly name: string;
  readonly active: boolean;
  /** The checkpoint it was forked from ("before power loss on redis"), or null for the first branch. */
  readonly forkedFrom: string | null;
}

export type SaveStatus = 'off' | 'idle' | 'pending' | 'saved' | 'failed';

export interface SessionSnapshot {
  readonly version: number;
  readonly branches: readonly BranchView[];
  readonly activeBranch: string;
  /** The active branch's checkpoints, oldest first. */
  readonly checkpoints: readonly CheckpointView[];
  /** A rewind, fork, switch or load under way: what it is and how far it has come (0 to 1). */
  readonly busy: { readonly label: string; readonly progress: number } | null;
  readonly notice: { readonly kind: 'error' | 'info'; readonly text: string } | null;
  readonly save: SaveStatus;
  /** A stored session could not be restored and is kept aside: savedUnreadable() gives it. */
  readonly unreadableKept: boolean;
}

export interface WorkbookSessionOptions {
  /** Where the session is kept between visits; null: nowhere (nothing is saved). */
  kv?: KeyValueStore | null;
  scheduler?: SliceScheduler;
  wallNowMs?: () => number;
  providers?: StateProviders;
  /** Registers the programs a restored world's actions name. */
  setup?: (world: World) => void;
  /** The world "reset" starts from. */
  sandbox?: () => World;
  /** How long after a change the session is saved. */
  saveDelayMs?: number;
}

/** What reset() starts: a world (the sandbox by default) and its terminals (one redis-cli by default). */
export interface ResetOptions {
  readonly world?: World;
  readonly terminals?: ReadonlyArray<{ readonly choice: TerminalChoice; readonly title?: string }>;
  /** Whether the state providers forget their state too (default true). */
  readonly resetState?: boolean;
}

interface BranchRecord {
  readonly id: string;
  name: string;
  readonly seed: number;
  readonly startUs: number;
  readonly parent: string | null;
  readonly forkedFrom: string | null;
  /** Where it was left, and its log; both null while it is the live branch (the world has them). */
  head: Moment | null;
  log: readonly RecordedAction[] | null;
}

/** Checkpoints keep this much of each terminal's screen (the newest part), so many of them stay small. */
const CHECKPOINT_SCREEN_CHARS = 256 * 1024;
/** Automatic checkpoints a branch keeps; the oldest go first. */
const MAX_AUTO_CHECKPOINTS = 100;

/**
 * The learner's session around the page's WorldStore: the timeline's
 * checkpoints (taken before every fault and on demand), rewinding to one,
 * forking a branch from one and switching between branches, and keeping
 * all of it, with the terminals, the time controls and the state
 * providers' data, in IndexedDB as it changes, so a reload comes back to
 * the same place. Export and import move the whole session as a file.
 *
 *   const session = new WorkbookSession(store, { kv: indexedDbStore() });
 *   if (!(await session.load())) store.openTerminal();
 *   session.checkpoint('before my experiment');
 *   await session.rewind(session.getSnapshot().checkpoints[0].id);
 *
 * A lesson starts its own world with reset({ world, terminals }).
 */
export class WorkbookSession {
  private readonly kv: KeyValueStore | null;
  private readonly persistence: SessionPersistence | null;
  private readonly scheduler: SliceScheduler;
  private readonly wallNowMs: () => number;
  private readonly providers: StateProviders;
  private readonly setup: (world: World) => void;
  private readonly sandbox: () => World;
  private readonly saveDelayMs: number;

  private branches = new Map<string, BranchRecord>();
  private activeId = '';
  private checkpoints: CheckpointData[] = [];
  private nextId = 1;

  private log: EventLog;
  /** Event logs made for worlds being replayed, so they see the replay's entries. */
  private readonly replayLogs = new WeakMap<World, EventLog>();
  private unwatch: (() => void) | null = null;
  /** Set while this session hosts a world itself, so the store's world-change call is not taken for someone else's. */
  private replacing = false;
  private busy: { label: string; progress: number } | null = null;
  /** Settles when the last rebuild of a world (host) has ended, whichever way. */
  private rebuilt: Promise<void> = Promise.resolve();
  /** Cancel was asked for the rebuild under way. */
  private cancelAsked = false;
  private notice: SessionSnapshot['notice'] = null;
  private saveStatus: SaveStatus;
  private unreadableKept = false;
  /** Saving waits until load() has run, so a fresh page never overwrites the stored session. */
  private ready = false;
  private cancelSave: (() => void) | null = null;
  private saving: Promise<void> = Promise.resolve();
  private snapshot: SessionSnapshot;
  private readonly listeners = new Set<() => void>();
  private readonly offs: Array<() => void> = [];

  constructor(
    readonly store: WorldStore,
    opts: WorkbookSessionOptions = {},
  ) {
    this.kv = opts.kv ?? null;
    this.persistence = this.kv === null ? null : new SessionPersistence(this.kv);
    this.scheduler = opts.scheduler ?? browserSliceScheduler;
    this.wallNowMs = opts.wallNowMs ?? (() => performance.now());
    this.providers = opts.providers ?? pageProviders;
    this.setup = opts.setup ?? setupWorldPrograms;
    this.sandbox = opts.sandbox ?? (() => buildSandboxWorld(1));
    this.saveDelayMs = opts.saveDelayMs ?? 1000;
    this.saveStatus = this.kv === null ? 'off' : 'idle';
    this.log = new EventLog(store.world);
    this.watch(store.world);
    this.newTimeline(store.world);
    this.snapshot = this.buildSnapshot(0);
    this.offs.push(
      store.onWorldChange((world) => this.worldReplaced(world)),
      store.subscribe(() => this.changed()),
      this.providers.onChange(() => this.changed()),
    );
  }

  dispose(): void {
    this.unwatch?.();
    this.log.dispose();
    this.cancelSave?.();
    for (const off of this.offs.splice(0)) off();
  }

  // ---- for React (useSyncExternalStore) ----

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): SessionSnapshot => this.snapshot;

  /** The event log of the world now hosted. */
  get eventLog(): EventLog {
    return this.log;
  }

  /** The world's start (us since the Unix epoch), for the times of checkpoints. */
  get startUs(): number {
    return this.store.world.kernel.startUs;
  }

  /**
   * Gives up the rewind, fork, switch or import under way: the world being
   * rebuilt is dropped and the page stays with the world it had, working.
   */
  cancel(): void {
    if (this.busy !== null) this.cancelAsked = true;
  }

  /** Says something to the learner in the session's notice (a link that could not be opened). */
  showNotice(kind: 'error' | 'info', text: string): void {
    this.notice = { kind, text };
    this.publish();
  }

  dismissNotice(): void {
    this.notice = null;
    this.publish();
  }

  // ---- checkpoints and branches ----

  /**
   * Takes a checkpoint of the page now (the world, the terminals with
   * their screens, the time controls) on the active branch. Returns it,
   * or null when none can be taken (a rewind under way, or a world driven
   * by code outside its action log).
   */
  checkpoint(label?: string, auto = false): CheckpointData | null {
    return this.checkpointBefore(label, auto, null);
  }

  /** A checkpoint; `typedBy` is the terminal whose running line is about to act, shown as before it was typed. */
  private checkpointBefore(label: string | undefined, auto: boolean, typedBy: string | null): CheckpointData | null {
    if (this.busy !== null) return null;
    const world = this.store.world;
    if (!world.complete) {
      this.notice = { kind: 'error', text: 'This world was driven by code outside its record of actions, so it cannot be checkpointed.' };
      this.publish();
      return null;
    }
    const moment = this.capture(CHECKPOINT_SCREEN_CHARS, typedBy);
    const mine = this.checkpoints.filter((c) => c.branch === this.activeId);
    const last = mine[mine.length - 1];
    // Two faults at once (a scripted power loss of two hosts) need one checkpoint.
    if (auto && last !== undefined && last.moment.actionCount === moment.actionCount && last.moment.eventsRun === moment.eventsRun) return last;
    const cp: CheckpointData = {
      id: `c${this.nextId++}`,
      branch: this.activeId,
      label: label ?? `checkpoint ${mine.filter((c) => !c.auto).length + 1}`,
      auto,
      moment,
    };
    this.checkpoints.push(cp);
    const autos = mine.filter((c) => c.auto);
    if (auto && autos.length >= MAX_AUTO_CHECKPOINTS) this.checkpoints = this.checkpoints.filter((c) => c !== autos[0]);
    this.publish();
    this.changed();
    return cp;
  }

  /**
   * Goes back to a checkpoint on its branch ("back to before the power
   * loss"): the world is rebuilt from its log up to that point and the
   * terminals come back on their connections with their screens as they
   * were. Nothing is lost: when the branch had gone on past the
   * checkpoint, what came after (its actions, its later checkpoints, where
   * it was) is kept as a branch of its own, to switch back to. The
   * rewound branch keeps its name and goes on from the checkpoint.
   * Resolves whether it was done.
   */
  async rewind(checkpointId: string): Promise<boolean> {
    const cp = this.checkpoints.find((c) => c.id === checkpointId);
    if (cp === undefined || this.busy !== null) return false;
    const branch = this.branches.get(cp.branch)!;
    const previous = this.activeId;
    if (branch.id !== previous) this.park();
    const whole = this.logOf(branch);
    const head = branch.id === previous ? this.capture() : branch.head!;
    const at = this.checkpoints.indexOf(cp);
    const later = this.checkpoints.filter((c, i) => c.branch === branch.id && i > at);
    const log = whole.slice(0, cp.moment.actionCount);
    const ok = await this.host(branch, log, cp.moment, `Rewinding to ${cp.label}`);
    if (!ok) {
      if (branch.id !== previous) this.unpark(previous);
      return false;
    }
    if (whole.length > cp.moment.actionCount || later.length > 0) {
      // The future left behind becomes a branch that forks at the checkpoint, with the checkpoint and everything after it.
      const kept: BranchRecord = {
        id: `b${this.nextId++}`,
        name: `${branch.name} left at T+${formatElapsed(head.nowUs - branch.startUs)}`.slice(0, 80),
        seed: branch.seed,
        startUs: branch.startUs,
        parent: branch.id,
        forkedFrom: cp.label,
        head,
        log: whole,
      };
      this.branches.set(kept.id, kept);
      this.checkpoints = this.checkpoints.filter((c) => !later.includes(c));
      for (const c of [cp, ...later]) this.checkpoints.push({ ...c, id: `c${this.nextId++}`, branch: kept.id });
    }
    this.persistence?.invalidateLog(branch.id, cp.moment.actionCount);
    this.publish();
    this.changed();
    return true;
  }

  /**
   * Continues from a checkpoint in a new branch; the branch left keeps
   * its history and its present, to switch back to. Resolves the new
   * branch's id, or null.
   */
  async fork(checkpointId: string, name?: string): Promise<string | null> {
    const cp = this.checkpoints.find((c) => c.id === checkpointId);
    if (cp === undefined || this.busy !== null) return null;
    const source = this.branches.get(cp.branch)!;
    const log = this.logOf(source).slice(0, cp.moment.actionCount);
    const branch: BranchRecord = {
      id: `b${this.nextId++}`,
      name: name ?? `branch ${this.branches.size + 1}`,
      seed: source.seed,
      startUs: source.startUs,
      parent: source.id,
      forkedFrom: cp.label,
      head: cp.moment,
      log,
    };
    const previous = this.activeId;
    this.park();
    this.branches.set(branch.id, branch);
    const ok = await this.host(branch, log, cp.moment, `Forking from ${cp.label}`);
    if (!ok) {
      this.branches.delete(branch.id);
      this.unpark(previous);
      return null;
    }
    // The checkpoint starts the new branch too, so it can be rewound to.
    this.checkpoints.push({ ...cp, id: `c${this.nextId++}`, branch: branch.id });
    this.publish();
    return branch.id;
  }

  /** Goes to another branch where it was left. Resolves whether it was done. */
  async switchBranch(branchId: string): Promise<boolean> {
    const branch = this.branches.get(branchId);
    if (branch === undefined || branchId === this.activeId || this.busy !== null) return false;
    const previous = this.activeId;
    this.park();
    const ok = await this.host(branch, branch.log!, branch.head!, `Switching to ${branch.name}`);
    if (!ok) this.unpark(previous);
    return ok;
  }

  /** Renames a branch. */
  renameBranch(branchId: string, name: string): void {
    const b = this.branches.get(branchId);
    const trimmed = name.trim();
    if (b === undefined || trimmed === '') return;
    b.name = trimmed.slice(0, 80);
    this.publish();
    this.changed();
  }

  /** Forgets a branch other than the active one, with its checkpoints. */
  deleteBranch(branchId: string): void {
    if (branchId === this.activeId || !this.branches.has(branchId) || this.busy !== null) return;
    this.branches.delete(branchId);
    this.checkpoints = this.checkpoints.filter((c) => c.branch !== branchId);
    this.publish();
    this.changed();
  }

  // ---- the whole session ----

  /**
   * Starts over: a new world (the sandbox unless a lesson gives its own),
   * new terminals, no checkpoints, one branch, and (unless told not to)
   * the state providers reset. What was there is gone.
   */
  reset(opts: ResetOptions = {}): void {
    if (this.busy !== null) return;
    const world = opts.world ?? this.sandbox();
    this.hostWorld(world);
    this.newTimeline(world);
    if (opts.resetState ?? true) this.providers.resetAll();
    if (opts.terminals === undefined) this.store.openTerminal();
    else for (const t of opts.terminals) this.store.openTerminal(t.choice, { title: t.title });
    this.notice = null;
    this.publish();
    this.changed();
  }

  /** The whole session as the file format holds it. */
  exportSession(): SessionFile {
    const live = this.capture();
    return {
      format: SESSION_FORMAT,
      version: SESSION_VERSION,
      savedAt: new Date().toISOString(),
      activeBranch: this.activeId,
      branches: [...this.branches.values()].map((b) => ({ ...this.branchHeader(b), head: b.id === this.activeId ? live : b.head! })),
      logs: Object.fromEntries([...this.branches.values()].map((b) => [b.id, [...this.logOf(b)]])),
      checkpoints: [...this.checkpoints],
      state: this.providers.saveAll(),
      nextId: this.nextId,
    };
  }

  /** The session file's text (JSON). */
  exportText(): string {
    return JSON.stringify(this.exportSession());
  }

  /**
   * Replaces the session with one from a file. A file that is not a
   * session, or a damaged one, changes nothing: the result says why.
   */
  async importText(text: string, words: { doing: string; done: string } = { doing: 'Importing the session', done: 'Session imported.' }): Promise<{ ok: true } | { ok: false; message: string }> {
    if (this.busy !== null) return { ok: false, message: 'Wait for the rewind under way to end.' };
    const parsed = (await sessionChecks()).parseSessionText(text);
    if (!parsed.ok) return parsed;
    this.notice = null;
    const ok = await this.open(parsed.session, words.doing);
    if (!ok) return { ok: false, message: (this.notice as SessionSnapshot['notice'])?.text ?? 'The session could not be rebuilt.' };
    this.persistence?.forget();
    // A note from the rebuild (a world that came back to another point) says more than this one.
    this.notice ??= { kind: 'info', text: words.done };
    this.publish();
    await this.save();
    return { ok: true };
  }

  /**
   * Replaces the session with one kept earlier as data (a lesson left and
   * opened again), saying `label` while it is rebuilt. Data that is not a
   * sound session, or a world that cannot be rebuilt, changes nothing:
   * resolves false.
   */
  async openKept(data: unknown, label: string): Promise<boolean> {
    // A rebuild under way (the page restoring its session after a reload,
    // say) is waited for rather than refused: a learner asking for their own
    // lesson while the shared moment is still coming back would otherwise
    // see that lesson start again from its beginning.
    while (this.busy !== null) await this.rebuilt;
    const parsed = (await sessionChecks()).checkSession(data);
    if (!parsed.ok) return false;
    const ok = await this.open(parsed.session, label);
    if (ok) {
      this.publish();
      await this.save();
    }
    return ok;
  }

  /**
   * Restores the session saved in the store, if any. Resolves whether one
   * was restored; saving starts either way. A stored session that cannot
   * be read is kept aside (see savedUnreadable) and the sandbox stays.
   */
  async load(): Promise<boolean> {
    if (this.persistence === null) {
      this.ready = true;
      return false;
    }
    let raw: unknown;
    try {
      raw = await this.persistence.load();
    } catch (e) {
      this.notice = { kind: 'error', text: `Your saved session could not be read from the browser's storage (${errorText(e)}); the sandbox starts fresh.` };
      this.ready = true;
      this.publish();
      return false;
    }
    if (raw === undefined) {
      this.ready = true;
      return false;
    }
    const parsed = (await sessionChecks()).checkSession(raw);
    let ok = false;
    if (parsed.ok) ok = await this.open(parsed.session, 'Restoring your session');
    if (!ok) {
      const why = parsed.ok ? (this.notice?.text ?? 'it could not be rebuilt') : parsed.message;
      this.unreadableKept = await this.persistence.keepUnreadable(raw).then(
        () => true,
        () => false,
      );
      this.notice = { kind: 'error', text: `Your saved session could not be restored: ${why} The sandbox starts fresh; the old session is kept for download.` };
    }
    this.ready = true;
    this.publish();
    if (!ok) this.changed();
    return ok;
  }

  /** The stored session that could not be restored, as a file's text, if there is one. */
  async savedUnreadable(): Promise<string | null> {
    const data = await this.persistence?.readUnreadable();
    return data === undefined || data === null ? null : JSON.stringify(data);
  }

  /** Saves now (the page is going away, or a test wants it). */
  save(): Promise<void> {
    this.cancelSave?.();
    this.cancelSave = null;
    if (this.persistence === null || !this.ready) return this.saving;
    if (this.busy !== null) {
      this.changed();
      return this.saving;
    }
    const persistence = this.persistence;
    const src = this.saveSource();
    this.saving = this.saving.then(async () => {
      try {
        await persistence.save(src);
        // A change after this save was read keeps the status pending.
        if (this.cancelSave === null) this.saveStatus = 'saved';
      } catch (e) {
        this.saveStatus = 'failed';
        this.notice = { kind: 'error', text: `Your work could not be saved in the browser's storage: ${errorText(e)}. Export the session to keep it.` };
      }
      this.publish();
    });
    return this.saving;
  }

  // ---- inside ----

  /** Something was done: save soon. */
  private changed(): void {
    if (this.persistence === null || !this.ready || this.cancelSave !== null) return;
    if (this.saveStatus !== 'pending') {
      this.saveStatus = 'pending';
      this.publish();
    }
    this.cancelSave = this.scheduler.after(() => {
      this.cancelSave = null;
      // A code cell running: its actions are saved when it ends (or with an explicit save, as when the page goes away).
      if (this.store.savesHeld) this.changed();
      else void this.save();
    }, this.saveDelayMs);
  }

  private saveSource(): SaveSource {
    const heads = new Map<string, Moment>();
    for (const b of this.branches.values()) if (b.id !== this.activeId && b.head !== null) heads.set(b.id, b.head);
    const world = this.store.world;
    return {
      savedAt: new Date().toISOString(),
      activeBranch: this.activeId,
      branches: [...this.branches.values()].map((b) => this.branchHeader(b)),
      heads,
      live: this.capture(),
      checkpoints: [...this.checkpoints],
      state: this.providers.saveAll(),
      nextId: this.nextId,
      logLength: (id) => (id === this.activeId ? world.actionCount : (this.branches.get(id)?.log?.length ?? 0)),
      logSlice: (id, from, to) => (id === this.activeId ? world.actionsFrom(from).slice(0, to - from) : (this.branches.get(id)?.log ?? []).slice(from, to)),
    };
  }

  private branchHeader(b: BranchRecord): Omit<BranchData, 'head'> {
    return { id: b.id, name: b.name, seed: b.seed, startUs: b.startUs, parent: b.parent, forkedFrom: b.forkedFrom };
  }

  /** The page now, as a moment of the active branch. */
  private capture(screenChars = Infinity, typedBy: string | null = null): Moment {
    const world = this.store.world;
    const k = world.kernel;
    const d = this.store.driver;
    const terminals: SavedTerminal[] = [];
    for (const t of this.store.listTerminals()) {
      const saved = this.store.saveTerminal(t.id, { beforeRunningLine: t.id === typedBy });
      if (saved !== undefined) terminals.push(saved.screen.length > screenChars ? { ...saved, screen: newestLines(saved.screen, screenChars) } : saved);
    }
    return { actionCount: world.actionCount, eventsRun: k.eventsRun, nowUs: k.now, terminals, active: this.store.activeTerminalId, clock: { speed: d.speed, paused: d.isPaused } };
  }

  private logOf(b: BranchRecord): readonly RecordedAction[] {
    return b.id === this.activeId ? this.store.world.actionsFrom(0) : (b.log ?? []);
  }

  /** The active branch is left where it is: its moment and log are kept with it. */
  private park(): void {
    const b = this.branches.get(this.activeId)!;
    b.head = this.capture();
    b.log = this.store.world.actionsFrom(0);
  }

  /** A switch failed: the branch left is still the live one. */
  private unpark(id: string): void {
    const b = this.branches.get(id)!;
    b.head = null;
    b.log = null;
    this.activeId = id;
    this.publish();
  }

  /** Replays a branch's log to a moment and hosts the world, with the terminals and the clock of that moment. */
  private host(branch: BranchRecord, log: readonly RecordedAction[], moment: Moment, label: string): Promise<boolean> {
    const hosting = this.hostNow(branch, log, moment, label);
    this.rebuilt = hosting.then(
      () => undefined,
      () => undefined,
    );
    return hosting;
  }

  private async hostNow(branch: BranchRecord, log: readonly RecordedAction[], moment: Moment, label: string): Promise<boolean> {
    this.busy = { label, progress: 0 };
    this.cancelAsked = false;
    this.publish();
    const wasPaused = this.store.driver.isPaused;
    this.store.pause();
    const cp: WorldCheckpoint = {
      version: 1,
      seed: branch.seed,
      startUs: branch.startUs,
      nowUs: moment.nowUs,
      eventsRun: moment.eventsRun,
      actions: log.slice(0, moment.actionCount) as RecordedAction[],
      complete: true,
    };
    let result: Awaited<ReturnType<typeof replayInSlices>>;
    try {
      if (replayNeedsShell(cp.actions)) await loadShellParts();
      // Sentinel's code is registered before the replay starts a sentinel or a client of it.
      const sentinel = replayNeedsSentinel(cp.actions) ? await loadSentinelParts() : null;
      // A replay may run any command, or a server loading an AOF that holds one.
      await loadCommandCode();
      result = await replayInSlices(
        cp,
        (world) => {
          this.setup(world);
          sentinel?.registerSentinelParts(world);
          this.replayLogs.set(world, new EventLog(world));
        },
        {
          scheduler: this.scheduler,
          wallNowMs: this.wallNowMs,
          cancelled: () => this.cancelAsked,
          onProgress: (p) => {
            if (this.busy === null) return;
            this.busy = { label, progress: p };
            this.publish();
          },
        },
      );
    } catch (e) {
      this.busy = null;
      this.notice =
        e instanceof ReplayCancelled
          ? { kind: 'info', text: `${label}: cancelled. The world is as it was before.` }
          : { kind: 'error', text: `The world could not be rebuilt: ${errorText(e)}.` };
      if (!wasPaused) this.store.resume();
      this.publish();
      return false;
    }
    const world = result.world;
    this.hostWorld(world);
    SessionLink.continueNumbering(
      world,
      cp.actions.flatMap((r) => (r.action.kind === 'openSession' ? [r.action.id] : [])),
    );
    for (const t of moment.terminals) {
      try {
        this.store.openTerminal(t.choice, { restore: t });
      } catch (e) {
        this.notice = { kind: 'error', text: `The terminal "${t.title}" could not be restored: ${errorText(e)}.` };
      }
    }
    if (moment.active !== null) this.store.selectTerminal(moment.active);
    this.store.setSpeed(moment.clock.speed);
    if (moment.clock.paused) this.store.pause();
    else this.store.resume();
    this.activeId = branch.id;
    branch.head = null;
    branch.log = null;
    this.busy = null;
    if (result.mismatch !== null) {
      this.notice = { kind: 'info', text: `The world was rebuilt, but not to exactly the same point (${result.mismatch}): the workbook has changed since it was saved.` };
    }
    this.publish();
    this.changed();
    return true;
  }

  /** Hosts a world in the store, closing the old terminals, and follows its actions and trace. */
  private hostWorld(world: World): void {
    this.replacing = true;
    try {
      this.store.replaceWorld(world);
    } finally {
      this.replacing = false;
    }
    this.watch(world);
  }

  /** The store hosts another world that this session did not bring (a lesson's): it starts a new timeline. */
  private worldReplaced(world: World): void {
    if (this.replacing) return;
    this.watch(world);
    this.newTimeline(world);
    this.publish();
    this.changed();
  }

  private newTimeline(world: World): void {
    const id = `b${this.nextId++}`;
    this.branches = new Map([[id, { id, name: 'main', seed: world.kernel.seed, startUs: world.kernel.startUs, parent: null, forkedFrom: null, head: null, log: null }]]);
    this.activeId = id;
    this.checkpoints = [];
  }

  private watch(world: World): void {
    this.unwatch?.();
    const log = this.replayLogs.get(world) ?? (this.log.world === world ? this.log : new EventLog(world));
    if (log !== this.log) this.log.dispose();
    this.log = log;
    this.unwatch = world.onAction((rec) => {
      if (this.busy !== null) return;
      // A checkpoint must never stand in the way of the fault itself.
      try {
        const label = faultLabel(world, rec);
        if (label !== null) {
          const owner = actionOwner(rec.action);
          this.checkpointBefore(label, true, owner === null ? null : this.store.terminalOfWorldId(owner));
        }
      } catch {
        // The fault goes ahead without its checkpoint.
      }
      this.changed();
    });
  }

  private publish(): void {
    this.snapshot = this.buildSnapshot(this.snapshot.version + 1);
    for (const l of [...this.listeners]) l();
  }

  private buildSnapshot(version: number): SessionSnapshot {
    const startUs = this.store.world.kernel.startUs;
    return {
      version,
      branches: [...this.branches.values()].map((b) => ({ id: b.id, name: b.name, active: b.id === this.activeId, forkedFrom: b.forkedFrom })),
      activeBranch: this.activeId,
      checkpoints: this.checkpoints
        .filter((c) => c.branch === this.activeId)
        .map((c) => ({ id: c.id, label: c.label, auto: c.auto, atUs: c.moment.nowUs - startUs })),
      busy: this.busy,
      notice: this.notice,
      save: this.saveStatus,
      unreadableKept: this.unreadableKept,
    };
  }

  /** Resolves once the store's snapshot lists the terminals it has now (it publishes at its next frame). */
  private terminalsPublished(): Promise<void> {
    const published = (): boolean => {
      const shown = this.store.getSnapshot().terminals;
      const now = this.store.listTerminals();
      return shown.length === now.length && shown.every((t, i) => t === now[i]);
    };
    if (published()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        off();
        cancel();
        resolve();
      };
      const off = this.store.subscribe(() => {
        if (published()) done();
      });
      const cancel = this.scheduler.after(done, PUBLISH_WAIT_MS);
    });
  }

  /** Opens a session from a file or the store: its active branch where it was. Nothing changes if that fails. */
  private async open(file: SessionFile, label: string): Promise<boolean> {
    const before = { branches: this.branches, activeId: this.activeId, checkpoints: this.checkpoints, nextId: this.nextId };
    this.park();
    this.branches = new Map(file.branches.map((b) => [b.id, { ...b, head: b.head, log: file.logs[b.id]! }]));
    this.checkpoints = [...file.checkpoints];
    this.nextId = Math.max(file.nextId, this.nextId);
    const branch = this.branches.get(file.activeBranch)!;
    const ok = await this.host(branch, branch.log!, branch.head!, label);
    if (!ok) {
      this.branches = before.branches;
      this.checkpoints = before.checkpoints;
      this.nextId = before.nextId;
      this.unpark(before.activeId);
      return false;
    }
    // Providers read the page as React sees it (the lesson matches its terminals by their tabs).
    await this.terminalsPublished();
    const { failed } = this.providers.restoreAll(file.state);
    if (failed.length !== 0) this.notice = { kind: 'error', text: `Some saved state could not be restored: ${failed.join(', ')}.` };
    this.publish();
    return true;
  }
}

/** How long to wait for the store to publish restored terminals before going on regardless. */
const PUBLISH_WAIT_MS = 500;

/** The newest part of a screen, cut at a line's start. */
function newestLines(screen: string, chars: number): string {
  const cut = screen.indexOf('\n', screen.length - chars);
  return cut < 0 ? '' : screen.slice(cut + 1);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
