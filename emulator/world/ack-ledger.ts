import { commandFacts } from '../server/command-table.js';
import type { TraceEntry } from '../sim/trace.js';
import type { World } from './world.js';

/**
 * The acknowledged-writes ledger: every reply a client of the world got
 * that acknowledged a write (an OK to SET, an integer to INCR ...; for
 * redis-cli, the reply it printed), with the virtual time, the server
 * that answered and its role and replication offset then; and a timeline of what happened to the servers
 * (partitions, heals, kills, power, promotions and demotions). Checked
 * against the data that survived a failover, it says which acknowledged
 * writes were lost, and explains each by the timeline:
 *
 *   const ledger = new AckLedger(world);
 *   ... a partition, writes to the old primary, a failover, the heal ...
 *   const v = ledger.verdict('B');
 *   v.summary   // ['14 writes acknowledged by A after the partition at 10.0 s were lost.']
 *
 * It is read from the world's trace (the 'ack' and 'role' entries of
 * ack-trace.ts and the partitions, power and exits), from the world's
 * beginning whenever it is opened, so a world restored from a checkpoint
 * gives the same verdict. Reading changes nothing in the world; it is
 * kept apart from world.ts so that a page that never shows it does not
 * load it.
 */

export interface Acknowledged {
  /** Order of acknowledgement, from 1. */
  readonly seq: number;
  /** Virtual time the reply arrived (us since the world began). */
  readonly atUs: number;
  /** The server that answered, 'host:port'. */
  readonly server: string;
  readonly host: string;
  /** The server's role and replication offset when the reply arrived. */
  readonly role: 'master' | 'replica' | 'gone';
  readonly offset: number;
  /** The command as sent ('SET order:3 3'), its key, and the reply ('OK', '7'). */
  readonly command: string;
  readonly key: string;
  readonly reply: string;
  /** How its survival is judged: the value it left, a counter's value after it, or not at all. */
  readonly judge: { readonly kind: 'value'; readonly value: string } | { readonly kind: 'counter'; readonly value: number; readonly up: boolean } | { readonly kind: 'none' };
}

export type TimelineEvent =
  | { readonly atUs: number; readonly kind: 'partition'; readonly a: string; readonly b: string }
  | { readonly atUs: number; readonly kind: 'heal'; readonly a?: string; readonly b?: string }
  | { readonly atUs: number; readonly kind: 'down'; readonly host: string; readonly how: 'killed' | 'power lost' | 'stopped' }
  | { readonly atUs: number; readonly kind: 'power-on'; readonly host: string }
  | { readonly atUs: number; readonly kind: 'role'; readonly host: string; readonly server: string; readonly role: 'master' | 'replica'; readonly of: string | null };

export interface Loss {
  readonly write: Acknowledged;
  /** Why it was lost, in plain sentences about the world; null when the timeline does not explain it. */
  readonly explanation: string | null;
  /** What the explanation rests on: the event that isolated or ended the server, and its demotion. */
  readonly cause: 'partition' | 'crash' | null;
}

export interface Verdict {
  /** The host whose data was checked. */
  readonly survivor: string;
  readonly acknowledged: number;
  readonly judged: number;
  readonly lost: Loss[];
  /** One sentence per server and cause: "14 writes acknowledged by A after the partition at 10.0 s were lost." */
  readonly summary: string[];
}

/** Write commands whose survival is judged, and how. */
const COUNTERS: Record<string, boolean> = { incr: true, incrby: true, incrbyfloat: true, decr: false, decrby: false };
const SETTERS: Record<string, number> = { set: 2, setnx: 2, getset: 2, setex: 3, psetex: 3 };

export class AckLedger {
  readonly acknowledged: Acknowledged[] = [];
  readonly timeline: TimelineEvent[] = [];
  /** Each server's last known role, to see it change ('host:port' -> 'master' | 'replica of ...'). */
  private readonly roles = new Map<string, string>();
  private readonly stop: () => void;

  constructor(readonly world: World) {
    // The trace, not the world's objects: partitions and kills typed in a host's shell, and the acknowledgements
    // of every client (a redis-cli in a shell too), are trace entries; the world keeps every one of these kinds,
    // so a ledger opened late, or over a world restored from a checkpoint, reads the same history.
    for (const e of world.trace.kept) this.traced(e);
    this.stop = world.trace.subscribe((e) => this.traced(e));
  }

