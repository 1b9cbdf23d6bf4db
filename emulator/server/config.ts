import { globMatch } from '../keyspace/glob.js';
import type { RedisServer } from './server.js';
import { cString } from '../numbers/c-string.js';
import { CONF, CONFIG_PARAMS, splitConfigArgs, type ConfigParam } from './config-params.js';
import { asciiLower } from '../resp/bytes.js';

/**
 * One name under which a parameter is known. Redis registers an alias as a
 * separate entry of its config dictionary, so "hash-max-ziplist-entries"
 * and "hash-max-listpack-entries" are different entries for CONFIG SET's
 * duplicate check and for the name its errors quote.
 */
interface ConfigEntry {
  readonly name: string;
  readonly param: ConfigParam;
}

/**
 * Something that reacts to a parameter's new value (the AOF when appendonly
 * changes, for instance). Returns an error text to refuse the change; the
 * whole CONFIG SET is then undone and the hook is called again with the
 * restored value.
 */
export type ConfigApplyHook = (value: string, previous: string) => string | null;

/** Options of Config.setMany. */
export interface ConfigSetOptions {
  /** Startup configuration: immutable and protected parameters may be set, nothing is applied. */
  startup?: boolean;
  /** The client may change protected parameters (enable-protected-configs allows it). */
  allowProtected?: boolean;
  /** The server is loading a dataset: parameters that must not change meanwhile are refused. */
  loading?: boolean;
}

/** shared.loadingerr: configSetCommand gives it precedence over every other refusal. */
const LOADING_ERROR = '-LOADING Redis is loading the dataset in memory';

const ENTRIES: ConfigEntry[] = [];
const ENTRY_BY_NAME = new Map<string, ConfigEntry>();
for (const param of CONFIG_PARAMS) {
  for (const name of param.alias ? [param.name, param.alias] : [param.name]) {
    const e = { name, param };
    ENTRIES.push(e);
    ENTRY_BY_NAME.set(name, e);
  }
}


function lookupEntry(name: string): ConfigEntry | undefined {
  return ENTRY_BY_NAME.get(asciiLower(name));
}

/** The parameter known by a name or alias (any case). */
export function lookupParam(name: string): ConfigParam | undefined {
  return lookupEntry(name)?.param;
}

function failed(name: string, why: string): string {
  return `CONFIG SET failed (possibly related to argument '${cString(name)}') - ${why}`;
}

/**
 * A server's configuration: every parameter of Redis 7.0 (config-params.ts)
 * with its current value, CONFIG GET's matching and CONFIG SET's all-or-
 * nothing update. Values are the strings CONFIG GET shows; numeric ones are
 * also kept as numbers for the hot paths that read thresholds.
 */
export class Config {
  private readonly values = new Map<ConfigParam, string>();
  private readonly numbers = new Map<string, number>();
  private readonly hooks = new Map<ConfigParam, ConfigApplyHook[]>();

  constructor(server: RedisServer, startup: Readonly<Record<string, string>>) {
    for (const p of CONFIG_PARAMS) this.store(p, p.default);
    if (!('port' in startup)) this.store(lookupParam('port')!, String(server.port));
    const pairs = Object.entries(startup);
    if (pairs.length !== 0) {
      const err = this.setMany(pairs, { startup: true });
      if (err) throw new ConfigError(err);
    }
  }

  private store(p: ConfigParam, value: string): void {
    this.values.set(p, value);
    if (p.kind === 'numeric' || p.kind === 'bool') {
      const n = p.toNumber(value);
      this.numbers.set(p.name, n);
      if (p.alias) this.numbers.set(p.alias, n);
    }
  }

  /** The value of a parameter (by name or alias), as CONFIG GET shows it. */
  get(name: string): string {
    const p = lookupParam(name);
    if (!p) throw new Error(`no such config parameter ${name}`);
    return this.values.get(p)!;
  }

  /** The numeric value of an int, memory or bool (1/0) parameter. Fast. */
  getNumber(name: string): number {
    const v = this.numbers.get(name);
    if (v === undefined) throw new Error(`not a numeric config parameter: ${name}`);
    return v;
  }

  getBool(name: string): boolean {
    return this.getNumber(name) === 1;
  }

