/**
 * A learner who does not follow the script, for fast-check: in each step
 * they may type harmless commands of their own, let time run while they
 * read, do half of the solution, press the panel's buttons instead of
 * Play, then finish with "Do it for me" or by running the step's blocks in
 * order. wander() walks a whole lesson that way and reports the first
 * broken promise of LESSONS.md's "Robust steps":
 *
 * - no check is done when its step begins, whatever path led there;
 * - "Do it for me" finishes the step from any state the step reached;
 * - the step's blocks, run in order from its start, finish it;
 * - every label and reason the learner reads is about the world.
 */
import fc from 'fast-check';
import type { CheckResult } from '../../src/lessons/checks.js';
import { HeadlessLessonHost } from '../../src/lessons/headless.js';
import type { Lesson, LessonStep } from '../../src/lessons/lesson.js';
import { parseEventLine } from '../../src/lessons/event-lines.js';
import { runningServer } from '../../src/lessons/observe.js';
import { LessonRunner } from '../../src/lessons/runner.js';
import { parseServerRef } from '../../src/lessons/schema.js';
import { applyFaultWhenReady, type Fault } from '../../src/web/cluster/faults.js';
import type { WorldHost } from '../../src/web/world-host.js';
import { jargonIn } from './learner-words.js';
import { inProcessCells } from './replay.js';

/** What the learner does in a step before finishing it. */
export type Wander =
  /** A command of their own in a terminal of the lesson (by index), one that changes nothing. */
  | { readonly kind: 'extra'; readonly terminal: number; readonly pick: number }
  /** Virtual time passes while they read. */
  | { readonly kind: 'wait'; readonly seconds: number }
  /** The first entries of the step's solution, then they stop. */
  | { readonly kind: 'half'; readonly entries: number }
  /** The step's blocks in order, the events through the cluster panel's buttons where it has them. */
  | { readonly kind: 'panel' };

/** How they finish a step. */
export type Finish = 'do-it-for-me' | 'blocks';

export interface StepPath {
  readonly wander: readonly Wander[];
  readonly finish: Finish;
}

/** Commands that change nothing a lesson checks, by the kind of terminal. */
const HARMLESS: Record<'redis-cli' | 'shell', readonly string[]> = {
  'redis-cli': ['PING', 'DBSIZE', 'INFO keyspace', 'TIME', 'ECHO reading', 'CONFIG GET save'],
  shell: ['ls -l /var/lib/redis', 'ps ax', 'date', 'df -h'],
};

export const wanderArb: fc.Arbitrary<Wander> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('extra' as const), terminal: fc.nat(7), pick: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), seconds: fc.constantFrom(1, 5, 30, 90) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('half' as const), entries: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'panel' as const }) },
);

export const stepPathArb: fc.Arbitrary<StepPath> = fc.record({
  wander: fc.array(wanderArb, { maxLength: 3 }),
  finish: fc.constantFrom<Finish>('do-it-for-me', 'blocks'),
});

/** A path in words, for the report of a failure. */
export function describePath(path: readonly StepPath[]): string {
  return path
    .map((p, i) => {
      const moves = p.wander.map((w) => (w.kind === 'extra' ? `extra(${w.terminal}/${w.pick})` : w.kind === 'wait' ? `wait ${w.seconds}s` : w.kind === 'half' ? `half(${w.entries})` : 'panel'));
      return `step ${i + 1}: ${[...moves, p.finish].join(', ')}`;
    })
    .join('; ');
}

/** A broken promise, with the step and the path that broke it. */
export class WanderFailure extends Error {}

/**
 * Walks the lesson along `path` (one entry per step, the last reused for
 * steps past its end) and throws a WanderFailure at the first broken
 * promise.
 */
export async function wander(lesson: Lesson, path: readonly StepPath[], onHost?: (h: HeadlessLessonHost) => void): Promise<void> {
  const host = new HeadlessLessonHost();
  onHost?.(host);
  const runner = new LessonRunner(lesson, host, inProcessCells(host));
  runner.start();
  const said = (where: string, results: readonly CheckResult[]) => {
    for (const r of results) {
      for (const text of [r.label, r.detail, r.whyNot ?? '']) {
        const bad = jargonIn(text);
        if (bad !== null) throw new WanderFailure(`${where}: the learner reads "${text}" (${bad})`);
      }
    }
  };
  for (let i = 0; i < lesson.steps.length; i++) {
    const step = lesson.steps[i]!;
    const p = path[Math.min(i, path.length - 1)]!;
    const where = `step ${i + 1} "${step.title}"`;
    const atStart = runner.evaluate(true).results;
    said(`${where} when it begins`, atStart);
    const early = atStart.filter((r) => r.ok).map((r) => r.label);
    if (early.length !== 0) throw new WanderFailure(`${where}: done before the learner does anything: ${early.join(' | ')}`);

    for (const w of p.wander) {
      // Once the step is done the learner reads on: what they still do changes nothing the next step starts from.
      if (runner.progress().done[i] === true && (w.kind === 'half' || w.kind === 'panel')) continue;
      await act(runner, host, step, w);
      said(`${where} after ${w.kind}`, runner.evaluate().results);
    }
    if (p.finish === 'blocks' && runner.progress().done[i] !== true) {
      await switchOnByPanel(runner, host);
      await runBlocks(runner, host, step, false);
      const status = runner.evaluate();
      said(`${where} after its blocks`, status.results);
      if (p.wander.length === 0 && !status.passing) {
        throw new WanderFailure(`${where}: running its blocks in order does not finish it: ${failing(status.results)}`);
      }
    }
    // "Do it for me" is offered until the step is done; once it is, the learner goes on.
    if (runner.progress().done[i] !== true) {
      await runner.playSolution();
      const status = runner.evaluate();
      said(`${where} after "Do it for me"`, status.results);
      if (!status.passing) throw new WanderFailure(`${where}: "Do it for me" does not finish it: ${failing(status.results)}`);
    }
    await runner.next();
  }
}