  /** Stops listening. */
  close(): void {
    this.stop();
  }

  /** What the ledger keeps of the trace: acknowledgements, partitions, heals, power, redis-servers ending, and role changes. */
  private traced(e: TraceEntry): void {
    const atUs = e.t;
    if (e.kind === 'ack') this.acked(e);
    else if (e.kind === 'role') this.role(e);
    else if (e.source === 'net' && (e.kind === 'partition' || e.kind === 'heal')) {
      const m = /^(\S+) (?:<->|->) (\S+)$/.exec(e.text);
      if (m !== null) this.timeline.push({ atUs, kind: e.kind, a: m[1]!, b: m[2]! });
    } else if (e.kind === 'power-loss') this.down(atUs, e.source, 'power lost');
    else if (e.kind === 'boot') this.timeline.push({ atUs, kind: 'power-on', host: e.source });
    else if (e.kind === 'exit') {
      // host.ts: "<pid> <name> <how> <code>"; a power cut is noted above.
      const m = /^\d+ redis-server (\S+) /.exec(e.text);
      if (m !== null && m[1] !== 'power-loss') this.down(atUs, e.source, m[1] === 'killed' ? 'killed' : 'stopped');
    }
  }

  /**
   * A host's redis-server ended. Its role is forgotten, so that the role it
   * starts with again is a change in the timeline: a server killed as a
   * primary and started again as one is a primary anew, beside any
   * promoted while it was down.
   */
  private down(atUs: number, host: string, how: 'killed' | 'power lost' | 'stopped'): void {
    this.timeline.push({ atUs, kind: 'down', host, how });
    for (const server of this.roles.keys()) if (server.startsWith(`${host}:`)) this.roles.set(server, 'down');
  }

  /** A role entry (RedisProcess): "6379 master" or "6379 replica of 10.0.0.2:6379". */
  private role(e: TraceEntry): void {
    const m = /^(\d+) (master|replica of (\S+):(\d+))$/.exec(e.text);
    if (m === null) return;
    const server = `${e.source}:${m[1]}`;
    const of = m[3] === undefined ? null : `${this.world.network.resolve(e.source, m[3]) ?? m[3]}:${m[4]}`;
    const key = of === null ? 'master' : `replica of ${of}`;
    if (this.roles.get(server) === key) return;
    const first = !this.roles.has(server);
    this.roles.set(server, key);
    if (!first) this.timeline.push({ atUs: e.t, kind: 'role', host: e.source, server, role: of === null ? 'master' : 'replica', of });
  }

