import { encodeCommandsToArray } from '../resp/encode.js';
import { ReplyParser } from '../resp/reply-parser.js';
import { ErrorReply, type Reply } from '../resp/reply.js';
import type { Kernel } from '../sim/kernel.js';
import type { NetError, Socket } from '../sim/network.js';
import type { ClientCpuCosts } from '../sim/cpu.js';
import { ReplyError } from './reply-error.js';
import { argToBytes, replyToValue, type Arg, type ClientValue } from './values.js';
import type { CommandName } from './command-names.js';
import { addCommandMethods } from './command-methods.js';

/**
 * A client for servers in the simulated world, shaped like ioredis so that
 * code written against it moves to a real Node application unchanged:
 *
 *   const r = world.connect({ from: 'app', to: 'A:6379' });
 *   await r.set('k', 'v');                       // 'OK'
 *   await r.call('HSET', 'h', 'f', 1);           // 1
 *   const res = await r.pipeline().incr('n').get('n').exec();   // [[null, 1], [null, '1']]
 *   await r.watch('k'); const tx = await r.multi().set('k', 2).exec();   // null if k changed
 *
 * Every call travels the simulated network and costs virtual time: the
 * client's own work (encoding, its socket calls) by its CPU profile, the
 * wire both ways, and the server's work.
 */

type Resolver = {
  resolve: (v: ClientValue) => void;
  reject: (e: Error) => void;
  /** Raw mode: resolve the Reply itself (transactions look at EXEC's array). */
  raw?: boolean;
  /** The command, kept only when someone listens to replies (ClientOptions.onReply). */
  argv?: string[];
};

/** Hears every reply a command got, as it arrives (the acknowledged-writes ledger listens). */
export type ReplyTap = (client: Redis, argv: string[], reply: Reply) => void;

export type ClientStatus = 'connecting' | 'ready' | 'end';

export interface ClientOptions {
  costs: ClientCpuCosts;
  /** Slows or speeds the client's own work (its host's cpuSpeed). */
  cpuSpeed?: number;
  onReply?: ReplyTap;
}

