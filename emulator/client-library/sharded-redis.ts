import { commandKeys } from '../commands/command-keys.js';
import { CommandDef, commandFacts } from '../server/command-table.js';
import { asciiLower } from '../resp/bytes.js';
import { execFlight, Pipeline, type PipelineResult, type Redis } from './redis.js';
import { keySlot, shardOfSlot } from './key-slot.js';
import { argToBytes, type Arg, type ClientValue } from './values.js';
import type { CommandName } from './command-names.js';
import { addCommandMethods } from './command-methods.js';

/**
 * A client over several independent Redis servers, each a primary with
 * replicas, that places every key on one of them by itself (client-side
 * sharding, as Seven Databases' day 2 does with its hash ring):
 *
 *   const r = connectSharded(world, { from: 'app', shards: [
 *     { primary: { host: 'A', port: 6379 }, replicas: [{ host: 'A1', port: 6379 }] },
 *     { primary: { host: 'B', port: 6379 } },
 *   ] });
 *   await r.set('{user:1}:name', 'Ann');        // on the shard of "user:1"
 *   await r.multi().set('{user:1}:name', 'A').incr('{user:1}:visits').exec();   // one shard: works
 *   await r.multi().set('a', 1).set('b', 2).exec();   // two shards: CrossShardError
 *
 * Placement follows Redis Cluster's rule rather than the book's consistent
 * hashing ring: CRC16 of the key modulo 16384 slots (hashing only what is
 * between `{` and `}` when there is something there), the slots split into
 * equal contiguous ranges, one per shard (key-slot.ts). That way the hash
 * tags mean exactly what they mean to Redis Cluster and to its clients,
 * and the same keys would land together there too. Its cost is the one a
 * fixed split always has: adding a shard moves about half the keys of
 * each existing one, where a ring moves only the new shard's share.
 *
 * A command whose keys fall on more than one shard is refused before
 * anything is sent, as is a transaction whose commands do: no shard can
 * run a MULTI for keys it does not hold. A read-only command goes, in
 * turn, to each replica of its shard (`scaleReads: 'slave'`, the default
 * here, ioredis's name for it) or to the primary and its replicas
 * (`'all'`), or to the primary only (`'master'`); replicas are
 * asynchronous, so a read there may not see a write just acknowledged.
 * The turn is a counter, not a random draw, so that a world replays the
 * same way.
 */

export interface ShardAddress {
  host: string;
  port: number;
}

export interface ShardSpec {
  primary: ShardAddress;
  replicas?: ShardAddress[];
}

export type ScaleReads = 'master' | 'slave' | 'all';

export interface ShardedRedisOptions {
  shards: ShardSpec[];
  /** Where read-only commands go; 'slave' by default (the primary when a shard has no replica). */
  scaleReads?: ScaleReads;
}

/** Opens a client-library connection to host:port. */
export type Dial = (host: string, port: number) => Redis;

/** Why a command or a transaction was not sent: its keys live on more than one shard. */
export class CrossShardError extends Error {
  constructor(
    what: string,
    /** Each key with the shard it belongs to, in the order given. */
    readonly placed: ReadonlyArray<{ key: string; shard: number }>,
  ) {
    const where = placed.map((p) => `${p.key} on shard ${p.shard}`).join(', ');
    super(`${what} spans shards (${where}): one shard can only run it for keys it holds. Give the keys a common {hash tag}, like {user:1}:name and {user:1}:visits.`);
    this.name = 'CrossShardError';
  }
}

/** Command facts by lower-case name, made once per name. */
const SPECS = new Map<string, CommandDef | null>();