  /** An acknowledgement (ack-trace.ts): 'A:6379 master 1234 "OK" ["SET","k","v"]'. */
  private acked(e: TraceEntry): void {
    const m = /^(\S+) (master|replica|gone) (\d+) ("(?:[^"\\]|\\.)*") (\[.*\])$/s.exec(e.text);
    if (m === null) return;
    const argv = JSON.parse(m[5]!) as string[];
    const text = JSON.parse(m[4]!) as string;
    const facts = commandFacts(argv[0]!.toLowerCase());
    if (facts === undefined) return;
    const name = facts.name;
    const firstKey = facts.info[3] as number;
    let judge: Acknowledged['judge'] = { kind: 'none' };
    if (name in COUNTERS && Number.isFinite(Number(text))) judge = { kind: 'counter', value: Number(text), up: COUNTERS[name]! };
    else if (name in SETTERS && argv.length > SETTERS[name]! && !(name === 'setnx' && text === '0')) judge = { kind: 'value', value: argv[SETTERS[name]!]! };
    const server = m[1]!;
    this.acknowledged.push({
      seq: this.acknowledged.length + 1,
      atUs: e.t,
      server,
      host: server.slice(0, server.indexOf(':')),
      role: m[2] as Acknowledged['role'],
      offset: Number(m[3]),
      command: [argv[0]!.toUpperCase(), ...argv.slice(1)].map(shortArg).join(' '),
      key: argv[firstKey]!,
      reply: text,
      judge,
    });
  }

  /**
   * Checks every acknowledged write against the data on `survivor` (a
   * host; its redis-server on `port`): which were lost, each explained by
   * the timeline. With `sinceUs` (us since the world began), only the
   * writes acknowledged from then on are counted and judged, against
   * every write before them (a lesson's step judges its own writes).
   */
  verdict(survivor: string, port = 6379, opts: { sinceUs?: number } = {}): Verdict {
    const sinceUs = opts.sinceUs ?? 0;
    const p = this.world.redis(survivor, port);
    if (p === undefined) throw new Error(`no redis-server runs on ${survivor}:${port}`);
    const db = p.server.dbs[0]!;
    const now = (key: string): string | null => {
      const v = db.lookupNoTouch(key);
      // Told apart by its type, not instanceof: importing the keyspace's values here splits the page's first chunks.
      return typeof v === 'string' ? v : v?.type === 'string' ? v.s : null;
    };
    const lost: Acknowledged[] = [];
    const byKey = new Map<string, Acknowledged[]>();
    for (const w of this.acknowledged) {
      if (w.judge.kind === 'none') continue;
      let list = byKey.get(w.key);
      if (list === undefined) byKey.set(w.key, (list = []));
      list.push(w);
    }
    let judged = 0;
    for (const [key, writes] of byKey) {
      judged += writes.filter((w) => w.atUs >= sinceUs).length;
      const value = now(key);
      // The newest write whose value is the one that survived: those after it are lost, those before it were overwritten.
      let anchor = -1;
      for (let i = writes.length - 1; i >= 0; i--) {
        const j = writes[i]!.judge;
        if (j.kind === 'value' && j.value === value) {
          anchor = i;
          break;
        }
      }
      for (let i = 0; i < writes.length; i++) {
        const w = writes[i]!;
        const j = w.judge;
        if (j.kind === 'counter') {
          const n = value === null ? 0 : Number(value);
          if (j.up ? n < j.value : n > j.value) lost.push(w);
        } else if (j.kind === 'value' && i > anchor) lost.push(w);
      }
    }
    const since = lost.filter((w) => w.atUs >= sinceUs).sort((a, b) => a.seq - b.seq);
    const losses = since.map((w) => this.explain(w, survivor));
    const acknowledged = this.acknowledged.filter((w) => w.atUs >= sinceUs).length;
    return { survivor, acknowledged, judged, lost: losses, summary: summarize(losses) };
  }

  /** Why a write acknowledged by a server is not in the data that survived, from the timeline. */
  private explain(w: Acknowledged, survivor: string): Loss {
    const host = w.host;
    const involves = (e: TimelineEvent): boolean => (e.kind === 'partition' ? e.a === host || e.b === host : e.kind === 'heal' ? e.a === undefined || e.a === host || e.b === host : 'host' in e && e.host === host);
    // The partitions that cut the server off when it acknowledged the write (those not healed since).
    const cutsAt = (atUs: number): Array<Extract<TimelineEvent, { kind: 'partition' }>> => {
      const cuts: Array<Extract<TimelineEvent, { kind: 'partition' }>> = [];
      for (const e of this.timeline) {
        if (e.atUs > atUs) break;
        if (e.kind === 'partition' && involves(e)) cuts.push(e);
        else if (e.kind === 'heal') cuts.splice(0, cuts.length, ...cuts.filter((c) => !heals(e, c)));
      }
      return cuts;
    };
    const cutOff = (cuts: ReadonlyArray<Extract<TimelineEvent, { kind: 'partition' }>>): string => `the partition at ${seconds(cuts[0]!.atUs)} cut ${host} off from ${[...new Set(cuts.map((c) => (c.a === host ? c.b : c.a)))].join(', ')}`;
    const cuts = cutsAt(w.atUs);
    const after = this.timeline.filter((e) => e.atUs >= w.atUs && involves(e));
    const demoted = after.find((e): e is Extract<TimelineEvent, { kind: 'role' }> => e.kind === 'role' && e.role === 'replica');
    const down = after.find((e): e is Extract<TimelineEvent, { kind: 'down' }> => e.kind === 'down');
    const end = demoted !== undefined ? `${host} was demoted at ${seconds(demoted.atUs)} (it became a replica of ${demoted.of!.split(':')[0]}) and its data was replaced by ${survivor}'s` : null;
    const what = `${w.command} was acknowledged by ${host} at ${seconds(w.atUs)}`;
    if (cuts.length !== 0 && end !== null) return { write: w, cause: 'partition', explanation: `${what}, after ${cutOff(cuts)}; ${end}.` };
    if (down !== undefined && (end !== null || host !== survivor)) {
      return { write: w, cause: 'crash', explanation: `${what}, at offset ${w.offset}; ${host} was ${down.how} at ${seconds(down.atUs)} before its replicas had it${end === null ? '' : `; later ${end}`}.` };
    }
    // Two primaries at once: the sentinels promoted another server while this one was cut off or down, and
    // it took writes as a primary again (the partition healed, or it restarted) until it was demoted.
    const rival = this.rivalPrimary(host, w.atUs);
    if (rival !== null && end !== null) {
      // What cut this server off or ended it last before the promotion (the partition may have healed since).
      const why = this.timeline.filter((e): e is Extract<TimelineEvent, { kind: 'partition' | 'down' }> => e.atUs <= rival.atUs && involves(e) && (e.kind === 'partition' || e.kind === 'down')).pop();
      const promoted = `${what}, while ${rival.host} was a primary too: it was promoted at ${seconds(rival.atUs)}, after`;
      if (why?.kind === 'partition') return { write: w, cause: 'partition', explanation: `${promoted} ${cutOff(this.timeline.filter((e): e is Extract<TimelineEvent, { kind: 'partition' }> => e.kind === 'partition' && e.atUs === why.atUs && involves(e)))}; ${end}.` };
      if (why?.kind === 'down') return { write: w, cause: 'crash', explanation: `${promoted} ${host} was ${why.how} at ${seconds(why.atUs)}; ${end}.` };
    }
    return { write: w, cause: null, explanation: null };
  }

  /** Another server that was a primary at `atUs`, promoted while `host` was one (the earliest promotion still in force then). */
  private rivalPrimary(host: string, atUs: number): Extract<TimelineEvent, { kind: 'role' }> | null {
    const rivals = new Map<string, Extract<TimelineEvent, { kind: 'role' }>>();
    for (const e of this.timeline) {
      if (e.atUs > atUs) break;
      if (e.kind === 'role' && e.host !== host && e.role === 'master') rivals.set(e.host, e);
      else if ((e.kind === 'role' && e.role === 'replica') || e.kind === 'down') rivals.delete(e.host);
    }
    return [...rivals.values()].sort((a, b) => a.atUs - b.atUs)[0] ?? null;
  }
}