// The interface of the same name adds a method per command (defined below).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Redis {
  status: ClientStatus = 'connecting';
  private readonly parser = new ReplyParser();
  private readonly waiting: Resolver[] = [];
  private offline: Uint8Array[] = [];
  /** When the client's thread is next free (virtual us). */
  private busyUntil: number;
  private closeError: Error | null = null;
  /** Called when the connection ends, with the error if it was not a clean close. */
  onEnd: ((error: Error | null) => void) | null = null;
  /**
   * Called with a reply no command waits for: the messages of a subscribed
   * connection (['message', channel, text]), which ioredis emits as events.
   */
  onPush: ((value: ClientValue) => void) | null = null;

  constructor(
    readonly kernel: Kernel,
    readonly socket: Socket,
    private readonly opts: ClientOptions,
  ) {
    this.busyUntil = kernel.now + this.cost(opts.costs.connectUs);
    socket.onConnect = () => {
      this.status = 'ready';
      if (this.offline.length !== 0) {
        const queued = this.offline;
        this.offline = [];
        for (const bytes of queued) this.transmit(bytes);
      }
    };
    socket.onData = (data) => this.receive(data);
    socket.onClose = (error) => this.ended(error);
  }

  private cost(us: number): number {
    return us / (this.opts.cpuSpeed ?? 1);
  }

  /** Sends one encoded flight of `commands` commands, after the client's own work. */
  private send(bytes: Uint8Array, commands: number): void {
    const costs = this.opts.costs;
    const start = Math.max(this.kernel.now, this.busyUntil);
    this.busyUntil = start + this.cost(costs.perFlightUs + costs.perCommandUs * commands);
    if (this.status === 'ready') this.transmit(bytes);
    else this.offline.push(bytes);
  }

  private transmit(bytes: Uint8Array): void {
    const at = Math.max(this.kernel.now, Math.round(this.busyUntil));
    this.socket.write(bytes, at);
  }

  private receive(data: Uint8Array): void {
    this.parser.feed(data);
    const costs = this.opts.costs;
    for (;;) {
      let reply: Reply | undefined;
      try {
        reply = this.parser.next();
      } catch (e) {
        this.failAll(e instanceof Error ? e : new Error(String(e)));
        this.socket.destroy();
        return;
      }
      if (reply === undefined) break;
      const w = this.waiting.shift();
      if (w === undefined) {
        if (this.onPush !== null) {
          this.kernel.promisesSettled = true;
          this.onPush(replyToValue(reply));
        }
        continue;
      }
      if (w.argv !== undefined) this.opts.onReply?.(this, w.argv, reply);
      if (Array.isArray(reply)) this.busyUntil = Math.max(this.busyUntil, this.kernel.now) + this.cost(costs.perReplyItemUs * reply.length);
      this.kernel.promisesSettled = true;
      if (w.raw) w.resolve(reply as unknown as ClientValue);
      else if (reply instanceof ErrorReply) w.reject(new ReplyError(reply.message));
      else w.resolve(replyToValue(reply));
    }
  }

  private ended(error: NetError | null): void {
    if (this.status === 'end') return;
    this.status = 'end';
    const err = error ?? new Error('Connection is closed.');
    this.closeError = err;
    this.failAll(err);
    this.kernel.promisesSettled = true;
    this.onEnd?.(error);
  }

  private failAll(err: Error): void {
    const pending = this.waiting.splice(0);
    for (const w of pending) w.reject(err);
    if (pending.length !== 0) this.kernel.promisesSettled = true;
  }

  private enqueue(raw: boolean, argv: string[]): Promise<ClientValue> {
    const tapped = this.opts.onReply === undefined ? undefined : argv;
    return new Promise<ClientValue>((resolve, reject) => {
      this.waiting.push({ resolve, reject, raw, argv: tapped });
    });
  }

  /** Runs any command: `r.call('SET', 'k', 'v')`. */
  call(command: string, ...args: Arg[]): Promise<ClientValue> {
    if (this.status === 'end') return Promise.reject(this.closeError ?? new Error('Connection is closed.'));
    const argv = [argToBytes(command), ...args.map(argToBytes)];
    const p = this.enqueue(false, argv);
    this.send(encodeCommandsToArray([argv]), 1);
    return p;
  }

  /**
   * @internal Runs a command and calls `done` with its reply the moment it
   * arrives, not in a later promise reaction: code inside the world that
   * acts on a reply (the Sentinel-following client) then acts at the same
   * point of the world's history however the world is driven, a replay
   * included.
   */
  callback(argv: string[], done: (error: Error | null, value: ClientValue) => void): void {
    if (this.status === 'end') {
      done(this.closeError ?? new Error('Connection is closed.'), null);
      return;
    }
    this.waiting.push({ resolve: (v) => done(null, v), reject: (e) => done(e, null), argv: this.opts.onReply === undefined ? undefined : argv });
    this.send(encodeCommandsToArray([argv]), 1);
  }

  /** Commands sent together in one flight, not wrapped in MULTI. */
  pipeline(): Pipeline {
    return new Pipeline((commands) => execFlight(this, commands, false));
  }

  /** Commands wrapped in MULTI/EXEC, sent in one flight. */
  multi(): Pipeline {
    return new Pipeline((commands) => execFlight(this, commands, true));
  }

  watch(...keys: Arg[]): Promise<ClientValue> {
    return this.call('WATCH', ...keys);
  }

  unwatch(): Promise<ClientValue> {
    return this.call('UNWATCH');
  }

  /** Sends QUIT and closes once the server answers. */
  async quit(): Promise<ClientValue> {
    const r = await this.call('QUIT').catch(() => 'OK');
    this.socket.end();
    return r;
  }

  /** Closes the connection now (no QUIT). */
  disconnect(): void {
    this.socket.end();
    if (this.status !== 'end') this.ended(null);
  }

  /** @internal Sends a prepared flight and returns one promise per command. */
  sendFlight(argvs: string[][], raw: boolean[]): Promise<ClientValue>[] {
    if (this.status === 'end') {
      const err = this.closeError ?? new Error('Connection is closed.');
      return argvs.map(() => Promise.reject(err));
    }
    const out: Promise<ClientValue>[] = [];
    for (let i = 0; i < argvs.length; i++) out.push(this.enqueue(raw[i]!, argvs[i]!));
    this.send(encodeCommandsToArray(argvs), argvs.length);
    return out;
  }
}

