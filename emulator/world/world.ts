import { execFlight, Redis, type PipelineResult, type ReplyTap } from '../client-library/redis.js';
import type { ClientValue } from '../client-library/values.js';
import { CLIENT_CPU, type ClientCpuCosts, type ClientCpuName } from '../sim/cpu.js';
import { Host, HOST_PROFILES, type HostProfile, type HostProfileName, type SimProcess } from '../sim/host.js';
import { Kernel, type KernelOptions } from '../sim/kernel.js';
import { LINK_PROFILES, type LinkProfile, type LinkProfileName } from '../sim/links.js';
import { Network } from '../sim/network.js';
import { RedisProcess, type RedisProcessOptions } from '../process/redis-process.js';
import { AckTrace, LEDGER_KINDS } from './ack-trace.js';
import { Session } from './terminal-session.js';

/**
 * Everything that can happen to a world from outside, as plain data. The
 * world records each one with the point of its history where it happened
 * (events run so far, virtual time), so a checkpoint is the seed plus this
 * list, and a restored world replays it to the same state, then continues
 * exactly as the original would have.
 */
export type WorldAction =
  | { kind: 'addHost'; name: string; profile: HostProfileName | HostProfile }
  | { kind: 'link'; a: string; b: string; profile: LinkProfileName | LinkProfile }
  /** Starts a daemon (redis-server; next, redis-sentinel) on a host; see World.registerDaemon. */
  | { kind: 'spawn'; host: string; program: string; opts: unknown }
  /** How logs recorded before `spawn` existed started redis-server; replayed as a spawn of it. */
  | { kind: 'startRedis'; host: string; opts: RedisProcessOptions }
  | { kind: 'partition'; a: string; b: string; oneWay: boolean }
  | { kind: 'heal'; a?: string; b?: string }
  | { kind: 'powerOff'; host: string }
  | { kind: 'powerOn'; host: string }
  | { kind: 'signal'; host: string; pid: number; sig: 'TERM' | 'KILL' | 'INT' }
  | { kind: 'openSession'; id: string; from: string; to: string }
  | { kind: 'send'; id: string; argv: string[] }
  | { kind: 'closeSession'; id: string }
  | { kind: 'openClient'; id: string; from: string; to: string; client: ClientCpuName | ClientCpuCosts }
  | { kind: 'clientSend'; id: string; argvs: string[][]; flight: ClientFlight }
  /**
   * A client that finds its primary through Sentinel and follows it
   * (ioredis's `new Redis({ sentinels, name })`); opened by the code that
   * registerSentinelClients() installs (world/sentinel-client.ts).
   */
  | { kind: 'openSentinelClient'; id: string; from: string; sentinels: { host: string; port: number }[]; name: string; client: ClientCpuName | ClientCpuCosts }
  | { kind: 'closeClient'; id: string }
  | { kind: 'program'; name: string; args: unknown };

/**
 * How a recorded client sends its commands: one command, a plain pipeline,
 * or a MULTI/EXEC transaction (each pipeline in one flight, as ioredis does).
 */
export type ClientFlight = 'command' | 'pipeline' | 'multi';

/** What World.clientSend resolves: a command's value, or a flight's [error, value] pairs (null: EXEC aborted by WATCH). */
export type ClientSendResult = ClientValue | PipelineResult | null;

export interface RecordedAction {
  /** Kernel events run before it. */
  readonly n: number;
  /** Virtual time (us since the Unix epoch). */
  readonly t: number;
  readonly action: WorldAction;
}

/** A world as plain data (JSON-safe). */
export interface WorldCheckpoint {
  readonly version: 1;
  readonly seed: number;
  readonly startUs: number;
  readonly nowUs: number;
  readonly eventsRun: number;
  readonly actions: RecordedAction[];
  /**
   * False when code outside the action log drove the world (the client
   * library through connect()); such a world's checkpoint holds only what
   * the actions did.
   */
  readonly complete: boolean;
}

/**
 * A recorded client that is not a plain connection (the Sentinel-following
 * client): it sends a flight of byte-string commands the way clientSend
 * does, on whatever connection it holds then.
 */
export interface FlightClient {
  sendRecorded(argvs: string[][], flight: ClientFlight): Promise<ClientSendResult>;
  disconnect(): void;
}

/** What World.clients holds: plain connections and clients that follow a primary. */
export type WorldClient = Redis | FlightClient;