function specOf(argv: readonly string[]): CommandDef | null {
  let name = asciiLower(argv[0]!);
  let spec = SPECS.get(name);
  if (spec === undefined) {
    const facts = commandFacts(name);
    spec = facts === undefined ? null : new CommandDef(facts, null, null);
    SPECS.set(name, spec);
  }
  if (spec !== null && spec.facts.subcommands !== undefined && argv.length > 1) {
    name = `${name}|${asciiLower(argv[1]!)}`;
    let sub = SPECS.get(name);
    if (sub === undefined) {
      const facts = commandFacts(name);
      sub = facts === undefined ? null : new CommandDef(facts, null, spec);
      SPECS.set(name, sub);
    }
    return sub;
  }
  return spec;
}

/** Where one command goes: its shard (null for a command without keys) and whether it only reads. */
interface Placement {
  shard: number | null;
  readOnly: boolean;
  keys: Array<{ key: string; shard: number }>;
}

/** How a batch of commands travels: one command, a pipeline, or MULTI/EXEC around them. */
export type ShardFlight = 'command' | 'pipeline' | 'multi';

/** A command's value, or a batch's [error, value] pairs (null: EXEC aborted by WATCH). */
export type ShardResult = ClientValue | PipelineResult | null;

/** Sends commands (byte strings) to one server as one flight, and resolves what it answers. */
export type ShardSend = (to: ShardAddress, argvs: string[][], flight: ShardFlight) => Promise<ShardResult>;

/**
 * The sharding rules without connections: where each command goes, which
 * are refused, and which replica reads next. ShardedRedis sends over
 * client-library connections; a code cell's sharded connection sends over
 * the world's recorded clients (src/code-cell/executor.ts), so that a
 * checkpoint replays it like any other client.
 */
export class ShardRouter {
  private readonly turns: number[];
  private readonly scaleReads: ScaleReads;

  constructor(private readonly opts: ShardedRedisOptions) {
    if (opts.shards.length === 0) throw new Error('at least one shard is needed');
    this.turns = opts.shards.map(() => 0);
    this.scaleReads = opts.scaleReads ?? 'slave';
  }

  get shards(): readonly ShardSpec[] {
    return this.opts.shards;
  }

  /** The shard (0, 1, ...) that holds a key given as a byte string. */
  shardOf(key: string): number {
    return shardOfSlot(keySlot(key), this.opts.shards.length);
  }

  /** Where a command line goes, or the error that keeps it from going anywhere. */
  private place(argv: readonly string[]): Placement {
    const spec = specOf(argv);
    const readOnly = spec !== null && spec.flagNames.includes('readonly');
    const keys = spec === null ? [] : commandKeys(spec, argv).map((k) => ({ key: argv[k.pos]!, shard: this.shardOf(argv[k.pos]!) }));
    if (new Set(keys.map((k) => k.shard)).size > 1) throw new CrossShardError(asciiLower(argv[0]!).toUpperCase(), keys);
    return { shard: keys.length === 0 ? null : keys[0]!.shard, readOnly, keys };
  }

  /** The server a command of `shard` goes to: its primary, or for a read, the next in turn of its readers. */
  private serverFor(shard: number, readOnly: boolean): ShardAddress {
    const s = this.opts.shards[shard]!;
    const replicas = s.replicas ?? [];
    if (!readOnly || this.scaleReads === 'master' || replicas.length === 0) return s.primary;
    const readers = this.scaleReads === 'all' ? [s.primary, ...replicas] : replicas;
    const turn = this.turns[shard]!;
    this.turns[shard] = turn + 1;
    return readers[turn % readers.length]!;
  }

