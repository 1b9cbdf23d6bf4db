import { COMMAND_NAMES } from '../../emulator/client-library/index.js';
import type { CellArg, CellRequest, Flight } from './protocol.js';

/** Requests without their id: the runtime numbers them. */
export type RequestBody = CellRequest extends infer R ? (R extends CellRequest ? Omit<R, 'id'> : never) : never;

/** What a cell's connections need from the runtime. */
export interface ClientChannel {
  /**
   * Queues a request; resolves with its answer (none for 'open', which
   * never answers). A failure is rejected with an error that has no stack
   * yet: the cell's engine gives it the stack of the place it is thrown,
   * the line of the cell's code that awaits it.
   */
  request(body: RequestBody): Promise<unknown>;
}

export interface ConnectOptions {
  /** The host the client runs on (the cell's host by default). */
  readonly from?: string;
  /** 'host:port', or 'host:/path/to/socket' on the same host. */
  readonly to?: string;
  /** Whose CPU costs the client pays: 'node' (default), 'python' (the book's redis-py), 'benchmark'. */
  readonly client?: string;
  /**
   * With `name`: ask these sentinels which server is the primary of the
   * master called `name`, and follow it across a failover, as ioredis's
   * `new Redis({ sentinels, name })` does.
   */
  readonly sentinels?: readonly { readonly host: string; readonly port: number }[];
  readonly name?: string;
  /**
   * Spreads the keys over several shards instead (emulator/client-library/sharded-redis.ts):
   * `[{ primary: 'A:6379', replicas: ['A2:6379'] }, ...]`. A command or a
   * multi() whose keys fall on two shards fails; reads go to the replicas.
   */
  readonly shards?: ReadonlyArray<{ readonly primary: string; readonly replicas?: readonly string[] }>;
  /** Where reads of a sharded connection go: 'slave' (the replicas, the default), 'master' or 'all'. */
  readonly scaleReads?: 'master' | 'slave' | 'all';
}

/** A sharded connection's options, checked where the cell gives them. */
function shardOptions(shards: unknown, scaleReads: unknown): Pick<ConnectOptions, 'shards' | 'scaleReads'> {
  const hostPort = (x: unknown): x is string => typeof x === 'string' && /^[^:]+:\d+$/.test(x);
  if (!Array.isArray(shards) || shards.length === 0) throw new TypeError('{ shards }: a list like [{ primary: "A:6379", replicas: ["A2:6379"] }]');
  const list = (shards as unknown[]).map((s) => {
    const e = s as Record<string, unknown> | null;
    const replicas = e?.replicas ?? [];
    if (typeof e !== 'object' || e === null || !hostPort(e.primary) || !Array.isArray(replicas) || !replicas.every(hostPort)) throw new TypeError('{ shards }: each shard is { primary: "host:port", replicas: ["host:port", ...] }');
    return { primary: e.primary, replicas: replicas as string[] };
  });
  if (scaleReads !== undefined && scaleReads !== 'master' && scaleReads !== 'slave' && scaleReads !== 'all') throw new TypeError('{ scaleReads }: "slave" (the replicas), "master" or "all"');
  return { shards: list, scaleReads: scaleReads as ConnectOptions['scaleReads'] };
}

/**
 * What a cell passed to connect() or new Redis(), as ConnectOptions: a
 * 'host:port' string, or an object; `host` and `port` (ioredis's names)
 * make `to`. Sentinels are checked here so that a mistake is thrown where
 * the cell made it.
 */
