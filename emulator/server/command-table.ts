import type { Reply } from '../resp/reply.js';
import { asciiLower } from '../resp/bytes.js';
import type { Client } from './client.js';
import facts from './data/commands-7.0.json' with { type: 'json' };
import { LatencyHistogram } from '../numbers/latency-histogram.js';

/**
 * The command table: Redis's facts about each command (generated from a real
 * 7.0 server's COMMAND and COMMAND DOCS into data/commands-7.0.json) joined
 * with our handlers. Only commands with a handler exist for a server.
 *
 * Flags the dispatcher acts on (the names are Redis's, see COMMAND INFO):
 *   write      changes data: refused on a read-only replica, propagated
 *   readonly   only reads data
 *   denyoom    refused when over maxmemory
 *   admin      administrative; never shown to MONITOR
 *   noscript   not allowed from scripts
 *   loading    allowed while the dataset is loading
 *   stale      allowed on a replica whose link is down with stale data off
 *   fast       O(1) or O(log n): never blocks the server for long
 *   no_multi   refused inside MULTI ("Command not allowed inside a transaction")
 *   may_replicate may add to the replication stream without writing: held while writes are paused
 *   movablekeys key positions depend on the arguments
 * and two of our own: `protected` (DEBUG, refused unless enable-debug-command
 * allows it) and `txcontrol` (runs at once inside MULTI instead of queueing:
 * EXEC, DISCARD, MULTI, WATCH, QUIT, RESET). COMMAND never shows
 * may_replicate (src/server.c hides it on purpose), so it is not in the
 * generated facts: MAY_REPLICATE lists the commands whose
 * src/commands/*.json declare it.
 */
export const CMD = {
  WRITE: 1 << 0,
  READONLY: 1 << 1,
  DENYOOM: 1 << 2,
  ADMIN: 1 << 3,
  PUBSUB: 1 << 4,
  NOSCRIPT: 1 << 5,
  BLOCKING: 1 << 6,
  LOADING: 1 << 7,
  STALE: 1 << 8,
  SKIP_MONITOR: 1 << 9,
  SKIP_SLOWLOG: 1 << 10,
  FAST: 1 << 11,
  NO_AUTH: 1 << 12,
  NO_MULTI: 1 << 13,
  MOVABLE_KEYS: 1 << 14,
  ALLOW_BUSY: 1 << 15,
  NO_MANDATORY_KEYS: 1 << 16,
  NO_ASYNC_LOADING: 1 << 17,
  PROTECTED: 1 << 18,
  TX_CONTROL: 1 << 19,
  MAY_REPLICATE: 1 << 20,
} as const;

const FLAG_BY_NAME: Record<string, number> = {
  write: CMD.WRITE,
  readonly: CMD.READONLY,
  denyoom: CMD.DENYOOM,
  admin: CMD.ADMIN,
  pubsub: CMD.PUBSUB,
  noscript: CMD.NOSCRIPT,
  blocking: CMD.BLOCKING,
  loading: CMD.LOADING,
  stale: CMD.STALE,
  skip_monitor: CMD.SKIP_MONITOR,
  skip_slowlog: CMD.SKIP_SLOWLOG,
  fast: CMD.FAST,
  no_auth: CMD.NO_AUTH,
  no_multi: CMD.NO_MULTI,
  movablekeys: CMD.MOVABLE_KEYS,
  allow_busy: CMD.ALLOW_BUSY,
  no_mandatory_keys: CMD.NO_MANDATORY_KEYS,
  no_async_loading: CMD.NO_ASYNC_LOADING,
  may_replicate: CMD.MAY_REPLICATE,
};

const TX_CONTROL = new Set(['exec', 'discard', 'multi', 'watch', 'quit', 'reset']);
// The commands whose src/commands/*.json say PROTECTED: MODULE LIST and HELP are not.
const PROTECTED = new Set(['debug', 'module|load', 'module|loadex', 'module|unload']);
const MAY_REPLICATE = new Set(['eval', 'evalsha', 'fcall', 'pfcount', 'publish', 'spublish']);

export type Handler = (c: Client, argv: string[]) => Reply;

/** A RESP3-shaped tree as stored in the JSON facts. */
export type FactTree = string | number | null | FactTree[] | { s: string } | { m: FactTree[] } | { set: FactTree[] };

export interface CommandFacts {
  name: string;
  /** [name, arity, flags, firstKey, lastKey, step, aclCategories, tips, keySpecs] */
  info: FactTree[];
  /** COMMAND DOCS's group; the rest of the documentation is in docs-data.ts. */
  docs: { group: string };
  subcommands?: CommandFacts[];
}

export interface CommandSpec {
  readonly name: string;
  readonly arity: number;
  readonly flags: number;
  readonly flagNames: readonly string[];
  readonly firstKey: number;
  readonly lastKey: number;
  readonly step: number;
  readonly group: string;
  readonly facts: CommandFacts;
}