/** Whether a heal ends a partition: heal() ends all, heal(a) those of a, heal(a, b) the one between a and b (Network.heal). */
function heals(h: { a?: string; b?: string }, c: { a: string; b: string }): boolean {
  if (h.a === undefined) return true;
  if (h.b === undefined) return c.a === h.a || c.b === h.a;
  return (c.a === h.a && c.b === h.b) || (c.a === h.b && c.b === h.a);
}

/** One sentence per server and cause, in order of the first loss. */
function summarize(losses: readonly Loss[]): string[] {
  const groups = new Map<string, { n: number; host: string; cause: Loss['cause']; sinceUs: number }>();
  for (const l of losses) {
    const k = `${l.write.host} ${l.cause}`;
    const g = groups.get(k);
    if (g === undefined) groups.set(k, { n: 1, host: l.write.host, cause: l.cause, sinceUs: l.write.atUs });
    else g.n++;
  }
  return [...groups.values()].map((g) => {
    const writes = g.n === 1 ? '1 write' : `${g.n} writes`;
    const were = g.n === 1 ? 'was' : 'were';
    if (g.cause === 'partition') return `${writes} acknowledged by ${g.host} after the partition ${were} lost.`;
    if (g.cause === 'crash') return `${writes} acknowledged by ${g.host} before it went down ${were} lost.`;
    return `${writes} acknowledged by ${g.host} ${were} lost, and nothing in the timeline explains why.`;
  });
}

/** An argument as the ledger shows it: long ones cut. */
function shortArg(a: string): string {
  return a.length > 40 ? `${a.slice(0, 37)}...` : a;
}

/** Virtual seconds with one decimal: "12.4 s". */
function seconds(us: number): string {
  return `${(us / 1e6).toFixed(1)} s`;
}