  /**
   * Registers a reaction to changes of a parameter made by CONFIG SET.
   * Returns a function that removes it.
   *
   *   config.onApply('appendonly', (v) => (v === 'yes' ? aof.start() : aof.stop()));
   */
  onApply(name: string, hook: ConfigApplyHook): () => void {
    const p = lookupParam(name);
    if (!p) throw new Error(`no such config parameter ${name}`);
    let list = this.hooks.get(p);
    if (!list) this.hooks.set(p, (list = []));
    list.push(hook);
    return () => {
      const i = list.indexOf(hook);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Sets one parameter; returns null or CONFIG SET's error text (without "ERR "). */
  set(name: string, value: string, startup = false): string | null {
    return this.setMany([[name, value]], { startup });
  }

  /**
   * CONFIG SET of several parameters at once, all or nothing (src/config.c
   * configSetCommand): names are checked first (unknown, immutable,
   * protected, duplicate), then every value is parsed, then the changes are
   * applied; any failure restores every old value. Returns null or the
   * error text without "ERR ".
   */
  setMany(pairs: ReadonlyArray<readonly [string, string]>, opts: ConfigSetOptions = {}): string | null {
    const startup = opts.startup === true;
    const entries: ConfigEntry[] = [];
    let unknownName: string | null = null;
    let refusal: string | null = null;
    let denyLoading = false;
    for (let i = 0; i < pairs.length; i++) {
      const name = pairs[i]![0];
      const e = lookupEntry(name);
      if (!e) {
        if (unknownName === null && refusal === null) unknownName = name;
        continue;
      }
      if (unknownName !== null || refusal !== null) continue;
      const flags = e.param.flags;
      if (!startup && (flags & CONF.IMMUTABLE || (flags & CONF.PROTECTED && !opts.allowProtected))) {
        refusal = failed(name, flags & CONF.IMMUTABLE ? "can't set immutable config" : "can't set protected config");
        continue;
      }
      if (opts.loading === true && flags & CONF.DENY_LOADING) {
        denyLoading = true;
        continue;
      }
      if (entries.includes(e)) {
        refusal = failed(name, 'duplicate parameter');
        continue;
      }
      entries[i] = e;
    }
    if (denyLoading) return LOADING_ERROR;
    if (unknownName !== null) return `Unknown option or number of arguments for CONFIG SET - '${cString(unknownName)}'`;
    if (refusal !== null) return refusal;

    const old = entries.map((e) => this.values.get(e.param)!);
    const changed: ConfigEntry[] = [];
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      const p = e.param;
      const current = this.values.get(p)!;
      const parsed = p.parse(splitConfigArgs(p, pairs[i]![1]), current);
      if (typeof parsed !== 'string') {
        this.restore(entries, old, i + 1);
        return failed(e.name, parsed.error);
      }
      if (parsed !== current || p.flags & CONF.VOLATILE) {
        this.store(p, parsed);
        if (!changed.includes(e)) changed.push(e);
      }
    }
    if (startup) return null;

    // Checks shared by several parameters run once, for the first of them.
    const ranChecks = new Set<NonNullable<ConfigParam['check']>>();
    const hooked: Array<{ e: ConfigEntry; previous: string }> = [];
    for (const e of changed) {
      const check = e.param.check;
      let err: string | null = null;
      if (check && !ranChecks.has(check)) {
        ranChecks.add(check);
        err = check(this.values.get(e.param)!, (name) => this.get(name));
      }
      if (!err) {
        const previous = old[entries.indexOf(e)]!;
        for (const hook of this.hooks.get(e.param) ?? []) {
          err = hook(this.values.get(e.param)!, previous);
          if (err) break;
        }
        hooked.push({ e, previous });
      }
      if (err) {
        const failedValues = new Map(hooked.map(({ e: h }) => [h.param, this.values.get(h.param)!]));
        this.restore(entries, old, entries.length);
        for (const { e: h } of hooked) {
          for (const hook of this.hooks.get(h.param) ?? []) hook(this.values.get(h.param)!, failedValues.get(h.param)!);
        }
        return failed(e.name, err);
      }
    }
    return null;
  }

  private restore(entries: ConfigEntry[], old: string[], count: number): void {
    for (let i = 0; i < count; i++) this.store(entries[i]!.param, old[i]!);
  }

  /**
   * CONFIG GET: the parameters matching any of the patterns, as
   * [name, value] pairs. A pattern without glob characters is an exact,
   * case-insensitive lookup that reaches hidden parameters too and answers
   * under the name as typed; a glob pattern matches every visible name and
   * alias.
   */
  match(patterns: readonly string[]): Array<[string, string]> {
    const found = new Map<string, [string, ConfigParam]>();
    for (const pattern of patterns) {
      if (!/[[*?]/.test(cString(pattern))) {
        const key = asciiLower(pattern);
        if (found.has(key)) continue;
        const e = lookupEntry(pattern);
        if (e) found.set(key, [pattern, e.param]);
        continue;
      }
      const glob = cString(pattern);
      for (const e of ENTRIES) {
        if (e.param.flags & CONF.HIDDEN || found.has(e.name)) continue;
        if (globMatch(glob, e.name, true)) found.set(e.name, [e.name, e.param]);
      }
    }
    const out: Array<[string, string]> = [];
    for (const [name, p] of found.values()) out.push([name, this.values.get(p)!]);
    return out;
  }
}

export class ConfigError extends Error {
  readonly code = 'ECONFIG';
}