/** One command of one server, with its statistics (INFO commandstats). */
export class CommandDef implements CommandSpec {
  readonly name: string;
  readonly arity: number;
  readonly flags: number;
  readonly flagNames: readonly string[];
  readonly firstKey: number;
  readonly lastKey: number;
  readonly step: number;
  readonly group: string;
  /** Upper-case name as Redis shows it in some errors (subcommand help hints). */
  readonly upperName: string;
  subcommands: Map<string, CommandDef> | null = null;
  calls = 0;
  usec = 0;
  rejectedCalls = 0;
  failedCalls = 0;
  /**
   * The distribution of this command's durations in nanoseconds, from 1 ns
   * to 1 s with two significant digits (latency-tracking); null until the
   * first call records one (LATENCY HISTOGRAM lists only those).
   */
  latencyHistogram: LatencyHistogram | null = null;

  constructor(
    readonly facts: CommandFacts,
    readonly handler: Handler | null,
    readonly parent: CommandDef | null,
  ) {
    const info = facts.info;
    this.name = facts.name;
    this.arity = info[1] as number;
    const names = ((info[2] as { set: Array<{ s: string }> }).set ?? []).map((f) => f.s);
    this.flagNames = names;
    let flags = 0;
    for (const n of names) flags |= FLAG_BY_NAME[n] ?? 0;
    if (TX_CONTROL.has(facts.name)) flags |= CMD.TX_CONTROL;
    if (PROTECTED.has(facts.name)) flags |= CMD.PROTECTED;
    if (MAY_REPLICATE.has(facts.name)) flags |= CMD.MAY_REPLICATE;
    this.flags = flags;
    this.firstKey = info[3] as number;
    this.lastKey = info[4] as number;
    this.step = info[5] as number;
    this.group = facts.docs.group;
    this.upperName = facts.name.toUpperCase();
  }

  /** The subcommand name after the '|', or the name. */
  get shortName(): string {
    const bar = this.name.indexOf('|');
    return bar < 0 ? this.name : this.name.slice(bar + 1);
  }

  /** Counts one run of `durationUs` in the latency histogram (updateCommandLatencyHistogram). */
  recordLatency(durationUs: number): void {
    const ns = Math.min(Math.max(Math.round(durationUs * 1000), 1), 1_000_000_000);
    (this.latencyHistogram ??= new LatencyHistogram(1, 1_000_000_000, 2)).record(ns);
  }

  resetStats(): void {
    this.latencyHistogram = null;
    this.calls = 0;
    this.usec = 0;
    this.rejectedCalls = 0;
    this.failedCalls = 0;
    if (this.subcommands) for (const s of this.subcommands.values()) s.resetStats();
  }
}

const ALL_FACTS: CommandFacts[] = (facts as unknown as { commands: CommandFacts[] }).commands;
const FACTS_BY_NAME = new Map(ALL_FACTS.map((f) => [f.name, f]));

/** Redis's facts for a command by full name ("set", "config|get"), implemented or not. */
export function commandFacts(name: string): CommandFacts | undefined {
  const bar = name.indexOf('|');
  if (bar < 0) return FACTS_BY_NAME.get(name);
  return FACTS_BY_NAME.get(name.slice(0, bar))?.subcommands?.find((s) => s.name === name);
}

/**
 * A server's command table. Lookup is case-insensitive; the common spellings
 * (lower and upper case) hit directly without lowercasing.
 */
export class CommandTable {
  /** Top-level commands by lowercase name, in alphabetical order. */
  readonly commands = new Map<string, CommandDef>();
  private readonly lookupMap = new Map<string, CommandDef>();

  /** `extraFacts`: commands a server of another kind has (redis-sentinel's SENTINEL), absent from the data server's facts. */
  constructor(handlers: Readonly<Record<string, Handler>>, extraFacts: readonly CommandFacts[] = []) {
    for (const f of [...ALL_FACTS, ...extraFacts]) {
      const own = handlers[f.name] ?? null;
      const def = new CommandDef(f, own, null);
      if (f.subcommands) {
        const subs = new Map<string, CommandDef>();
        for (const sf of f.subcommands) {
          const h = handlers[sf.name];
          if (h) subs.set(sf.name.slice(sf.name.indexOf('|') + 1), new CommandDef(sf, h, def));
        }
        if (subs.size === 0) continue;
        def.subcommands = subs;
      } else if (!own) {
        continue;
      }
      this.commands.set(f.name, def);
      this.lookupMap.set(f.name, def);
      this.lookupMap.set(f.name.toUpperCase(), def);
    }
    for (const name of Object.keys(handlers)) {
      if (!commandFacts(name) && !extraFacts.some((f) => f.name === name)) throw new Error(`handler for unknown command ${name}`);
    }
  }

  /** The top-level command named `name` (any case), or undefined. */
  get(name: string): CommandDef | undefined {
    return this.lookupMap.get(name) ?? this.lookupMap.get(asciiLower(name));
  }

  /** Looks up by full name: "get", "config|get" (any case). */
  byFullName(fullName: string): CommandDef | undefined {
    const lower = asciiLower(fullName);
    const bar = lower.indexOf('|');
    if (bar < 0) return this.commands.get(lower);
    const parent = this.commands.get(lower.slice(0, bar));
    return parent?.subcommands?.get(lower.slice(bar + 1));
  }

  get count(): number {
    return this.commands.size;
  }

  /** Every command and subcommand. */
  *all(): IterableIterator<CommandDef> {
    for (const c of this.commands.values()) {
      yield c;
      if (c.subcommands) yield* c.subcommands.values();
    }
  }
}