export function connectOptions(x: unknown): ConnectOptions {
  if (x === undefined) return {};
  if (typeof x === 'string') return { to: x };
  if (typeof x !== 'object' || x === null) throw new TypeError('connect(options): give "host:port" or an object like { to: "A:6379" } or { sentinels, name }');
  const o = x as Record<string, unknown>;
  const text = (k: string): string | undefined => (o[k] === undefined ? undefined : String(o[k]));
  let to = text('to');
  if (to === undefined && (o.host !== undefined || o.port !== undefined)) to = `${text('host') ?? 'localhost'}:${text('port') ?? '6379'}`;
  const opts: ConnectOptions = { from: text('from'), to, client: text('client') };
  if (o.shards !== undefined) return { ...opts, to: undefined, ...shardOptions(o.shards, o.scaleReads) };
  if (o.sentinels === undefined && o.name === undefined) return opts;
  if (!Array.isArray(o.sentinels) || o.sentinels.length === 0) throw new TypeError('{ sentinels, name }: sentinels is a list like [{ host: "S1", port: 26379 }]');
  if (typeof o.name !== 'string' || o.name === '') throw new TypeError('{ sentinels, name }: name is the master\'s name in the sentinels\' configuration, like "mymaster"');
  const sentinels = (o.sentinels as unknown[]).map((s) => {
    const e = s as Record<string, unknown> | null;
    const port = Number(e?.port ?? 26379);
    if (typeof e !== 'object' || e === null || typeof e.host !== 'string' || !Number.isInteger(port) || port < 1 || port > 65535) throw new TypeError('{ sentinels, name }: each sentinel is { host, port }');
    return { host: e.host, port };
  });
  return { ...opts, to: undefined, sentinels, name: o.name };
}

/**
 * A cell's connection, shaped like an ioredis client: a method per Redis
 * command (`await redis.set('k', 'v')`), call(), pipeline() and multi()
 * that send their commands in one flight, quit() and disconnect(). Each
 * command is a request to the page, which runs it on a real emulator
 * client in the world (see executor.ts).
 *
 *   const n = await redis.incr('n');
 *   const [[, a], [, b]] = await redis.pipeline().get('a').get('b').exec();
 *   await redis.watch('k'); const res = await redis.multi().set('k', 1).exec();   // null if k changed
 */