/** Opens a Sentinel-following client for an openSentinelClient action, with a dial that stays recorded. */
export type SentinelClientOpener = (
  kernel: Kernel,
  dial: (host: string, port: number) => Redis,
  opts: { sentinels: { host: string; port: number }[]; name: string },
) => FlightClient;

/** Hears of an outside action before it runs (World.onAction). */
export type ActionListener = (rec: RecordedAction, world: World) => void;

/** A program that can be started by a recorded action (the host shell, tools). */
export type ProgramHandler = (world: World, args: unknown) => void;

/**
 * Starts a daemon on a host for a `spawn` action: spawns its process and
 * starts it, or throws what went wrong (a port in use).
 */
export type DaemonStarter = (host: Host, opts: unknown) => SimProcess;

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
  readonly sessions = new Map<string, Session>();
  /** Client-library connections opened by recorded actions (openClient), by id. */
  readonly clients = new Map<string, WorldClient>();
  /** Set by registerSentinelClients (world/sentinel-client.ts), so that world.ts does not load the client. */
  private sentinelOpener: SentinelClientOpener | null = null;
  private readonly actions: RecordedAction[] = [];
  private readonly programs = new Map<string, ProgramHandler>();
  private readonly daemons = new Map<string, DaemonStarter>([['redis-server', (host, opts) => this.startRedisOn(host, opts as RedisProcessOptions)]]);
  /** How redis-server was last started on each host, by port (redisLaunches). */
  private readonly launches = new Map<string, Map<number, RedisProcessOptions>>();
  /** Nesting of apply(): only the outermost action is recorded. */
  private depth = 0;
  private actionListeners: ActionListener[] = [];
  /** The outermost action being applied. */
  private acting: RecordedAction | null = null;
  /** Set once code outside the action log drives the world (connect()). */
  private unrecorded = false;
  /** What each client the world made was told, written into the trace for the acknowledged-writes ledger (ack-trace.ts). */
  private readonly acks = new WeakMap<Redis, AckTrace>();
  /** Given to every client the world makes. */
  private readonly tapReply: ReplyTap = (client, argv, reply) => {
    let a = this.acks.get(client);
    if (a === undefined) this.acks.set(client, (a = new AckTrace(this, client.socket)));
    a.reply(argv, reply);
  };

  constructor(opts: KernelOptions = {}) {
    this.kernel = new Kernel(opts);
    this.network = new Network(this.kernel, (name) => this.hosts.get(name), () => this.hosts.values());
    this.kernel.trace.keep(LEDGER_KINDS);
  }

  /**
   * Runs an action from outside and records it. Errors are thrown to the
   * caller as usual. The action listeners hear of it first, while the
   * world is still as it was before it (a checkpoint taken then leaves it
   * out).
   */
  apply(action: WorldAction): unknown {
    if (this.depth === 0) {
      const rec: RecordedAction = { n: this.kernel.eventsRun, t: this.kernel.now, action: copyAction(action) };
      for (const l of [...this.actionListeners]) l(rec, this);
      this.actions.push(rec);
      this.acting = rec;
    }
    this.depth++;
    try {
      return this.run(action);
    } finally {
      this.depth--;
      if (this.depth === 0) this.acting = null;
    }
  }

  /**
   * Calls `listener` before every outside action (the outermost apply()),
   * with the action as it will be recorded. Returns the unsubscribe.
   *
   *   world.onAction((rec) => { if (rec.action.kind === 'powerOff') saved = world.checkpoint(); });
   */
  onAction(listener: ActionListener): () => void {
    this.actionListeners.push(listener);
    return () => {
      this.actionListeners = this.actionListeners.filter((l) => l !== listener);
    };
  }

  /** The outside action running now (trace entries added meanwhile are its doing), or null. */
  get currentAction(): RecordedAction | null {
    return this.acting;
  }

  /** Whether the action log holds everything that drove the world (see WorldCheckpoint.complete). */
  get complete(): boolean {
    return !this.unrecorded;
  }

  /** How many actions have been recorded. */
  get actionCount(): number {
    return this.actions.length;
  }

  /**
   * The recorded actions from index `start` on, without copying them (a
   * checkpoint copies them all): for a saver that keeps what it has already
   * written. The records are never changed after they are recorded; do not
   * change them either.
   */
  actionsFrom(start: number): readonly RecordedAction[] {
    return this.actions.slice(start);
  }

  private run(a: WorldAction): unknown {
    switch (a.kind) {
      case 'addHost':
        return this.addHostNow(a.name, a.profile);
      case 'link':
        return this.linkNow(a.a, a.b, a.profile);
      case 'spawn':
        return this.spawnNow(a.host, a.program, a.opts);
      case 'startRedis':
        return this.spawnNow(a.host, 'redis-server', a.opts);
      case 'partition':
        this.host(a.a);
        this.host(a.b);
        return this.network.partition(a.a, a.b, a.oneWay);
      case 'heal':
        return this.network.heal(a.a, a.b);
      case 'powerOff':
        return this.host(a.host).powerOff();
      case 'powerOn':
        return this.host(a.host).powerOn();
      case 'signal': {
        const p = this.host(a.host).process(a.pid);
        if (p === undefined) throw new Error(`kill: (${a.pid}) - No such process`);
        return p.signal(a.sig);
      }
      case 'openSession':
        return this.openSessionNow(a.id, a.from, a.to);
      case 'send': {
        const s = this.sessions.get(a.id);
        if (s === undefined) throw new Error(`no session ${a.id}`);
        return s.send(a.argv);
      }
      case 'closeSession': {
        const s = this.sessions.get(a.id);
        s?.socket.end();
        this.sessions.delete(a.id);
        return undefined;
      }
      case 'openClient':
        return this.openClientNow(a.id, a.from, a.to, a.client);
      case 'clientSend': {
        const c = this.clients.get(a.id);
        if (c === undefined) throw new Error(`no client ${a.id}`);
        const p = sendOn(c, a.argvs, a.flight);
        // A replayed send has no one waiting on it; its failure is not an error of the replay.
        p.catch(() => {});
        return p;
      }
      case 'openSentinelClient':
        return this.openSentinelClientNow(a);
      case 'closeClient': {
        const c = this.clients.get(a.id);
        this.clients.delete(a.id);
        c?.disconnect();
        return undefined;
      }
      case 'program': {
        const handler = this.programs.get(a.name);
        if (handler === undefined) throw new Error(`no program named ${a.name}`);
        return handler(this, a.args);
      }
    }
  }

  /** Makes a program startable by a recorded action: world.apply({ kind: 'program', name, args }). */
  registerProgram(name: string, handler: ProgramHandler): void {
    this.programs.set(name, handler);
  }

  /** A terminal connection to a server, owned by the world (see terminal-session.ts). */
  openSession(id: string, from: string, to: string): Session {
    return this.apply({ kind: 'openSession', id, from, to }) as Session;
  }

  /** Sends a command on a session. */
  send(id: string, argv: string[]): boolean {
    return this.apply({ kind: 'send', id, argv }) as boolean;
  }

  partition(a: string, b: string, oneWay = false): void {
    this.apply({ kind: 'partition', a, b, oneWay });
  }

  heal(a?: string, b?: string): void {
    this.apply({ kind: 'heal', a, b });
  }

  powerOff(host: string): void {
    this.apply({ kind: 'powerOff', host });
  }

  powerOn(host: string): void {
    this.apply({ kind: 'powerOn', host });
  }

  signal(host: string, pid: number, sig: 'TERM' | 'KILL' | 'INT'): void {
    this.apply({ kind: 'signal', host, pid, sig });
  }

  /**
   * A client-library connection (the ioredis-shaped Redis, with its CPU
   * costs) whose every command is a recorded action, so a checkpoint holds
   * what it did, unlike connect(). The workbook's code cells use it.
   *
   *   world.openClient('c1', { from: 'app', to: 'redis:6379', client: 'python' });
   *   await world.settle(world.clientSend('c1', [['SET', 'k', 'v']]));            // 'OK'
   *   await world.settle(world.clientSend('c1', [['INCR', 'n'], ['GET', 'n']], 'pipeline'));   // [[null, 1], [null, '1']]
   */
  openClient(id: string, opts: { from: string; to: string; client?: ClientCpuName | ClientCpuCosts }): Redis {
    return this.apply({ kind: 'openClient', id, from: opts.from, to: opts.to, client: opts.client ?? 'node' }) as Redis;
  }

  /** Sends commands (byte-string argvs) on a recorded client: one command, or all of them in one flight. */
  clientSend(id: string, argvs: string[][], flight: ClientFlight = 'command'): Promise<ClientSendResult> {
    return this.apply({ kind: 'clientSend', id, argvs, flight }) as Promise<ClientSendResult>;
  }

  /** Closes a recorded client's connection now. */
  closeClient(id: string): void {
    this.apply({ kind: 'closeClient', id });
  }

  /**
   * Makes openSentinelClient actions possible (see world/sentinel-client.ts,
   * which calls it); a world restored from a checkpoint that holds such
   * actions needs it in its setup.
   */
  registerSentinelClients(opener: SentinelClientOpener): void {
    this.sentinelOpener = opener;
  }

  /** Whether registerSentinelClients has been called. */
  get sentinelClientsRegistered(): boolean {
    return this.sentinelOpener !== null;
  }

  /**
   * A recorded client given `{ sentinels, name }`: it asks the sentinels
   * for the primary and follows it across a failover; every command it
   * sends is a clientSend action, as for openClient.
   */
  openSentinelClient(id: string, opts: { from: string; sentinels: { host: string; port: number }[]; name: string; client?: ClientCpuName | ClientCpuCosts }): FlightClient {
    return this.apply({ kind: 'openSentinelClient', id, from: opts.from, sentinels: opts.sentinels, name: opts.name, client: opts.client ?? 'node' }) as FlightClient;
  }

  private openSentinelClientNow(a: Extract<WorldAction, { kind: 'openSentinelClient' }>): FlightClient {
    if (this.sentinelOpener === null) throw new Error('Sentinel clients are not loaded in this world (registerSentinelClients)');
    if (this.clients.has(a.id)) throw new Error(`client ${a.id} already exists`);
    if (a.sentinels.length === 0) throw new Error('at least one sentinel is needed');
    const c = this.sentinelOpener(this.kernel, this.dialFrom(a.from, a.client), { sentinels: a.sentinels, name: a.name });
    this.clients.set(a.id, c);
    return c;
  }

  private openClientNow(id: string, from: string, to: string, client: ClientCpuName | ClientCpuCosts): Redis {
    if (this.clients.has(id)) throw new Error(`client ${id} already exists`);
    const fromHost = this.host(from);
    const { host, port } = this.target(to, from);
    const costs = typeof client === 'object' ? client : CLIENT_CPU[client];
    if (costs === undefined) throw new Error(`unknown client profile: ${String(client)}`);
    const r = new Redis(this.kernel, this.network.connect(fromHost, host, port), { costs, cpuSpeed: fromHost.profile.cpuSpeed, onReply: this.tapReply });
    this.clients.set(id, r);
    return r;
  }

  private openSessionNow(id: string, from: string, to: string): Session {
    if (this.sessions.has(id)) throw new Error(`session ${id} already exists`);
    const { host, port } = this.target(to, from);
    const socket = this.network.connect(this.host(from), host, port);
    const acks = new AckTrace(this, socket);
    const s = new Session(id, from, to, socket, () => this.kernel.now - this.kernel.startUs, (argv, reply) => acks.reply(argv, reply));
    this.sessions.set(id, s);
    return s;
  }

  /** The world as plain data: the seed and every recorded action. */
  checkpoint(): WorldCheckpoint {
    return {
      version: 1,
      seed: this.kernel.seed,
      startUs: this.kernel.startUs,
      nowUs: this.kernel.now,
      eventsRun: this.kernel.eventsRun,
      actions: this.actions.map((a) => structuredCloneData(a)),
      complete: !this.unrecorded,
    };
  }

  /**
   * Rebuilds a world from a checkpoint by replaying its actions at the same
   * points of its history. Programs used by recorded actions must be
   * registered first (`setup`).
   */
  static restore(cp: WorldCheckpoint, setup?: (world: World) => void): World {
    const replay = World.replay(cp, setup);
    while (!replay.step(() => false));
    return replay.world;
  }

  /**
   * A restore that runs in steps, for a host that must not block for long
   * (the page): call step() until it returns true, then use `world`.
   *
   *   const r = World.replay(cp, registerShellProgram);
   *   const slice = () => (r.step(() => performance.now() > deadline) ? done(r.world) : requestAnimationFrame(slice));
   */
  static replay(cp: WorldCheckpoint, setup?: (world: World) => void): WorldReplay {
    if (cp.version !== 1) throw new Error(`unknown checkpoint version ${String(cp.version)}`);
    const world = new World({ seed: cp.seed, startUs: cp.startUs });
    setup?.(world);
    return new WorldReplay(world, cp, (n, t, limit) => world.replayTo(n, t, limit));
  }

  /**
   * Runs events until `n` have run, none later than `t`, then sets the
   * clock to `t`. Returns false when `limit` said to stop first.
   */
  private replayTo(n: number, t: number, limit: () => boolean): boolean {
    const k = this.kernel;
    let count = 0;
    while (k.eventsRun < n) {
      if ((++count & 255) === 0 && limit()) return false;
      if (!k.step(t)) break;
    }
    if (t > k.now) k.now = t;
    return true;
  }

  addHost(name: string, profile: HostProfileName | HostProfile = 'metal'): Host {
    return this.apply({ kind: 'addHost', name, profile }) as Host;
  }

  private addHostNow(name: string, profile: HostProfileName | HostProfile): Host {
    if (this.hosts.has(name)) throw new Error(`host ${name} already exists`);
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) throw new Error(`bad host name: ${JSON.stringify(name)}`);
    const p = typeof profile === 'string' ? HOST_PROFILES[profile] : profile;
    if (p === undefined) throw new Error(`unknown host profile: ${String(profile)}`);
    const host = new Host(this.kernel, this.network, name, p, `10.0.${Math.floor((this.hosts.size + 1) / 250)}.${((this.hosts.size + 1) % 250) + 1}`);
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
    this.apply({ kind: 'link', a, b, profile });
  }

  private linkNow(a: string, b: string, profile: LinkProfileName | LinkProfile): void {
    this.host(a);
    this.host(b);
    const p = typeof profile === 'string' ? LINK_PROFILES[profile] : profile;
    if (p === undefined) throw new Error(`unknown link profile: ${String(profile)}`);
    this.network.setLink(a, b, p);
  }

  /** Starts redis-server on a host. Throws if the port is taken. */
  startRedis(hostName: string, opts: RedisProcessOptions = {}): RedisProcess {
    return this.spawn(hostName, 'redis-server', opts) as RedisProcess;
  }

  /**
   * Starts a daemon on a host, recorded as a `spawn` action: redis-server,
   * or a program registered with registerDaemon (redis-sentinel).
   */
  spawn(hostName: string, program: string, opts: unknown = {}): SimProcess {
    return this.apply({ kind: 'spawn', host: hostName, program, opts }) as SimProcess;
  }

  /** Makes a daemon startable by a `spawn` action, as redis-server is. */
  registerDaemon(program: string, start: DaemonStarter): void {
    this.daemons.set(program, start);
  }

  /** Whether a daemon's code is registered (a program loaded on demand may not be yet). */
  hasDaemon(program: string): boolean {
    return this.daemons.has(program);
  }

  private spawnNow(hostName: string, program: string, opts: unknown): SimProcess {
    const start = this.daemons.get(program);
    if (start === undefined) throw new Error(`no daemon named ${program}`);
    const host = this.host(hostName);
    if (!host.powered) throw new Error(`${hostName} is powered off`);
    return start(host, opts);
  }

  private startRedisOn(host: Host, opts: RedisProcessOptions): RedisProcess {
    const argv = ['redis-server', `*:${opts.port ?? 6379}`];
    const proc = host.spawn(new RedisProcess(host, argv, opts));
    if (!proc.start(opts.unixSocket)) {
      host.reap(proc, 1, 'exited');
      throw new Error(`${host.name}:${opts.port ?? 6379}: Address already in use`);
    }
    let ports = this.launches.get(host.name);
    if (ports === undefined) this.launches.set(host.name, (ports = new Map()));
    ports.set(proc.port, structuredCloneData(opts));
    return proc;
  }

  /**
   * How each redis-server of a host was last started, by port, whether it
   * still runs or not, so that a panel can start it again the same way.
   */
  redisLaunches(hostName: string): ReadonlyMap<number, RedisProcessOptions> {
    return this.launches.get(hostName) ?? new Map();
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
    const { host: toHost, port } = this.target(opts.to, opts.from);
    this.unrecorded = true;
    const costs = typeof opts.client === 'object' ? opts.client : CLIENT_CPU[opts.client ?? 'node'];
    const socket = this.network.connect(from, toHost, port);
    return new Redis(this.kernel, socket, { costs, cpuSpeed: from.profile.cpuSpeed, onReply: this.tapReply });
  }

  /**
   * Opens client-library connections from a host to a host name or an
   * address, as a client that learns addresses at run time needs (the
   * Sentinel-following client of world/sentinel-client.ts).
   */
  dialer(fromName: string, client: ClientCpuName | ClientCpuCosts = 'node'): (host: string, port: number) => Redis {
    const dial = this.dialFrom(fromName, client);
    this.unrecorded = true;
    return dial;
  }

  /** The dial of dialer(), for recorded clients too (it does not mark the world unrecorded). */
  private dialFrom(fromName: string, client: ClientCpuName | ClientCpuCosts): (host: string, port: number) => Redis {
    const from = this.host(fromName);
    const costs = typeof client === 'object' ? client : CLIENT_CPU[client];
    if (costs === undefined) throw new Error(`unknown client profile: ${String(client)}`);
    return (host, port) => {
      const to = this.network.resolve(from.name, host) ?? host;
      return new Redis(this.kernel, this.network.connect(from, to, port), { costs, cpuSpeed: from.profile.cpuSpeed, onReply: this.tapReply });
    };
  }

  /** Parses 'host:port' or 'host:/unix/path' (reachable only from the same host). */
  private target(to: string, from: string): { host: string; port: number | string } {
    const m = /^([^:]+):(.+)$/.exec(to);
    if (!m) throw new Error(`expected host:port, got ${JSON.stringify(to)}`);
    const host = m[1]!;
    this.host(host);
    const port: number | string = /^\d+$/.test(m[2]!) ? Number(m[2]) : m[2]!;
    if (typeof port === 'string' && host !== from) throw new Error('a Unix socket is only reachable from its own host');
    return { host, port };
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

/**
 * A restore in progress (World.replay): the new world replays the
 * checkpoint's actions a slice at a time.
 */
export class WorldReplay {
  private next = 0;
  private finished = false;

  constructor(
    readonly world: World,
    private readonly cp: WorldCheckpoint,
    private readonly replayTo: (n: number, t: number, limit: () => boolean) => boolean,
  ) {}

  /** How far the replay has come, from 0 to 1, by events run. */
  get progress(): number {
    if (this.finished) return 1;
    return this.cp.eventsRun === 0 ? this.next / Math.max(1, this.cp.actions.length) : Math.min(1, this.world.kernel.eventsRun / this.cp.eventsRun);
  }

  get done(): boolean {
    return this.finished;
  }

  /**
   * Replays on until the end or until `limit()` returns true (asked every
   * few hundred events and after each action). Returns whether the world
   * has reached the checkpoint; throws if it does not replay to the same
   * point.
   */
  step(limit: () => boolean): boolean {
    const { cp, world } = this;
    const k = world.kernel;
    while (!this.finished) {
      const rec = cp.actions[this.next];
      if (rec === undefined) {
        if (!this.replayTo(cp.eventsRun, cp.nowUs, limit)) return false;
        if (k.eventsRun !== cp.eventsRun || k.now !== cp.nowUs) throw new Error('the checkpoint does not replay to the same point');
        this.finished = true;
        break;
      }
      if (!this.replayTo(rec.n, rec.t, limit)) return false;
      this.next++;
      try {
        world.apply(rec.action);
      } catch {
        // It failed the same way the first time; the failure was the caller's to see.
      }
      if (limit()) return this.finished;
    }
    return true;
  }
}

/** Sends a recorded flight on a client: one command, a pipeline, or MULTI/EXEC. */
function sendOn(c: WorldClient, argvs: string[][], flight: ClientFlight): Promise<ClientSendResult> {
  if (!(c instanceof Redis)) return c.sendRecorded(argvs, flight);
  return flight === 'command' ? c.sendFlight(argvs.slice(0, 1), [false])[0]! : execFlight(c, argvs, flight === 'multi');
}

/**
 * A copy of an action for the log. Commands are the bulk of a busy log (a
 * client's benchmark sends thousands a second), and their argument lists
 * hold only strings, so they are copied directly.
 */
function copyAction(a: WorldAction): WorldAction {
  if (a.kind === 'send') return { kind: 'send', id: a.id, argv: a.argv.slice() };
  if (a.kind === 'clientSend') return { kind: 'clientSend', id: a.id, argvs: a.argvs.map((argv) => argv.slice()), flight: a.flight };
  return structuredCloneData(a);
}

/** A deep copy of plain data (actions hold only JSON-like values). */
function structuredCloneData<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}
