import { Redis } from '../client/redis.js';
import { CLIENT_CPU, type ClientCpuCosts, type ClientCpuName } from './cpu.js';
import { Host, HOST_PROFILES, type HostProfile, type HostProfileName } from './host.js';
import { Kernel, type KernelOptions } from './kernel.js';
import { LINK_PROFILES, type LinkProfile, type LinkProfileName } from './links.js';
import { Network } from './network.js';
import { RedisProcess, type RedisProcessOptions } from './redis-process.js';

/**
 * The simulated world: hosts on a network, all on one kernel. Tests, lesson
 * checks and the entry points build worlds through this.
 *
 *   const world = new World({ seed: 1 });
 *   world.addHost('A', 'core2duo');
 *   world.addHost('app');
 *   world.link('app', 'A', 'lan');
 *   world.startRedis('A');
 *   const r = world.connect({ from: 'app', to: 'A:6379' });
 *   await world.settle(r.set('k', 'v'));
 */
export class World {
  readonly kernel: Kernel;
  readonly network: Network;
  readonly hosts = new Map<string, Host>();

  constructor(opts: KernelOptions = {}) {
    this.kernel = new Kernel(opts);
    this.network = new Network(this.kernel, (name) => this.hosts.get(name));
  }

  addHost(name: string, profile: HostProfileName | HostProfile = 'metal'): Host {
    if (this.hosts.has(name)) throw new Error(`host ${name} already exists`);
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) throw new Error(`bad host name: ${JSON.stringify(name)}`);
    const p = typeof profile === 'string' ? HOST_PROFILES[profile] : profile;
    if (p === undefined) throw new Error(`unknown host profile: ${String(profile)}`);
    const host = new Host(this.kernel, this.network, name, p);
    this.hosts.set(name, host);
    this.kernel.trace.add('sim', 'host', `${name} ${p.name}`);
    return host;
  }

  host(name: string): Host {
    const h = this.hosts.get(name);
    if (h === undefined) throw new Error(`no host named ${name}`);
    return h;
  }

  /** Sets the path between two hosts (or, with a == b, within one host). */
  link(a: string, b: string, profile: LinkProfileName | LinkProfile): void {
    this.host(a);
    this.host(b);
    const p = typeof profile === 'string' ? LINK_PROFILES[profile] : profile;
    if (p === undefined) throw new Error(`unknown link profile: ${String(profile)}`);
    this.network.setLink(a, b, p);
  }

  /** Starts redis-server on a host. Throws if the port is taken. */
  startRedis(hostName: string, opts: RedisProcessOptions = {}): RedisProcess {
    const host = this.host(hostName);
    if (!host.powered) throw new Error(`${hostName} is powered off`);
    const argv = ['redis-server', `*:${opts.port ?? 6379}`];
    const proc = host.spawn(new RedisProcess(host, argv, opts));
    if (!proc.start(opts.unixSocket)) {
      host.reap(proc, 1, 'exited');
      throw new Error(`${hostName}:${opts.port ?? 6379}: Address already in use`);
    }
    return proc;
  }

  /** The running redis-server listening on `host:port`, if any. */
  redis(hostName: string, port = 6379): RedisProcess | undefined {
    for (const p of this.host(hostName).processes.values()) if (p instanceof RedisProcess && p.port === port) return p;
    return undefined;
  }

  /**
   * Opens a client connection from a host to 'host:port' (or
   * 'host:/path/to/socket' for a Unix socket on the same host).
   */
  connect(opts: { from: string; to: string; client?: ClientCpuName | ClientCpuCosts }): Redis {
    const from = this.host(opts.from);
    const m = /^([^:]+):(.+)$/.exec(opts.to);
    if (!m) throw new Error(`expected host:port, got ${JSON.stringify(opts.to)}`);
    const toHost = m[1]!;
    this.host(toHost);
    const port: number | string = /^\d+$/.test(m[2]!) ? Number(m[2]) : m[2]!;
    if (typeof port === 'string' && toHost !== opts.from) throw new Error('a Unix socket is only reachable from its own host');
    const costs = typeof opts.client === 'object' ? opts.client : CLIENT_CPU[opts.client ?? 'node'];
    const socket = this.network.connect(from, toHost, port);
    return new Redis(this.kernel, socket, { costs, cpuSpeed: from.profile.cpuSpeed });
  }

  advance(ms: number): void {
    this.kernel.advance(ms);
  }

  advanceAsync(ms: number): Promise<void> {
    return this.kernel.advanceAsync(ms);
  }

  runUntil(done: () => boolean, opts?: { maxMs?: number }): boolean {
    return this.kernel.runUntil(done, opts);
  }

  /** Runs the world until the promise settles; resolves its value. */
  settle<T>(promise: Promise<T>, opts?: { maxMs?: number }): Promise<T> {
    return this.kernel.settle(promise, opts);
  }

  get trace() {
    return this.kernel.trace;
  }
}
