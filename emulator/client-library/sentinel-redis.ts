import type { Kernel } from '../sim/kernel.js';
import { execFlight, Redis, type PipelineResult } from './redis.js';
import type { Arg, ClientValue } from './values.js';
import type { CommandName } from './command-names.js';
import { addCommandMethods } from './command-methods.js';

/**
 * A client that finds its primary through Sentinel and follows it across
 * a failover, shaped like ioredis's `new Redis({ sentinels, name })`:
 *
 *   const r = world.connectSentinel({ from: 'app', sentinels: [{ host: 'S1', port: 26379 }], name: 'mymaster' });
 *   await r.set('k', 'v');     // on whatever server the sentinels call the primary
 *
 * It asks each sentinel in turn SENTINEL GET-MASTER-ADDR-BY-NAME, connects
 * to the address given and checks with ROLE that the server is a master
 * (a server that a failover demoted is not used), as ioredis's
 * SentinelConnector does. It then listens on that sentinel's +switch-master
 * channel; on a switch of its master, or when its connection is lost, it
 * asks the sentinels again. Commands sent meanwhile wait for the new
 * connection.
 */

export interface SentinelAddress {
  host: string;
  port: number;
}

export interface SentinelRedisOptions {
  sentinels: SentinelAddress[];
  /** The master's name in the sentinels' configuration. */
  name: string;
  /**
   * Rounds over all the sentinels before giving up (ioredis retries
   * forever by default; a bounded number keeps a cell from hanging).
   * DEFAULT_MAX_ROUNDS when absent.
   */
  maxRounds?: number;
}

/** Opens a client-library connection to host:port (a name or an address). */
export type Dial = (host: string, port: number) => Redis;

export type SentinelRedisStatus = 'connecting' | 'ready' | 'reconnecting' | 'end';

/**
 * About 70 s of virtual time of retries (the waits grow to a second by the
 * hundredth round): longer than a failover takes with Sentinel's default
 * down-after-milliseconds of 30 s, so a client waits one out.
 */
export const DEFAULT_MAX_ROUNDS = 120;

/** ioredis's sentinelRetryStrategy: wait longer after each failed round, up to a second. */
function retryDelayMs(round: number): number {
  return Math.min(round * 10, 1000);
}