function failing(results: readonly CheckResult[]): string {
  return results
    .filter((r) => !r.ok)
    .map((r) => `${r.label} (${r.detail})`)
    .join(' | ');
}

/**
 * A machine left without power shows as off in the cluster panel, and
 * anything typed at it would wait for ever: before typing, the learner
 * switches it on and starts its servers with the panel's buttons.
 */
async function switchOnByPanel(runner: LessonRunner, host: HeadlessLessonHost): Promise<void> {
  const spec = runner.lesson.meta.world;
  for (const h of spec.hosts) {
    if (host.world.host(h.name).powered) continue;
    await host.think();
    await press(host, { kind: 'power-on', host: h.name });
    for (const s of spec.servers.filter((x) => x.host === h.name)) {
      await host.think();
      await press(host, { kind: 'start-redis', host: s.host, port: s.port });
    }
  }
  runner.evaluate();
}

async function press(host: HeadlessLessonHost, fault: Fault): Promise<void> {
  const outcome = await applyFaultWhenReady(host as unknown as WorldHost, fault);
  // A server that will not start (its files damaged) is the learner's to mend; the panel says so.
  if (!outcome.ok && fault.kind !== 'start-redis') throw new WanderFailure(`the panel's button failed: ${outcome.message}`);
  if (fault.kind === 'start-redis') host.world.runUntil(() => !(runningServer(host.world, fault.host, fault.port)?.server.stats.persistence.loading ?? false), { maxMs: 60_000 });
}

async function act(runner: LessonRunner, host: HeadlessLessonHost, step: LessonStep, w: Wander): Promise<void> {
  if (w.kind !== 'wait') await switchOnByPanel(runner, host);
  switch (w.kind) {
    case 'extra': {
      const terminals = runner.lesson.meta.world.terminals;
      if (terminals.length === 0) return;
      const t = terminals[w.terminal % terminals.length]!;
      const lines = HARMLESS[t.kind];
      await runner.runLines(t.name, [lines[w.pick % lines.length]!]);
      return;
    }
    case 'wait':
      host.world.advance(w.seconds * 1000);
      runner.evaluate();
      return;
    case 'half': {
      const entries = step.solution.slice(0, Math.min(w.entries, step.solution.length - 1));
      await playEntries(runner, host, entries);
      return;
    }
    case 'panel':
      await runBlocks(runner, host, step, true);
      return;
  }
}

/** Solution entries, as "Do it for me" plays them but stopping where told. */
async function playEntries(runner: LessonRunner, host: HeadlessLessonHost, entries: LessonStep['solution']): Promise<void> {
  const cells = runner.lesson.steps.flatMap((s) => s.blocks).filter((b) => b.kind === 'cell');
  for (const e of entries) {
    await host.think();
    if (e.kind === 'line') await runner.runLines(e.terminal, [e.line]);
    else if (e.kind === 'event') await runner.playEvents([e.line]);
    else await runCell(runner, cells.find((c) => c.kind === 'cell' && c.id === e.id));
  }
}

async function runCell(runner: LessonRunner, cell: LessonStep['blocks'][number] | undefined): Promise<void> {
  if (cell !== undefined && cell.kind === 'cell') await runner.runCell(cell.id);
}

/**
 * The step's blocks in order, as a newcomer reading the page runs them:
 * lines typed into their terminal, events played, cells run. With `panel`,
 * the events a panel button does (kill, stop, power, start) are clicks,
 * each after the time a learner takes to find the button.
 */
async function runBlocks(runner: LessonRunner, host: HeadlessLessonHost, step: LessonStep, panel: boolean): Promise<void> {
  for (const b of step.blocks) {
    await host.think();
    if (b.kind === 'run') await runner.runLines(b.terminal, b.lines);
    else if (b.kind === 'cell') await runCell(runner, b);
    else if (b.kind === 'events') {
      if (!panel) {
        await runner.playEvents(b.lines);
        continue;
      }
      for (const line of b.lines) {
        const fault = panelFault(runner, host, line);
        if (fault === null) await runner.playEvents([line]);
        else {
          await host.think();
          await press(host, fault);
          runner.evaluate();
        }
      }
    }
  }
}

/** The panel's button for an event line, or null when it has none (or nothing to act on). */
function panelFault(runner: LessonRunner, host: HeadlessLessonHost, line: string): Fault | null {
  const ev = parseEventLine(line, runner.lesson.meta.world);
  const world = host.world;
  switch (ev.verb) {
    case 'power-loss':
      return { kind: 'power-loss', host: ev.args[0]! };
    case 'power-on':
      return { kind: 'power-on', host: ev.args[0]! };
    case 'kill':
    case 'stop': {
      const { host: h, port } = parseServerRef(ev.args[0]!);
      const p = runningServer(world, h, port);
      return p === null ? null : { kind: ev.verb === 'kill' ? 'kill' : 'term', host: h, pid: p.pid };
    }
    case 'start': {
      const { host: h, port } = parseServerRef(ev.args[0]!);
      // The panel starts a server again as it was last started: one it has seen start.
      if (world.redisLaunches(h).get(port) === undefined || !world.host(h).powered) return null;
      return { kind: 'start-redis', host: h, port };
    }
    default:
      return null;
  }
}
