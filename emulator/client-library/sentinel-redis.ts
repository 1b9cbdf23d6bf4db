import type { Kernel } from '../sim/kernel.js';
import { Redis } from './redis.js';
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
   */
  maxRounds?: number;
}

/** Opens a client-library connection to host:port (a name or an address). */
export type Dial = (host: string, port: number) => Redis;

export type SentinelRedisStatus = 'connecting' | 'ready' | 'reconnecting' | 'end';

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
  private connection: Promise<Redis>;
  private watcher: Redis | null = null;
  private sentinels: SentinelAddress[];

  constructor(
    readonly kernel: Kernel,
    private readonly dial: Dial,
    private readonly opts: SentinelRedisOptions,
  ) {
    if (opts.sentinels.length === 0) throw new Error('at least one sentinel is needed');
    this.sentinels = [...opts.sentinels];
    this.connection = this.connect();
    // A failure is reported to the commands that wait for the connection.
    this.connection.catch(() => {});
  }

  /** Runs any command on the current primary, once there is one. */
  async call(command: string, ...args: Arg[]): Promise<ClientValue> {
    if (this.status === 'end') throw new Error('Connection is closed.');
    const r = await this.connection;
    return r.call(command, ...args);
  }

  /** Closes every connection; commands after it fail. */
  disconnect(): void {
    this.status = 'end';
    this.closeWatcher();
    this.dropCurrent();
  }

  async quit(): Promise<ClientValue> {
    const r = this.current;
    this.status = 'end';
    this.closeWatcher();
    if (r === null) return 'OK';
    r.onEnd = null;
    return r.quit();
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
    this.connection = this.connect();
    this.connection.catch(() => {});
  }

  private async connect(): Promise<Redis> {
    const maxRounds = this.opts.maxRounds ?? 20;
    for (let round = 1; ; round++) {
      for (let i = 0; i < this.sentinels.length; i++) {
        const sentinel = this.sentinels[i]!;
        const found = await this.askSentinel(sentinel);
        if (found === null) continue;
        // ioredis moves the sentinel that answered to the front of its list.
        this.sentinels.splice(i, 1);
        this.sentinels.unshift(sentinel);
        this.ready(found.client, found.address, sentinel);
        return found.client;
      }
      if (this.status === 'end') throw new Error('Connection is closed.');
      if (round >= maxRounds) {
        this.status = 'end';
        throw new Error(`All sentinels are unreachable or name no master "${this.opts.name}".`);
      }
      await this.kernel.sleep(retryDelayMs(round));
    }
  }

  /** The master one sentinel names, connected and confirmed by ROLE; null when it cannot be used. */
  private async askSentinel(sentinel: SentinelAddress): Promise<{ client: Redis; address: string } | null> {
    let addr: ClientValue;
    const s = this.dial(sentinel.host, sentinel.port);
    try {
      addr = await s.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.opts.name);
    } catch {
      return null;
    } finally {
      s.disconnect();
    }
    if (!Array.isArray(addr) || addr.length !== 2) return null;
    const host = String(addr[0]);
    const port = Number(addr[1]);
    const r = this.dial(host, port);
    try {
      const role = await r.call('ROLE');
      if (Array.isArray(role) && role[0] === 'master') return { client: r, address: `${host}:${port}` };
    } catch {
      // Not reachable (yet): the next sentinel, or the next round, may know better.
    }
    r.disconnect();
    return null;
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
    w.call('SUBSCRIBE', '+switch-master').catch(() => {});
  }
}

type OwnNames = 'call' | 'quit' | 'disconnect';
type Commands = { [K in Exclude<CommandName, OwnNames>]: (...args: Arg[]) => Promise<ClientValue> };
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface SentinelRedis extends Commands {}

addCommandMethods(SentinelRedis.prototype);