// The interface of the same name adds a method per command (defined below).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class SentinelRedis {
  status: SentinelRedisStatus = 'connecting';
  /** The primary's connection while ready. */
  current: Redis | null = null;
  /** The address of the primary in use, 'host:port'. */
  address: string | null = null;
  /** Every primary address this client has used, in order. */
  readonly history: string[] = [];
  /** What waits for a primary: sent, in order, as soon as there is one; failed if none is found. */
  private waiters: Array<{ send: (r: Redis) => void; fail: (e: Error) => void }> = [];
  private failure: Error | null = null;
  private watcher: Redis | null = null;
  private sentinels: SentinelAddress[];
  /** Bumped on every new search, so that the answers of an abandoned one are ignored. */
  private search = 0;

  constructor(
    readonly kernel: Kernel,
    private readonly dial: Dial,
    private readonly opts: SentinelRedisOptions,
  ) {
    if (opts.sentinels.length === 0) throw new Error('at least one sentinel is needed');
    this.sentinels = [...opts.sentinels];
    this.find();
  }

  /**
   * Sends on the primary as soon as there is one. Everything the client
   * does in the world happens in callbacks of replies and timers, never in
   * promise reactions, so it happens at the same point of the world's
   * history however the world is driven (a checkpoint's replay included).
   */
  private onPrimary<T>(send: (r: Redis) => Promise<T>): Promise<T> {
    if (this.status === 'end') return Promise.reject(this.failure ?? new Error('Connection is closed.'));
    if (this.status === 'ready' && this.current !== null) return send(this.current);
    return new Promise<T>((resolve, reject) => {
      this.waiters.push({ send: (r) => send(r).then(resolve, reject), fail: reject });
    });
  }

  /** Runs any command on the current primary, once there is one. */
  call(command: string, ...args: Arg[]): Promise<ClientValue> {
    return this.onPrimary((r) => r.call(command, ...args));
  }

  /**
   * Sends commands already encoded as byte strings, once there is a
   * primary: one command, a pipeline, or MULTI/EXEC in one flight (the
   * world's recorded clients send this way; see World.clientSend).
   */
  sendRecorded(argvs: string[][], flight: 'command' | 'pipeline' | 'multi'): Promise<ClientValue | PipelineResult | null> {
    return this.onPrimary<ClientValue | PipelineResult | null>((r) => (flight === 'command' ? r.sendFlight(argvs.slice(0, 1), [false])[0]! : execFlight(r, argvs, flight === 'multi')));
  }

  /** Closes every connection; commands after it fail. */
  disconnect(): void {
    this.end(new Error('Connection is closed.'));
    this.dropCurrent();
  }

  async quit(): Promise<ClientValue> {
    const r = this.current;
    this.current = null;
    this.end(new Error('Connection is closed.'));
    if (r === null) return 'OK';
    r.onEnd = null;
    return r.quit();
  }

  private end(error: Error): void {
    this.status = 'end';
    this.failure = error;
    this.search++;
    this.closeWatcher();
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.fail(error);
    if (waiting.length !== 0) this.kernel.promisesSettled = true;
  }

  private closeWatcher(): void {
    const w = this.watcher;
    this.watcher = null;
    if (w !== null) {
      w.onEnd = null;
      w.onPush = null;
      w.disconnect();
    }
  }

  /** Closes the connection to the current primary without reporting its end. */
  private dropCurrent(): void {
    const r = this.current;
    this.current = null;
    if (r !== null) {
      r.onEnd = null;
      r.disconnect();
    }
  }

  /** Drops the current primary and finds the one the sentinels name now. */
  private reconnect(): void {
    if (this.status === 'end' || this.status === 'reconnecting') return;
    this.status = 'reconnecting';
    this.closeWatcher();
    this.dropCurrent();
    this.find();
  }

  /** Asks the sentinels in turn, round after round, until one names a master that ROLE confirms. */
  private find(): void {
    const search = ++this.search;
    const maxRounds = this.opts.maxRounds ?? DEFAULT_MAX_ROUNDS;
    const tryAt = (round: number, i: number): void => {
      if (search !== this.search) return;
      if (i === this.sentinels.length) {
        if (round >= maxRounds) {
          this.end(new Error(`All sentinels are unreachable or name no master "${this.opts.name}".`));
          return;
        }
        this.kernel.after(retryDelayMs(round) * 1000, () => tryAt(round + 1, 0));
        return;
      }
      const sentinel = this.sentinels[i]!;
      this.askSentinel(sentinel, (found) => {
        if (search !== this.search) {
          found?.client.disconnect();
          return;
        }
        if (found === null) {
          tryAt(round, i + 1);
          return;
        }
        // ioredis moves the sentinel that answered to the front of its list.
        this.sentinels.splice(i, 1);
        this.sentinels.unshift(sentinel);
        this.ready(found.client, found.address, sentinel);
      });
    };
    tryAt(1, 0);
  }

  /** The master one sentinel names, connected and confirmed by ROLE; null when it cannot be used. */
  private askSentinel(sentinel: SentinelAddress, then: (found: { client: Redis; address: string } | null) => void): void {
    const s = this.dial(sentinel.host, sentinel.port);
    s.callback(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.opts.name], (error, addr) => {
      s.disconnect();
      if (error !== null || !Array.isArray(addr) || addr.length !== 2) {
        then(null);
        return;
      }
      const host = String(addr[0]);
      const port = Number(addr[1]);
      const r = this.dial(host, port);
      r.callback(['ROLE'], (roleError, role) => {
        if (roleError === null && Array.isArray(role) && role[0] === 'master') {
          then({ client: r, address: `${host}:${port}` });
          return;
        }
        // Not reachable (yet), or not a master: the next sentinel, or the next round, may know better.
        r.disconnect();
        then(null);
      });
    });
  }

  private ready(r: Redis, address: string, sentinel: SentinelAddress): void {
    if (this.status === 'end') {
      r.disconnect();
      return;
    }
    this.current = r;
    this.address = address;
    this.history.push(address);
    this.status = 'ready';
    r.onEnd = () => this.reconnect();
    this.followSwitches(sentinel);
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.send(r);
  }

  /** Listens for +switch-master of our master on the sentinel that answered. */
  private followSwitches(sentinel: SentinelAddress): void {
    const w = this.dial(sentinel.host, sentinel.port);
    this.watcher = w;
    w.onPush = (v) => {
      if (!Array.isArray(v) || v[0] !== 'message' || v[1] !== '+switch-master') return;
      // "<name> <old ip> <old port> <new ip> <new port>", as sentinelEvent writes it.
      if (String(v[2]).split(' ')[0] === this.opts.name) this.reconnect();
    };
    // A lost sentinel is not a lost primary: the next reconnect picks a sentinel again.
    w.onEnd = () => {
      if (this.watcher === w) this.watcher = null;
    };
    w.callback(['SUBSCRIBE', '+switch-master'], () => {});
  }
}

type OwnNames = 'call' | 'quit' | 'disconnect';
type Commands = { [K in Exclude<CommandName, OwnNames>]: (...args: Arg[]) => Promise<ClientValue> };
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface SentinelRedis extends Commands {}

addCommandMethods(SentinelRedis.prototype);
