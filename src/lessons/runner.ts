import { z } from 'zod';
import type { World } from '../../emulator/world/world.js';
import { evaluateCheck, observeAtMoment, type CellRunView, type CheckContext, type CheckResult } from './checks.js';
import { EventPlayer } from './events.js';
import type { LessonHost } from './host.js';
import { lessonCells, type CellBlock, type Lesson, type LessonStep } from './lesson.js';
import { runningServer } from './observe.js';
import { StepWatch, stepSeen } from './step-watch.js';
import { buildLessonWorld } from './world.js';
import { ledgerOf, loadLedgerCode } from './ledger-code.js';
import { loadSentinelCode } from '../../emulator/programs/shell-parts.js';

/**
 * Where a learner is in a lesson, as plain JSON for IndexedDB or an
 * exported session. The world itself is saved apart (its checkpoint).
 */
export const lessonProgress = z.strictObject({
  version: z.literal(1),
  lesson: z.string(),
  /** The step being worked on; steps.length once every step is done. */
  step: z.number().int().min(0),
  /** Per step: its checks have all passed once. */
  done: z.array(z.boolean()),
  /** Per step: how many hints have been shown. */
  hints: z.array(z.number().int().min(0)),
  /** Per step: the solution was revealed. */
  solution: z.array(z.boolean()),
  /** When the current step began, in us since the world began: what happened counts from there. */
  stepStartUs: z.number(),
  /** What the current step has seen so far: moments and counts (step-watch.ts). Absent in progress saved before it existed. */
  seen: stepSeen.optional(),
});

export type LessonProgress = z.infer<typeof lessonProgress>;

/** The checks of the current step, as last evaluated. */
export interface StepStatus {
  readonly step: number;
  readonly results: readonly CheckResult[];
  /** Every check passes now. */
  readonly passing: boolean;
}

export interface LessonRunnerOptions {
  /**
   * Runs a code cell to its end (the code-cell engine); needed only to
   * play solutions that run cells. `source` is the cell's text as edited.
   * What it resolves is what cell checks see of that run, unless
   * `cellRun` says otherwise.
   */
  runCell?: (cell: CellBlock, source: string) => Promise<CellRunView | void>;
  /** A code cell's last run however it was started (the page's Run button too), for cell checks. */
  cellRun?: (id: string) => CellRunView | null;
  /** Registers programs the host's worlds need before their first action (buildLessonWorld's setup). */
  worldSetup?: (world: World) => void;
}

/**
 * Runs a lesson over a LessonHost: builds its world, opens its terminals,
 * types "run this" lines, plays scripted events, evaluates the current
 * step's checks and keeps the learner's progress. Headless: the page's
 * lesson pane and the tests drive the same runner.
 *
 *   const runner = new LessonRunner(lesson, host);
 *   runner.start();                          // fresh world, step 0
 *   await runner.runLines('redis', ['SET a 1']);
 *   runner.evaluate().passing;               // after every command and event
 *   runner.next();
 *   localStorage.x = JSON.stringify(runner.progress());
 *
 * Listeners hear about every change of progress or status.
 */
export class LessonRunner {
  private state: LessonProgress;
  private player: EventPlayer;
  private status: StepStatus;
  private readonly listeners = new Set<() => void>();
  /** The text of each code cell as the learner edited it. */
  private readonly cellSources = new Map<string, string>();
  /** The last run of each code cell this runner started (runCell's answers). */
  private readonly cellRuns = new Map<string, CellRunView>();
  /** What the current step has seen happen: moments servers died or forked, and counts. */
  private readonly watch: StepWatch;

  constructor(
    readonly lesson: Lesson,
    readonly host: LessonHost,
    private readonly opts: LessonRunnerOptions = {},
  ) {
    this.state = this.freshProgress(0);
    this.player = new EventPlayer(host, lesson.meta.world);
    this.status = { step: 0, results: [], passing: false };
    this.watch = new StepWatch(
      () => this.lesson.steps[this.state.step]?.checks ?? [],
      (check, proc) => observeAtMoment(check, this.context(), proc),
    );
    this.usesLedger = lesson.steps.some((s) => s.checks.some((c) => c.kind === 'ledger'));
    // The ledger listens from the first evaluation after its code arrives, long before the step that reads it.
    const loads: Array<Promise<unknown>> = [];
    if (this.usesLedger) loads.push(loadLedgerCode().then(() => this.evaluated && this.evaluate(true)));
    // Sentinel's code too, so that redis-sentinel starts the instant its line runs (in a replay as well).
    if (JSON.stringify(lesson.steps).includes('redis-sentinel')) loads.push(loadSentinelCode());
    this.codeReady = Promise.all(loads);
  }

  /** The code the lesson's steps need beyond the runner's own; lines, events and cells wait for it. */
  private readonly codeReady: Promise<unknown>;

  /** Some step checks the acknowledged-writes ledger. */
  private readonly usesLedger: boolean;
  /** The checks have run once: the host has a world. */
  private evaluated = false;

  get steps(): readonly LessonStep[] {
    return this.lesson.steps;
  }