  /**
   * Sends commands (byte strings) by the rules: a command to the shard of
   * its keys (the first shard when it has none); a pipeline's commands each
   * to theirs, one flight per server, the results in the order given; a
   * transaction whole to the one shard that holds all its keys. Throws
   * CrossShardError, before sending anything, when keys span shards.
   */
  async send(argvs: string[][], flight: ShardFlight, send: ShardSend): Promise<ShardResult> {
    const placements = argvs.map((argv) => this.place(argv));
    if (flight === 'command') {
      const p = placements[0]!;
      return send(this.serverFor(p.shard ?? 0, p.readOnly), argvs.slice(0, 1), 'command');
    }
    if (flight === 'multi') {
      const keys = placements.flatMap((p) => p.keys);
      if (new Set(keys.map((k) => k.shard)).size > 1) throw new CrossShardError('MULTI', keys);
      return send(this.opts.shards[keys.length === 0 ? 0 : keys[0]!.shard]!.primary, argvs, 'multi');
    }
    const groups = new Map<ShardAddress, number[]>();
    placements.forEach((p, i) => {
      const to = this.serverFor(p.shard ?? 0, p.readOnly);
      const g = groups.get(to);
      if (g === undefined) groups.set(to, [i]);
      else g.push(i);
    });
    const out: PipelineResult = new Array(argvs.length);
    await Promise.all(
      [...groups].map(async ([to, indexes]) => {
        const res = (await send(to, indexes.map((i) => argvs[i]!), 'pipeline')) as PipelineResult;
        indexes.forEach((i, k) => (out[i] = res[k]!));
      }),
    );
    return out;
  }
}

// The interface of the same name adds a method per command (defined below).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ShardedRedis {
  private readonly connections = new Map<string, Redis>();
  private readonly router: ShardRouter;
  private ended = false;
  private readonly transport: ShardSend = (to, argvs, flight) => {
    const r = this.connection(to);
    return flight === 'command' ? r.sendFlight(argvs, [false])[0]! : execFlight(r, argvs, flight === 'multi');
  };

  constructor(
    private readonly dial: Dial,
    opts: ShardedRedisOptions,
  ) {
    this.router = new ShardRouter(opts);
  }

  /** How many shards the keys are spread over. */
  get shardCount(): number {
    return this.router.shards.length;
  }

  /** The shard (0, 1, ...) that holds a key. */
  shardOf(key: Arg): number {
    return this.router.shardOf(argToBytes(key));
  }

  /** The connection to an address, opened on first use and kept. */
  private connection(a: ShardAddress): Redis {
    const id = `${a.host}:${a.port}`;
    let r = this.connections.get(id);
    if (r === undefined || r.status === 'end') {
      r = this.dial(a.host, a.port);
      this.connections.set(id, r);
    }
    return r;
  }

  /** Runs any command on the shard of its keys (the first shard when it has none). */
  call(command: string, ...args: Arg[]): Promise<ClientValue> {
    return this.execCommands([[argToBytes(command), ...args.map(argToBytes)]], 'command') as Promise<ClientValue>;
  }

  /** Commands sent together; each goes to its own shard, and the results come back in the order given. */
  pipeline(): Pipeline {
    return new Pipeline((commands) => this.execCommands(commands, 'pipeline') as Promise<PipelineResult | null>);
  }

  /** A transaction: MULTI/EXEC on the one shard that holds all its keys, or a CrossShardError. */
  multi(): Pipeline {
    return new Pipeline((commands) => this.execCommands(commands, 'multi') as Promise<PipelineResult | null>);
  }

  /** @internal Sends commands given as byte strings. */
  async execCommands(argvs: string[][], flight: ShardFlight): Promise<ShardResult> {
    if (this.ended) throw new Error('Connection is closed.');
    return this.router.send(argvs, flight, this.transport);
  }

  /** Closes every connection. */
  disconnect(): void {
    this.ended = true;
    for (const r of this.connections.values()) r.disconnect();
    this.connections.clear();
  }

  async quit(): Promise<ClientValue> {
    this.ended = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((r) => r.quit()));
    return 'OK';
  }
}

type OwnNames = 'call' | 'quit' | 'disconnect' | 'multi' | 'pipeline' | 'exec';
type Commands = { [K in Exclude<CommandName, OwnNames>]: (...args: Arg[]) => Promise<ClientValue> };
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface ShardedRedis extends Commands {}

addCommandMethods(ShardedRedis.prototype);