// The interface of the same name adds a method per command (defined below).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class CellRedis {
  readonly #channel: ClientChannel;
  readonly #conn: number;
  readonly #options: ConnectOptions;
  #opened = false;
  #ended = false;

  constructor(channel: ClientChannel, conn: number, options: ConnectOptions, eager: boolean) {
    this.#channel = channel;
    this.#conn = conn;
    this.#options = options;
    if (eager) this.#open();
  }

  /** 'ready' until quit() or disconnect(), then 'end'. */
  get status(): 'ready' | 'end' {
    return this.#ended ? 'end' : 'ready';
  }

  #open(): void {
    if (this.#opened) return;
    this.#opened = true;
    const { from, to, client, sentinels, name, shards, scaleReads } = this.#options;
    const open: RequestBody =
      shards !== undefined
        ? { op: 'open', conn: this.#conn, from, client, scaleReads, shards: shards.map((s) => ({ primary: s.primary, replicas: [...(s.replicas ?? [])] })) }
        : sentinels === undefined
          ? { op: 'open', conn: this.#conn, from, to, client }
          : { op: 'open', conn: this.#conn, from, client, sentinels: sentinels.map((s) => ({ host: s.host, port: s.port })), name };
    void this.#channel.request(open);
  }

  /** @internal Sends a flight of commands on this connection. */
  flight(flight: Flight, argvs: CellArg[][]): Promise<unknown> {
    if (this.#ended) return Promise.reject(new Error('Connection is closed.'));
    this.#open();
    return this.#channel.request({ op: 'send', conn: this.#conn, flight, argvs });
  }

  /** Runs any command: `await redis.call('SET', 'k', 'v')`. */
  call(command: string, ...args: unknown[]): Promise<unknown> {
    return sendCommand(this, command, args);
  }

  /** Commands sent together in one flight, not wrapped in MULTI: exec() gives [error, result] per command. */
  pipeline(commands?: unknown[][]): CellPipeline {
    return new CellPipeline(this, 'pipeline', commands);
  }

  /** Commands wrapped in MULTI/EXEC, in one flight: exec() gives [error, result] pairs, or null when a WATCHed key changed. */
  multi(commands?: unknown[][]): CellPipeline {
    return new CellPipeline(this, 'multi', commands);
  }

  /** Sends QUIT, then closes the connection. */
  async quit(): Promise<unknown> {
    const reply = await this.call('quit').catch(() => 'OK');
    this.disconnect();
    return reply;
  }

  /** Closes the connection now. */
  disconnect(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#opened) void this.#channel.request({ op: 'close', conn: this.#conn });
  }
}

/** One command on a connection; a mistake in its arguments is the promise's rejection. */
function sendCommand(conn: CellRedis, command: string, args: readonly unknown[]): Promise<unknown> {
  let argv: CellArg[];
  try {
    argv = commandArgv(command, args);
  } catch (e) {
    return Promise.reject(e);
  }
  return conn.flight('command', [argv]);
}

/** A batch of commands built by chaining (`pipe.set('a', 1).incr('n')`) and sent by exec(). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class CellPipeline {
  readonly #owner: CellRedis;
  readonly #flight: Flight;
  #argvs: CellArg[][] = [];
  #error: Error | null = null;

  constructor(owner: CellRedis, flight: Flight, commands?: unknown[][]) {
    this.#owner = owner;
    this.#flight = flight;
    for (const c of commands ?? []) this.call(String(c[0]), ...c.slice(1));
  }

  /** Adds any command. */
  call(command: string, ...args: unknown[]): this {
    try {
      this.#argvs.push(commandArgv(command, args));
    } catch (e) {
      this.#error ??= e instanceof Error ? e : new Error(String(e));
    }
    return this;
  }

  /** Commands queued so far. */
  get length(): number {
    return this.#argvs.length;
  }

  exec(): Promise<unknown> {
    if (this.#error !== null) return Promise.reject(this.#error);
    const argvs = this.#argvs;
    this.#argvs = [];
    return this.#owner.flight(this.#flight, argvs);
  }
}

/** Own methods that a command of the same name must not replace. */
const OWN = new Set(['call', 'pipeline', 'multi', 'quit', 'disconnect', 'exec', 'status', 'flight', 'length']);

for (const name of COMMAND_NAMES) {
  if (OWN.has(name)) continue;
  Object.defineProperty(CellRedis.prototype, name, {
    // call()'s work without call()'s rest and spread: a cell's engine interprets each call made here, for every command.
    value: function (this: CellRedis, ...args: unknown[]) {
      return sendCommand(this, name, args);
    },
    writable: false,
    configurable: false,
  });
  Object.defineProperty(CellPipeline.prototype, name, {
    value: function (this: CellPipeline, ...args: unknown[]) {
      return this.call(name, ...args);
    },
    writable: false,
    configurable: false,
  });
}

/**
 * A command's arguments as ioredis takes them: arrays are spread, a plain
 * object or a Map gives its keys and values in turn (HSET h {a: 1}),
 * numbers and booleans are written as text. A missing value is an error
 * here rather than an empty string sent on.
 */
export function commandArgv(command: string, args: readonly unknown[]): CellArg[] {
  if (typeof command !== 'string' || command.length === 0) throw new TypeError('a command needs a name');
  const argv: CellArg[] = [command];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    // Strings and numbers, nearly every argument a cell gives, go in as they are (a cell's engine interprets every call and name made here).
    if (typeof a === 'string' || typeof a === 'number') argv.push(a);
    else addArg(argv, command, a, `argument ${i + 1}`);
  }
  return argv;
}

function addArg(argv: CellArg[], command: string, a: unknown, where: string): void {
  if (typeof a === 'string' || typeof a === 'number' || typeof a === 'bigint' || a instanceof Uint8Array) argv.push(a);
  else if (typeof a === 'boolean') argv.push(String(a));
  else if (Array.isArray(a)) a.forEach((x, i) => addArg(argv, command, x, `${where}[${i}]`));
  else if (a instanceof Map) for (const [k, v] of a) addArg(argv, command, [k, v], where);
  else if (a !== null && typeof a === 'object' && Object.getPrototypeOf(a) === Object.prototype) for (const [k, v] of Object.entries(a)) addArg(argv, command, [k, v], `${where}.${k}`);
  else throw new TypeError(`${command.toUpperCase()}: ${where} is ${a === null ? 'null' : typeof a === 'undefined' ? 'undefined' : 'not a string, a number or bytes'}`);
}

// The method per command, for TypeScript's sake (the cells themselves are plain JavaScript).
type Commands<R> = { [K in (typeof COMMAND_NAMES)[number]]: (...args: unknown[]) => R };
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface CellRedis extends Omit<Commands<Promise<unknown>>, 'multi' | 'quit' | 'exec'> {}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface CellPipeline extends Omit<Commands<CellPipeline>, 'multi' | 'quit' | 'exec'> {}
