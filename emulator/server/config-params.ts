import { parseInt64 } from '../numbers/int64.js';
import type { RedisServer } from './server.js';

/**
 * The configuration parameters of Redis 7.0 with their defaults (the values
 * CONFIG GET shows on a fresh 7.0.15 server started without a config file),
 * types, bounds and aliases, after src/config.c.
 */
export interface ConfigParam {
  name: string;
  aliases?: string[];
  type: 'bool' | 'int' | 'memory' | 'enum' | 'string' | 'special';
  default: string;
  immutable?: boolean;
  /** Validates and canonicalizes a value: the stored string, or an error. */
  parse(value: string): string | { error: string };
  /** The numeric form of a stored value (int, memory, bool). */
  toNumber(value: string): number;
  /** Applies a new value to the running server; returns an error to refuse it. */
  apply?(server: RedisServer, value: string, old: string): string | null;
}

function boolParam(name: string, def: 'yes' | 'no', extra: Partial<ConfigParam> = {}): ConfigParam {
  return {
    name,
    type: 'bool',
    default: def,
    parse(v) {
      const l = v.toLowerCase();
      if (l === 'yes' || l === 'no') return l;
      return { error: 'argument must be \'yes\' or \'no\'' };
    },
    toNumber: (v) => (v === 'yes' ? 1 : 0),
    ...extra,
  };
}

function intParam(name: string, def: number, min: number, max: number, extra: Partial<ConfigParam> = {}): ConfigParam {
  return {
    name,
    type: 'int',
    default: String(def),
    parse(v) {
      const n = parseInt64(v);
      if (n === null) return { error: 'argument couldn\'t be parsed into an integer' };
      if (Number(n) < min || Number(n) > max) return { error: `argument must be between ${min} and ${max} inclusive` };
      return String(n);
    },
    toNumber: Number,
    ...extra,
  };
}

/** Parses "1gb", "64mb", "100" into bytes (memtoull); null when invalid. */
export function parseMemory(v: string): number | null {
  const m = /^(\d+)(b|k|kb|m|mb|g|gb)?$/i.exec(v);
  if (!m) return null;
  const mul: Record<string, number> = { b: 1, k: 1000, kb: 1024, m: 1e6, mb: 1024 ** 2, g: 1e9, gb: 1024 ** 3 };
  return Number(m[1]) * (m[2] ? mul[m[2].toLowerCase()]! : 1);
}

function memoryParam(name: string, def: number, extra: Partial<ConfigParam> = {}): ConfigParam {
  return {
    name,
    type: 'memory',
    default: String(def),
    parse(v) {
      const n = parseMemory(v);
      if (n === null) return { error: 'argument must be a memory value' };
      return String(n);
    },
    toNumber: Number,
    ...extra,
  };
}

function enumParam(name: string, def: string, values: string[], extra: Partial<ConfigParam> = {}): ConfigParam {
  return {
    name,
    type: 'enum',
    default: def,
    parse(v) {
      const l = v.toLowerCase();
      if (values.includes(l)) return l;
      return { error: `argument(s) must be one of the following: ${values.join(', ')}` };
    },
    toNumber: () => NaN,
    ...extra,
  };
}

function stringParam(name: string, def: string, extra: Partial<ConfigParam> = {}): ConfigParam {
  return { name, type: 'string', default: def, parse: (v) => v, toNumber: () => NaN, ...extra };
}

export const CONFIG_PARAMS: ConfigParam[] = [
  intParam('databases', 16, 1, 2147483647, { immutable: true }),
  intParam('hz', 10, 0, 2147483647),
  boolParam('enable-debug-command', 'no', { immutable: true, type: 'enum' }),
  stringParam('save', '3600 1 300 100 60 10000'),
  stringParam('dir', '/'),
  stringParam('dbfilename', 'dump.rdb'),
  boolParam('appendonly', 'no'),
  enumParam('appendfsync', 'everysec', ['always', 'everysec', 'no']),
  intParam('port', 6379, 0, 65535, { immutable: false }),
  intParam('hash-max-listpack-entries', 512, 0, Number.MAX_SAFE_INTEGER, { aliases: ['hash-max-ziplist-entries'] }),
  intParam('hash-max-listpack-value', 64, 0, Number.MAX_SAFE_INTEGER, { aliases: ['hash-max-ziplist-value'] }),
  intParam('set-max-intset-entries', 512, 0, Number.MAX_SAFE_INTEGER),
  intParam('zset-max-listpack-entries', 128, 0, Number.MAX_SAFE_INTEGER, { aliases: ['zset-max-ziplist-entries'] }),
  intParam('zset-max-listpack-value', 64, 0, Number.MAX_SAFE_INTEGER, { aliases: ['zset-max-ziplist-value'] }),
  intParam('list-max-listpack-size', -2, -2147483648, 2147483647, { aliases: ['list-max-ziplist-size'] }),
  intParam('list-compress-depth', 0, 0, 2147483647),
  memoryParam('maxmemory', 0),
  enumParam('maxmemory-policy', 'noeviction', ['volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl', 'allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'noeviction']),
  intParam('active-expire-effort', 1, 1, 10),
  memoryParam('proto-max-bulk-len', 512 * 1024 * 1024),
  boolParam('lazyfree-lazy-expire', 'no'),
  boolParam('lazyfree-lazy-user-del', 'no'),
  boolParam('lazyfree-lazy-user-flush', 'no'),
];
