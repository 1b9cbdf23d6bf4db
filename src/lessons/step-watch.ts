import { z } from 'zod';
import { commandKeys } from '../../emulator/index.js';
import { RedisProcess } from '../../emulator/process/index.js';
import type { TraceEntry } from '../../emulator/sim/trace.js';
import type { World } from '../../emulator/world/world.js';
import { traceMatcher } from './trace-match.js';
import { moment, parseServerRef, serverKey, type Check, type Moment } from './schema.js';

/**
 * What a step has seen happen since it began, kept as it happens so that
 * checks can judge the effect a step teaches relative to the step itself:
 *
 * - moments: the instants a server died (power cut, kill -9, shutdown) or
 *   forked, with what the step's checks read at that instant, before the
 *   process's memory was gone ("the vote was 532 when the power went
 *   out"); `at`, `kept` and `lost` compare with them;
 * - hits: when each time-relative check (happened, ran, command, a key
 *   written) matched something, so counts survive however long the step
 *   runs and however much the world's trace has dropped since.
 *
 * Plain JSON, saved with the learner's progress, so a reload finds the
 * step as it left it. Reading the world here never changes it.
 */
export const stepSeen = z.strictObject({
  moments: z.array(
    z.strictObject({
      /** Microseconds since the world began (the trace's clock). */
      t: z.number(),
      /** The server, "A:6379". */
      server: z.string(),
      /** Every moment this instant is: a power cut is also a crash and a stop. */
      moments: z.array(moment),
      /** By the check's index in its step: what it read then. */
      seen: z.record(z.string(), z.strictObject({ ok: z.boolean(), detail: z.string(), value: z.string().nullable() })),
    }),
  ),
  /** By the check's index in its step: the times it matched, oldest first (the newest MAX_HITS). */
  hits: z.record(z.string(), z.array(z.number())),
  /** The lesson's servers running when the step began ("A:6379"): what "Do it for me" starts again first. */
  running: z.array(z.string()).default([]),
});

export type StepSeen = z.infer<typeof stepSeen>;
export type MomentRecord = StepSeen['moments'][number];

/** What a check read at a moment: its verdict and words, and for a key its value (null: no such key). */
export interface SeenAtMoment {
  readonly ok: boolean;
  readonly detail: string;
  readonly value: string | null;
}

/** Hits kept per check: a count asked of a step never comes near it. */
const MAX_HITS = 2000;
/** Moments kept per step. */
const MAX_MOMENTS = 50;

export function emptySeen(): StepSeen {
  return { moments: [], hits: {}, running: [] };
}

/**
 * Follows one world for the current step of a lesson.
 *
 *   const watch = new StepWatch(() => step.checks, (check, i, proc) => observeAt(check, proc));
 *   watch.follow(world);     // after every change of world
 *   watch.begin();           // a new step
 *   watch.seen;              // JSON for the progress
 */
export class StepWatch {
  private world: World | null = null;
  private unsubscribe: Array<() => void> = [];
  /** Redis processes alive, by "host/pid", so their state can be read as they exit. */
  private readonly processes = new Map<string, RedisProcess>();
  private state: StepSeen = emptySeen();
  private matchers: Array<((e: TraceEntry) => boolean) | null> = [];
  private checksSeen: readonly Check[] | null = null;

  constructor(
    private readonly checks: () => readonly Check[],
    /** Reads a check as the world is now, but with `proc` as its server even though it is dying. */
    private readonly observeAt: (check: Check, proc: RedisProcess) => SeenAtMoment,
    private readonly onChange: () => void = () => {},
  ) {}

  get seen(): StepSeen {
    return this.state;
  }

  /** A new step begins: nothing seen yet, and these servers running. */
  begin(running: readonly string[] = []): void {
    this.state = { ...emptySeen(), running: [...running] };
  }

  /**
   * Takes back what a step had seen (saved progress), over a world that
   * may have been rewound since: what lies in its future is dropped.
   */
  restore(seen: StepSeen, nowUs: number): void {
    this.state = prune(structuredClone(seen), nowUs);
  }

  /** Watches this world (a no-op when it is the one watched already); a world rewound drops what lies ahead of it. */
  follow(world: World): void {
    if (world === this.world) return;
    this.detach();
    this.world = world;
    const k = world.kernel;
    this.state = prune(this.state, k.now - k.startUs);
    for (const [name, host] of world.hosts) for (const p of host.processes.values()) if (p instanceof RedisProcess) this.adopt(name, p);
    this.unsubscribe.push(world.trace.subscribe((e) => this.entry(e)));
  }

  detach(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    this.processes.clear();
    this.world = null;
  }

  /** The times check `index` of the step has matched so far. */
  hits(index: number): readonly number[] {
    return this.state.hits[index] ?? [];
  }

  /** The last instant of this step that was `m` for `server` ("A:6379"), or null. */
  moment(m: Moment, server: string): MomentRecord | null {
    const ms = this.state.moments;
    for (let i = ms.length - 1; i >= 0; i--) if (ms[i]!.server === server && ms[i]!.moments.includes(m)) return ms[i]!;
    return null;
  }