export type PipelineResult = Array<[Error | null, ClientValue]>;

/**
 * A batch of commands built by chaining and sent by exec(). For a pipeline,
 * exec() resolves one [error, result] pair per command; for multi(), the
 * pairs of EXEC's results, or null when a WATCHed key changed.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Pipeline {
  private argvs: string[][] = [];

  /** `send` delivers the batch: one connection's flight, or a sharded client's placement. */
  constructor(private readonly send: (commands: string[][]) => Promise<PipelineResult | null>) {}

  call(command: string, ...args: Arg[]): this {
    this.argvs.push([argToBytes(command), ...args.map(argToBytes)]);
    return this;
  }

  get length(): number {
    return this.argvs.length;
  }

  exec(): Promise<PipelineResult | null> {
    const commands = this.argvs;
    this.argvs = [];
    return this.send(commands);
  }
}

/**
 * Sends commands already encoded as byte strings in one flight: a plain
 * pipeline, or wrapped in MULTI/EXEC when `transaction` is set. Resolves
 * as Pipeline.exec does. The world's recorded clients (World.clientSend)
 * use it, since their commands are kept as bytes in the action log.
 */
export async function execFlight(owner: Redis, commands: string[][], transaction: boolean): Promise<PipelineResult | null> {
  if (!transaction) {
    const promises = owner.sendFlight(commands, commands.map(() => false));
    return Promise.all(promises.map((p) => p.then((v): [Error | null, ClientValue] => [null, v], (e: Error): [Error | null, ClientValue] => [e, null])));
  }
  const argvs = [['MULTI'], ...commands, ['EXEC']];
  const promises = owner.sendFlight(argvs, argvs.map(() => true));
  const replies = (await Promise.all(promises.map((p) => p.catch((e: Error) => e)))) as unknown as Array<Reply | Error>;
  const exec = replies[replies.length - 1]!;
  if (exec instanceof Error) throw exec;
  if (exec instanceof ErrorReply) {
    const err = new ReplyError(exec.message);
    (err as ReplyError & { previousErrors?: ReplyError[] }).previousErrors = replies
      .slice(1, -1)
      .filter((r): r is ErrorReply => r instanceof ErrorReply)
      .map((r) => new ReplyError(r.message));
    throw err;
  }
  if (!Array.isArray(exec)) return null;
  return exec.map((r): [Error | null, ClientValue] => (r instanceof ErrorReply ? [new ReplyError(r.message), null] : [null, replyToValue(r)]));
}

/** ioredis gives a method per command; so do we. */
type OwnNames = 'multi' | 'watch' | 'unwatch' | 'quit' | 'exec' | 'call' | 'pipeline';
type ClientCommands = { [K in Exclude<CommandName, OwnNames>]: (...args: Arg[]) => Promise<ClientValue> };
type PipelineCommands = { [K in Exclude<CommandName, OwnNames>]: (...args: Arg[]) => Pipeline };
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface Redis extends ClientCommands {}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface Pipeline extends PipelineCommands {}

addCommandMethods(Redis.prototype);
addCommandMethods(Pipeline.prototype);
