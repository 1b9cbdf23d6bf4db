import { ErrorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { Handler } from '../server/command-table.js';

/**
 * Commands whose code, with Redis's full command documentation, is kept
 * apart from the rest: those a first session seldom types, or not at its
 * first prompt (DEBUG, LOLWUT, MEMORY, OBJECT, MODULE, SORT, DUMP and RESTORE, the bit
 * commands, LCS, COMMAND DOCS,
 * LATENCY DOCTOR and GRAPH, REPLICAOF, SLAVEOF, FAILOVER, SYNC and PSYNC
 * with the code that follows a primary and serves replicas, COPY, the
 * random members and the cursors of sets and hashes, the sorted-set
 * algebra, FUNCTION and FCALL, COMMAND, the HyperLogLog commands, CONFIG
 * REWRITE, the hash, list, set and sorted-set commands, LATENCY and SLOWLOG).
 * Every server knows them (COMMAND lists them, arity and flags apply);
 * their handlers arrive when on-demand-handlers.ts is imported, which
 * registers them here. A program that may send one first makes sure of
 * that: the workbook page loads them on first use, the Node programs
 * (npm run cli and server, the tests' setup, the benchmarks) at start.
 */
export const ON_DEMAND_COMMANDS = [
  'debug',
  'memory|usage',
  'memory|stats',
  'memory|doctor',
  'memory|malloc-stats',
  'memory|purge',
  'memory|help',
  'object|encoding',
  'object|refcount',
  'object|idletime',
  'object|freq',
  'object|help',
  'sort',
  'sort_ro',
  'dump',
  'restore',
  'restore-asking',
  'module|list',
  'module|load',
  'module|loadex',
  'module|unload',
  'module|help',
  'lolwut',
  'setbit',
  'getbit',
  'bitcount',
  'bitpos',
  'bitop',
  'bitfield',
  'bitfield_ro',
  'lcs',
  'pfadd',
  'pfcount',
  'pfmerge',
  'pfdebug',
  'pfselftest',
  'command|docs',
  'latency|doctor',
  'latency|graph',
  'replicaof',
  'slaveof',
  'failover',
  'sync',
  'psync',
  'copy',
  'spop',
  'srandmember',
  'sscan',
  'hrandfield',
  'hscan',
  'zrandmember',
  'zunion',
  'zinter',
  'zdiff',
  'zunionstore',
  'zinterstore',
  'zdiffstore',
  'zintercard',
  'function|load',
  'function|delete',
  'function|flush',
  'function|list',
  'function|dump',
  'function|restore',
  'function|stats',
  'function|kill',
  'function|help',
  'fcall',
  'fcall_ro',
  'command',
  'command|count',
  'command|info',
  'command|list',
  'command|getkeys',
  'command|getkeysandflags',
  'command|help',
  'config|rewrite',
  'zadd', 'zincrby', 'zrem', 'zremrangebyrank', 'zremrangebyscore', 'zremrangebylex', 'zcard', 'zscore', 'zmscore',
  'zrank', 'zrevrank', 'zcount', 'zlexcount', 'zscan', 'zrange', 'zrangestore', 'zrevrange', 'zrangebyscore',
  'zrevrangebyscore', 'zrangebylex', 'zrevrangebylex', 'zpopmin', 'zpopmax', 'zmpop',
  'bzpopmin', 'bzpopmax', 'bzmpop',
  'hset', 'hmset', 'hsetnx', 'hget', 'hmget', 'hdel', 'hlen', 'hstrlen', 'hexists', 'hkeys', 'hvals', 'hgetall',
  'hincrby', 'hincrbyfloat',
  'lpush', 'rpush', 'lpushx', 'rpushx', 'lpop', 'rpop', 'llen', 'lrange', 'lindex', 'lset', 'linsert', 'lrem',
  'ltrim', 'lpos', 'lmove', 'rpoplpush', 'lmpop',
  'sadd', 'srem', 'smove', 'sismember', 'smismember', 'scard', 'smembers', 'sinter', 'sintercard', 'sinterstore',
  'sunion', 'sunionstore', 'sdiff', 'sdiffstore',
  'blpop', 'brpop', 'blmpop', 'blmove', 'brpoplpush',
  'latency|latest', 'latency|history', 'latency|reset', 'latency|histogram', 'latency|help',
  'slowlog|get', 'slowlog|len', 'slowlog|reset', 'slowlog|help',
] as const;

let registered: Readonly<Record<string, Handler>> | null = null;

/** Called by on-demand-handlers.ts when it loads. */
export function registerOnDemandHandlers(handlers: Readonly<Record<string, Handler>>): void {
  registered = handlers;
}

/** Whether the handlers are there. */
export function onDemandHandlersLoaded(): boolean {
  return registered !== null;
}

/** Whether `argv` is a command whose code is kept apart ("SORT", "memory usage", "COMMAND DOCS"). */
export function isOnDemandCommand(argv: readonly string[]): boolean {
  const name = argv[0]?.toLowerCase();
  if (name === undefined) return false;
  if (ON_DEMAND_BASES.has(name)) return true;
  const sub = argv[1]?.toLowerCase();
  return sub !== undefined && ON_DEMAND_NAMES.has(`${name}|${sub}`);
}

const ON_DEMAND_NAMES: ReadonlySet<string> = new Set(ON_DEMAND_COMMANDS);
const ON_DEMAND_BASES: ReadonlySet<string> = new Set(ON_DEMAND_COMMANDS.filter((n) => !n.includes('|')));

/**
 * A command whose code has not arrived is refused with an error that
 * says so: nothing in the server changes, and the command can be sent
 * again once it has.
 */
function notLoaded(name: string): Reply {
  return new ErrorReply(`ERR the code of '${name}' is not loaded yet, try again`);
}

/** The table's entries for the commands kept apart: each calls its handler once registered. */
export const ON_DEMAND_ENTRIES: Readonly<Record<string, Handler>> = Object.fromEntries(
  ON_DEMAND_COMMANDS.map((name) => [name, (c: Client, argv: string[]): Reply => (registered?.[name] ?? ((): Reply => notLoaded(name)))(c, argv)]),
);