  private matchersFor(checks: readonly Check[]): Array<((e: TraceEntry) => boolean) | null> {
    if (checks !== this.checksSeen) {
      this.checksSeen = checks;
      this.matchers = checks.map((c) => traceMatcher(c));
    }
    return this.matchers;
  }

  private entry(e: TraceEntry): void {
    const world = this.world!;
    const checks = this.checks();
    let changed = false;
    const matchers = this.matchersFor(checks);
    for (let i = 0; i < matchers.length; i++) {
      if (matchers[i]?.(e)) {
        this.hit(i, e.t);
        changed = true;
      }
    }
    if (e.kind === 'spawn') {
      const pid = Number(/^\d+/.exec(e.text)?.[0]);
      const p = world.hosts.get(e.source)?.process(pid);
      if (p instanceof RedisProcess) this.adopt(e.source, p);
      const fork = /^\d+ redis-(?:rdb-bgsave|aof-rewrite|rdb-to-slaves) \*:(\d+)/.exec(e.text);
      if (fork !== null) {
        const parent = [...this.processes.values()].find((q) => q.host.name === e.source && q.port === Number(fork[1]) && q.alive);
        if (parent !== undefined) changed = this.capture(e.t, parent, ['fork'], checks) || changed;
      }
    } else if (e.kind === 'exit') {
      const m = /^(\d+) redis-server (killed|exited|power-loss) /.exec(e.text);
      const p = m === null ? undefined : this.processes.get(`${e.source}/${m[1]}`);
      if (p !== undefined) {
        this.processes.delete(`${e.source}/${m![1]}`);
        const how = m![2];
        const moments: Moment[] = how === 'killed' ? ['kill', 'crash', 'stop'] : how === 'power-loss' ? ['power-loss', 'crash', 'stop'] : ['stop'];
        changed = this.capture(e.t, p, moments, checks) || changed;
      }
    }
    if (changed) this.onChange();
  }

  private hit(index: number, t: number): void {
    const list = (this.state.hits[index] ??= []);
    list.push(t);
    if (list.length > MAX_HITS) list.splice(0, list.length - MAX_HITS);
  }

  /** A redis-server to read when it dies, and whose writes `written` checks follow. */
  private adopt(host: string, p: RedisProcess): void {
    const id = `${host}/${p.pid}`;
    if (this.processes.has(id)) return;
    this.processes.set(id, p);
    const server = `${host}:${p.port}`;
    this.unsubscribe.push(
      p.server.onPropagate((db, argv) => {
        const checks = this.checks();
        let changed = false;
        for (let i = 0; i < checks.length; i++) {
          const c = checks[i]!;
          if (c.kind !== 'key' || c.written !== true || c.db !== db || serverKey(c.on) !== server) continue;
          const def = p.server.commands.get(argv[0]!);
          if (def === undefined) continue;
          if (commandKeys(def, argv).some((k) => argv[k.pos] === c.key)) {
            const k = this.world!.kernel;
            this.hit(i, k.now - k.startUs);
            changed = true;
          }
        }
        if (changed) this.onChange();
      }),
    );
  }

  /** Reads the step's checks that look back to one of `moments` on this server, as it is at this instant. */
  private capture(t: number, p: RedisProcess, moments: Moment[], checks: readonly Check[]): boolean {
    const server = `${p.host.name}:${p.port}`;
    const seen: MomentRecord['seen'] = {};
    checks.forEach((c, i) => {
      const wants = momentsOf(c);
      if (wants.length === 0 || !wants.some((m) => moments.includes(m))) return;
      if (checkServer(c) !== server && checkServer(c) !== p.host.name) return;
      seen[i] = this.observeAt(c, p);
    });
    this.state.moments.push({ t, server, moments, seen });
    if (this.state.moments.length > MAX_MOMENTS) this.state.moments.splice(0, this.state.moments.length - MAX_MOMENTS);
    return true;
  }
}

/** The moments a check looks back to. */
export function momentsOf(c: Check): Moment[] {
  const out: Moment[] = [];
  if ('at' in c && c.at !== undefined) out.push(c.at);
  if (c.kind === 'key') {
    if (c.kept !== undefined) out.push(c.kept);
    if (c.lost !== undefined) out.push(c.lost);
  }
  return out;
}

/** The server a check reads ("A:6379"), or the host of a file. */
export function checkServer(c: Check): string | null {
  switch (c.kind) {
    case 'key':
    case 'info':
    case 'config':
      return serverKey(c.on);
    case 'dbsize':
      return serverKey(c.dbsize);
    case 'server':
      return serverKey(c.server);
    case 'file':
      return c.on;
    case 'host':
      return c.host;
    default:
      return null;
  }
}

/** The host a server reference names. */
export function hostOf(ref: string): string {
  return parseServerRef(ref).host;
}

function prune(seen: StepSeen, nowUs: number): StepSeen {
  seen.moments = seen.moments.filter((m) => m.t <= nowUs);
  for (const k of Object.keys(seen.hits)) seen.hits[k] = seen.hits[k]!.filter((t) => t <= nowUs);
  return seen;
}
