import { globMatch } from '../keyspace/glob.js';
import type { RedisServer } from './server.js';
import { CONFIG_PARAMS, type ConfigParam } from './config-params.js';

/**
 * A server's configuration: the parameters of Redis 7.0 (config-params.ts)
 * with their current values, CONFIG GET's glob matching and CONFIG SET's
 * validation. Values are kept as the strings CONFIG GET shows.
 */
export class Config {
  private readonly values = new Map<string, string>();
  private readonly numbers = new Map<string, number>();

  constructor(
    private readonly server: RedisServer,
    startup: Readonly<Record<string, string>>,
  ) {
    for (const p of CONFIG_PARAMS) this.store(p, p.default);
    for (const [name, value] of Object.entries(startup)) {
      const err = this.set(name, value, true);
      if (err) throw new ConfigError(err);
    }
  }

  private store(p: ConfigParam, value: string): void {
    this.values.set(p.name, value);
    if (p.type === 'int' || p.type === 'memory' || p.type === 'bool') this.numbers.set(p.name, p.toNumber(value));
  }

  /** The canonical value of a parameter (by name or alias). */
  get(name: string): string {
    const p = lookupParam(name);
    if (!p) throw new Error(`no such config parameter ${name}`);
    return this.values.get(p.name)!;
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
   * Sets a parameter; returns null or the error text CONFIG SET would give.
   * `startup` allows immutable parameters (command line, config file).
   */
  set(name: string, value: string, startup = false): string | null {
    const p = lookupParam(name);
    if (!p) return `Unknown option or number of arguments for CONFIG SET - '${name}'`;
    if (p.immutable && !startup) return `CONFIG SET failed (possibly related to argument '${name}') - can't set immutable config`;
    const parsed = p.parse(value);
    if (typeof parsed !== 'string' || parsed === undefined) {
      return `CONFIG SET failed (possibly related to argument '${name}') - ${parsed.error}`;
    }
    const old = this.values.get(p.name)!;
    this.store(p, parsed);
    const applyErr = p.apply?.(this.server, parsed, old) ?? null;
    if (applyErr) {
      this.store(p, old);
      return `CONFIG SET failed (possibly related to argument '${name}') - ${applyErr}`;
    }
    return null;
  }

  /** CONFIG GET: the parameters (and aliases) matching any of the patterns, as name/value pairs. */
  match(patterns: readonly string[]): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    const seen = new Set<string>();
    for (const p of CONFIG_PARAMS) {
      for (const name of [p.name, ...(p.aliases ?? [])]) {
        if (seen.has(name)) continue;
        for (const pat of patterns) {
          const exact = !/[*?[\\]/.test(pat);
          if (exact ? pat.toLowerCase() === name : globMatch(pat, name, true)) {
            seen.add(name);
            out.push([name, this.values.get(p.name)!]);
            break;
          }
        }
      }
    }
    return out;
  }
}

export class ConfigError extends Error {
  readonly code = 'ECONFIG';
}

const PARAMS_BY_NAME = new Map<string, ConfigParam>();
for (const p of CONFIG_PARAMS) {
  PARAMS_BY_NAME.set(p.name, p);
  for (const a of p.aliases ?? []) PARAMS_BY_NAME.set(a, p);
}

export function lookupParam(name: string): ConfigParam | undefined {
  return PARAMS_BY_NAME.get(name.toLowerCase());
}