  /** The step being worked on (steps.length when the lesson is finished). */
  get current(): number {
    return this.state.step;
  }

  get finished(): boolean {
    return this.state.step >= this.lesson.steps.length;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Builds the lesson's world, hosts it, opens its terminals, and begins at step 0. */
  start(): void {
    const world = buildLessonWorld(this.lesson.meta.world, this.opts.worldSetup);
    this.host.setWorld(world);
    this.host.openTerminals(this.lesson.meta.world.terminals);
    this.watch.begin(this.runningServers());
    this.watch.follow(world);
    this.state = this.freshProgress(this.nowUs());
    this.cellSources.clear();
    this.cellRuns.clear();
    this.evaluate(true);
  }

  /** Starts over: a fresh world, no progress. */
  reset(): void {
    this.start();
  }

  /** Where the learner is, as JSON-safe data. */
  progress(): LessonProgress {
    return structuredClone({ ...this.state, seen: this.watch.seen });
  }

  /**
   * Takes up saved progress over the world the host has now (restored
   * from its checkpoint by whoever saved both). Throws on progress that
   * is not this lesson's.
   */
  restoreProgress(json: unknown): void {
    const p = lessonProgress.parse(json);
    const n = this.lesson.steps.length;
    if (p.lesson !== this.lesson.meta.id) throw new Error(`the progress is for lesson ${p.lesson}, not ${this.lesson.meta.id}`);
    if (p.done.length !== n || p.hints.length !== n || p.solution.length !== n || p.step > n) {
      throw new Error(`the progress does not fit lesson ${p.lesson}: it has ${p.done.length} steps, the lesson ${n}`);
    }
    this.state = structuredClone(p);
    delete this.state.seen;
    this.watch.detach();
    this.watch.restore(p.seen ?? { moments: [], hits: {}, running: [] }, this.nowUs());
    this.watch.follow(this.host.world);
    this.evaluate(true);
  }

  /** The current step's checks as last evaluated. */
  get stepStatus(): StepStatus {
    return this.status;
  }

  /**
   * Evaluates the current step's checks against the world (without
   * changing it); the step is done once they all pass, and stays done.
   * Call after every command and event, or whenever the world has moved.
   */
  evaluate(force = false): StepStatus {
    const i = this.state.step;
    const step = this.lesson.steps[i];
    if (step === undefined) {
      if (force || this.status.step !== i) {
        this.status = { step: i, results: [], passing: true };
        this.changed();
      }
      return this.status;
    }
    this.watch.follow(this.host.world);
    this.evaluated = true;
    if (this.usesLedger) ledgerOf(this.host.world);
    const ctx = this.context();
    const results = step.checks.map((c, k) => evaluateCheck(c, ctx, k));
    const passing = results.every((r) => r.ok);
    const same =
      !force &&
      this.status.step === i &&
      this.status.results.length === results.length &&
      this.status.results.every((r, k) => r.ok === results[k]!.ok && r.label === results[k]!.label && r.message === results[k]!.message && r.detail === results[k]!.detail);
    if (same) return this.status;
    this.status = { step: i, results, passing };
    if (passing) this.state.done[i] = true;
    this.changed();
    return this.status;
  }

  /** Moves on to the next step (the current one need not be done: the learner may skip). */
  next(): Promise<void> {
    if (this.finished) return Promise.resolve();
    return this.goTo(this.state.step + 1);
  }

  /**
   * Makes step `i` the current one; what happens counts from now. A
   * machine left switched off is switched on first, and its servers
   * started, as part of the step left: a step never begins on a machine
   * without power, where every client would wait for ever. Synchronous
   * when every machine has power.
   */
  goTo(i: number): Promise<void> {
    const n = this.lesson.steps.length;
    const to = Math.max(0, Math.min(n, i));
    if (to === this.state.step) return Promise.resolve();
    if (this.hostsOff().length === 0) {
      this.switchTo(to);
      return Promise.resolve();
    }
    return this.switchOnHosts([]).then(() => this.switchTo(to));
  }

  private switchTo(to: number): void {
    this.state.step = to;
    this.state.stepStartUs = this.nowUs();
    this.watch.follow(this.host.world);
    this.watch.begin(this.runningServers());
    this.evaluate(true);
  }

  /** Shows the next hint of the current step; returns how many are shown. */
  showHint(): number {
    const i = this.state.step;
    const step = this.lesson.steps[i];
    if (step === undefined) return 0;
    if (this.state.hints[i]! < step.hints.length) {
      this.state.hints[i]!++;
      this.changed();
    }
    return this.state.hints[i]!;
  }

  /** Reveals the current step's solution (after the learner confirmed). */
  revealSolution(): void {
    const i = this.state.step;
    if (this.lesson.steps[i] === undefined || this.state.solution[i]) return;
    this.state.solution[i] = true;
    this.changed();
  }

  /**
   * Types lines into a named terminal, one after the other, checking after
   * each (a block's Run button, "Do it for me"). Where the server a
   * redis-cli terminal talked to went away, a PING goes first, as the
   * lessons' own blocks do after a restart: it meets "Server closed the
   * connection", and the line itself connects again and runs.
   */
  async runLines(terminal: string, lines: readonly string[]): Promise<void> {
    await this.codeReady;
    for (const line of lines) {
      if (this.isRedisCli(terminal) && !/^\s*ping\s*$/i.test(line) && this.host.connectionLost(terminal)) {
        await this.host.typeLine(terminal, 'PING');
      }
      await this.host.typeLine(terminal, line);
      this.evaluate();
    }
  }

  /** Plays scripted events in order, checking after each; resolves with what their shells printed. */
  async playEvents(lines: readonly string[]): Promise<string> {
    await this.codeReady;
    const out = await this.host.holdingTime(async () => {
      let text = '';
      for (const line of lines) {
        text += await this.player.play(line);
        this.evaluate();
      }
      return text;
    });
    this.host.eventsPlayed(out);
    return out;
  }

  /** The text of a code cell as edited (its lesson text until then). */
  cellSource(id: string): string {
    return this.cellSources.get(id) ?? lessonCells(this.lesson).get(id)?.source ?? '';
  }

  editCell(id: string, source: string): void {
    this.cellSources.set(id, source);
  }

  /** Runs a code cell of the lesson to its end, as edited, with the code-cell engine; checks look after. */
  async runCell(id: string): Promise<void> {
    const cell = lessonCells(this.lesson).get(id);
    if (cell === undefined) throw new Error(`the lesson has no code cell ${id}`);
    if (this.opts.runCell === undefined) throw new Error(`code cell ${id} needs a code-cell engine, and none was given`);
    const run = await this.opts.runCell(cell, this.cellSource(id));
    if (run) this.cellRuns.set(id, run);
    this.evaluate();
  }

  /**
   * Plays the reference solution of a step (the current one by default),
   * entry by entry, checking after each. Lines go to their terminals,
   * events to the event player, cells to the code-cell engine. Resolves
   * with the events' output.
   */
  async playSolution(i = this.state.step): Promise<string> {
    const step = this.lesson.steps[i];
    if (step === undefined) return '';
    // The machines as the step began: one the learner left switched off
    // would hold every client that talks to it, and a server that was
    // running then is what the solution talks to.
    let out = await this.switchOnHosts(this.watch.seen.running);
    const entries = step.solution;
    for (let k = 0; k < entries.length; k++) {
      const entry = entries[k]!;
      // A learner reads and types between lines; the events of one block follow each other at once.
      await this.host.think();
      if (entry.kind === 'line') {
        await this.runLines(entry.terminal, [entry.line]);
      } else if (entry.kind === 'event') {
        const block = [entry.line];
        while (entries[k + 1]?.kind === 'event') block.push((entries[++k] as { line: string }).line);
        out += await this.playEvents(block);
      } else {
        await this.runCell(entry.id);
      }
    }
    return out;
  }

  private isRedisCli(terminal: string): boolean {
    return this.lesson.meta.world.terminals.some((t) => t.name === terminal && t.kind === 'redis-cli');
  }

  /** The lesson's hosts without power. */
  private hostsOff(): string[] {
    return this.lesson.meta.world.hosts.filter((h) => this.host.world.hosts.get(h.name)?.powered === false).map((h) => h.name);
  }

  /** The lesson's servers running now, as "A:6379". */
  private runningServers(): string[] {
    return this.lesson.meta.world.servers.filter((s) => runningServer(this.host.world, s.host, s.port) !== null).map((s) => `${s.host}:${s.port}`);
  }

  /**
   * Switches on the lesson's hosts that have no power, starting their
   * servers, and starts the servers of `running` that have stopped;
   * resolves with what that printed (nothing when all is as it should be).
   */
  private async switchOnHosts(running: readonly string[]): Promise<string> {
    const spec = this.lesson.meta.world;
    const off = new Set(this.hostsOff());
    const lines = [...off].map((h) => `power-on ${h}`);
    for (const s of spec.servers) {
      const ref = `${s.host}:${s.port}`;
      if (off.has(s.host) || (running.includes(ref) && runningServer(this.host.world, s.host, s.port) === null)) lines.push(`start ${ref}`);
    }
    return lines.length === 0 ? '' : this.playEvents(lines);
  }

  /** What checks read: the world now, the step's start, the terminals' replies, the cells' runs, what the step has seen. */
  private context(): CheckContext {
    return {
      world: this.host.world,
      stepStartUs: this.state.stepStartUs,
      lastReply: (t: string) => this.host.lastReply(t),
      cell: (id: string) => this.opts.cellRun?.(id) ?? this.cellRuns.get(id) ?? null,
      watch: this.watch,
      ledger: () => ledgerOf(this.host.world),
    };
  }

  private freshProgress(stepStartUs: number): LessonProgress {
    const n = this.lesson.steps.length;
    return {
      version: 1,
      lesson: this.lesson.meta.id,
      step: 0,
      done: new Array<boolean>(n).fill(false),
      hints: new Array<number>(n).fill(0),
      solution: new Array<boolean>(n).fill(false),
      stepStartUs,
    };
  }

  private nowUs(): number {
    const k = this.host.world.kernel;
    return k.now - k.startUs;
  }
}
