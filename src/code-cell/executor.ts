import { argToBytes } from '../../emulator/index.js';
import { CLIENT_CPU, type ClientCpuName } from '../../emulator/sim/index.js';
import { RedisProcess } from '../../emulator/process/index.js';
import type { World } from '../../emulator/world/world.js';
import { parseCellMessage } from './cell-messages.js';
import type { CellError, CellMessage, CellRequest, CellResult, CellShard, PageMessage } from './protocol.js';
import { sentinelCodeFor } from './sentinel-code.js';
import { toWireError, toWireValue } from './wire-values.js';
import type { ShardAddress, ShardRouter, ShardSend } from '../../emulator/world/sharded-client.js';
import { shardCode, shardCodeFor } from './shard-code.js';

export interface CellEnd {
  /** What the cell threw, or why the page ended it; null when it ran to its end. */
  readonly error: CellError | null;
  /** Ended by stop(). */
  readonly stopped: boolean;
}

export interface ExecutorOptions {
  readonly cellId: string;
  readonly source: string;
  /** The host the cell's clients run on. */
  readonly from: string;
  /** The server `redis` and connect() reach by default ('host:port'); the world's first redis-server when absent. */
  readonly to?: string;
  /** The client's CPU profile when a connection names none (emulator/sim/cpu.ts). */
  readonly client?: ClientCpuName;
  /** Sends a message to the cell's code. */
  post(msg: PageMessage): void;
  /** Runs `fn` in a later task, after the page has handled what waits (input, painting). */
  later(fn: () => void): void;
  wallNowMs(): number;
  /** Wall ms of world work per task before giving the page its turn. */
  readonly budgetMs?: number;
  /** Virtual ms after which a run is ended (a bound for headless runs); none by default. */
  readonly maxVirtualMs?: number;
  /** The world ran or was changed by the cell (the page redraws). */
  onWorldChanged?(): void;
  /** A printed line. */
  onPrint?(line: string): void;
  /** Lines printed that the cell did not keep (it printed faster than they could be shown). */
  onDropped?(lines: number): void;
  onReport?(name: string, value: unknown): void;
  /** progress(text, fraction): what a long run is doing now, and how far it is (null: unknown). */
  onProgress?(text: string, fraction: number | null): void;
  onEnd(end: CellEnd): void;
}

interface Sleep {
  readonly id: number;
  readonly untilUs: number;
}

/** Client ids already used per world, so each connection of any cell has its own. */
const clientCounters = new WeakMap<World, number>();

/**
 * The page's side of a running code cell. It turns the cell's requests
 * into recorded actions of the world (World.openClient / clientSend /
 * closeClient: each connection is a real emulator client with its CPU
 * costs, and a checkpoint replays what the cell did), and drives virtual
 * time in lockstep with the cell: the world stays still while the cell
 * computes, and runs as fast as it can, a budget of wall time per task,
 * while the cell waits, until the first of its commands or sleeps is
 * answered.
 *
 *   const ex = new CellExecutor(world, { cellId: 'a', source, from: 'app', post: (m) => worker.postMessage(m), ... });
 *   worker.onmessage = (e) => ex.receive(e.data);
 *   ex.start();
 */
export class CellExecutor {
  private readonly conns = new Map<number, string>();
  /** Messages that arrived while a Sentinel client's code was loading, in order; null when none loads. */
  private held: unknown[] | null = null;
  /**
   * Sharded connections: the rules that place each command, and the
   * world's recorded clients to each server, opened on first use. Only
   * the clients are recorded actions; the placement is the same again
   * when a checkpoint replays them.
   */
  private readonly sharded = new Map<number, { router: ShardRouter; from: string; client: ClientCpuName; clients: Map<string, string> }>();
  /** Connections that could not be opened, with why: their commands fail with it. */
  private readonly failedOpens = new Map<number, string>();
  private readonly pending = new Set<number>();
  private sleeps: Sleep[] = [];
  private completed: CellResult[] = [];
  /** The cell has been sent answers and has not yet said it waits again. */
  private awaitingCell = true;
  private running = false;
  private endedWith: CellEnd | null = null;
  private readonly defaultTo: string;
  private readonly budgetMs: number;
  private readonly maxUntilUs: number;

  constructor(
    readonly world: World,
    private readonly opts: ExecutorOptions,
  ) {
    this.defaultTo = opts.to ?? defaultServer(world);
    this.budgetMs = opts.budgetMs ?? 8;
    this.maxUntilUs = opts.maxVirtualMs === undefined ? Infinity : world.kernel.now + Math.round(opts.maxVirtualMs * 1000);
  }

  get ended(): boolean {
    return this.endedWith !== null;
  }

  /** Sends the cell its source and the clock. */
  start(): void {
    const k = this.world.kernel;
    this.opts.post({ type: 'start', cellId: this.opts.cellId, source: this.opts.source, nowUs: k.now, startUs: k.startUs });
  }

  /** Ends the run now: the cell's connections are closed; nothing more is delivered. */
  stop(): void {
    this.finish({ error: null, stopped: true });
  }

  /** A message from the cell's code (untrusted: checked before use). */
  receive(data: unknown): void {
    if (this.endedWith !== null) return;
    if (this.held !== null) {
      this.held.push(data);
      return;
    }
    const msg = parseCellMessage(data);
    if (typeof msg === 'string') {
      this.finish({ error: pageError(`The cell sent a message the page cannot read (${msg}).`), stopped: false });
      return;
    }
    // A Sentinel client's code is loaded on its first use; the world stays
    // still meanwhile (it moves only in run()), so the wait costs no virtual time.
    const loads = msg.type === 'step' || msg.type === 'done' ? [sentinelCodeFor(this.world, msg.requests), shardCodeFor(msg.requests)].filter((p) => p !== null) : [];
    const loading = loads.length === 0 ? null : Promise.all(loads);
    if (loading !== null) {
      const held: unknown[] = [];
      this.held = held;
      void loading.then(() => {
        this.held = null;
        if (this.endedWith !== null) return;
        this.handle(msg);
        for (const d of held) this.receive(d);
      });
      return;
    }
    this.handle(msg);
  }

  private handle(msg: CellMessage): void {
    switch (msg.type) {
      case 'print':
        if (msg.dropped !== 0) this.opts.onDropped?.(msg.dropped);
        for (const line of msg.lines) this.opts.onPrint?.(line);
        return;
      case 'report':
        this.opts.onReport?.(msg.name, msg.value);
        return;

      case 'done':
        this.apply(msg.requests);
        this.finish({ error: msg.error, stopped: false });
        return;
      case 'step':
        if (msg.progress !== undefined) this.opts.onProgress?.(msg.progress.text, msg.progress.fraction);
        this.apply(msg.requests);
        this.awaitingCell = false;
        void this.run();
        return;
    }
  }

  /** Carries out requests at the world's present point, in order. */
  private apply(requests: readonly CellRequest[]): void {
    if (requests.length === 0) return;
    for (const r of requests) {
      switch (r.op) {
        case 'open':
          if (r.shards !== undefined) this.openSharded(r.conn, r.from ?? this.opts.from, r.shards, r.scaleReads, r.client ?? this.opts.client ?? 'node');
          else this.open(r.conn, r.from ?? this.opts.from, r.to ?? this.defaultTo, r.client ?? this.opts.client ?? 'node', r.sentinels === undefined ? null : { sentinels: r.sentinels.map((s) => ({ ...s })), name: r.name ?? '' });
          break;
        case 'send':
          this.send(r.id, r.conn, r.flight, r.argvs);
          break;
        case 'close': {
          const id = this.conns.get(r.conn);
          this.conns.delete(r.conn);
          if (id !== undefined) this.world.closeClient(id);
          for (const cid of this.sharded.get(r.conn)?.clients.values() ?? []) this.world.closeClient(cid);
          this.sharded.delete(r.conn);
          this.completed.push({ id: r.id, ok: true, value: 'OK' });
          break;
        }
        case 'sleep':
          this.sleeps.push({ id: r.id, untilUs: this.world.kernel.now + Math.max(0, Math.round(r.ms * 1000)) });
          break;
      }
    }
    this.opts.onWorldChanged?.();
  }

  private open(conn: number, from: string, to: string, client: string, sentinel: SentinelChoice | null): void {
    if (this.conns.has(conn) || this.sharded.has(conn) || this.failedOpens.has(conn)) return;
    if (!(client in CLIENT_CPU)) {
      this.failedOpens.set(conn, `unknown client "${client}": use ${Object.keys(CLIENT_CPU).join(', ')}`);
      return;
    }
    try {
      this.conns.set(conn, this.openClient(from, to, client as ClientCpuName, sentinel));
    } catch (e) {
      this.failedOpens.set(conn, toWireError(e).message);
    }
  }

  /** A recorded client of the world, under an id no other connection of any cell has used. */
  private openClient(from: string, to: string, client: ClientCpuName, sentinel: SentinelChoice | null = null): string {
    let n = clientCounters.get(this.world) ?? 0;
    let id: string;
    do id = `cell-${++n}`;
    while (this.world.clients.has(id));
    clientCounters.set(this.world, n);
    if (sentinel === null) this.world.openClient(id, { from, to, client });
    else this.world.openSentinelClient(id, { from, ...sentinel, client });
    return id;
  }

  private openSharded(conn: number, from: string, shards: readonly CellShard[], scaleReads: 'master' | 'slave' | 'all' | undefined, client: string): void {
    if (this.conns.has(conn) || this.sharded.has(conn) || this.failedOpens.has(conn)) return;
    if (!(client in CLIENT_CPU)) {
      this.failedOpens.set(conn, `unknown client "${client}": use ${Object.keys(CLIENT_CPU).join(', ')}`);
      return;
    }
    try {
      const code = shardCode();
      if (code === null) throw new Error('the sharding code could not be loaded');
      const router = new code.ShardRouter({ shards: shards.map((s) => ({ primary: address(s.primary), replicas: s.replicas.map(address) })), scaleReads });
      this.sharded.set(conn, { router, from, client: client as ClientCpuName, clients: new Map() });
    } catch (e) {
      this.failedOpens.set(conn, toWireError(e).message);
    }
  }

  /** Sends a sharded connection's commands: the router picks each server, the world's recorded clients carry them. */
  private sendSharded(conn: number, argvs: string[][], flight: 'command' | 'pipeline' | 'multi'): Promise<unknown> {
    const s = this.sharded.get(conn)!;
    const send: ShardSend = (to, batch, fl) => {
      const key = `${to.host}:${to.port}`;
      let id = s.clients.get(key);
      if (id === undefined || !this.world.clients.has(id)) {
        id = this.openClient(s.from, key, s.client);
        s.clients.set(key, id);
      }
      return this.world.clientSend(id, batch, fl);
    };
    return s.router.send(argvs, flight, send);
  }

  private send(reqId: number, conn: number, flight: 'command' | 'pipeline' | 'multi', argvs: readonly (readonly unknown[])[]): void {
    const id = this.conns.get(conn);
    if (id === undefined && !this.sharded.has(conn)) {
      const why = this.failedOpens.get(conn) ?? 'Connection is closed.';
      this.completed.push({ id: reqId, ok: false, error: { name: 'Error', message: why } });
      return;
    }
    const bytes = argvs.map((argv) => argv.map((a) => argToBytes(a as string)));
    this.pending.add(reqId);
    (id !== undefined ? this.world.clientSend(id, bytes, flight) : this.sendSharded(conn, bytes, flight)).then(
      (value) => {
        this.pending.delete(reqId);
        this.completed.push({ id: reqId, ok: true, value: toWireValue(value) });
      },
      (e: unknown) => {
        this.pending.delete(reqId);
        this.completed.push({ id: reqId, ok: false, error: toWireError(e) });
      },
    );
  }

  /**
   * Runs the world until something the cell waits for is answered, then
   * delivers it. Gives the page a turn every budget of wall time.
   */
  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      // Commands on a closed connection fail without the world moving.
      if (this.pending.size !== 0) await this.drain();
      const k = this.world.kernel;
      for (;;) {
        if (this.endedWith !== null || this.awaitingCell) return;
        if (this.completed.length !== 0) {
          this.deliver();
          return;
        }
        if (this.pending.size === 0 && this.sleeps.length === 0) {
          this.finish({ error: pageError('The cell is waiting for something the world will never do: none of its commands or sleeps is pending.'), stopped: false });
          return;
        }
        // The wall clock is read every 64 steps, from the first such read: most turns take fewer steps and read it never.
        let started = -1;
        let steps = 0;
        for (;;) {
          const wake = this.nextWake();
          const limit = Math.min(wake, this.maxUntilUs);
          if (!k.step(limit)) {
            if (limit === Infinity) {
              this.finish({ error: pageError('Nothing in the world is left to answer the cell: no event is scheduled.'), stopped: false });
              return;
            }
            if (limit > k.now) k.now = limit;
            if (wake > this.maxUntilUs) {
              this.finish({ error: pageError(`The cell ran past its limit of ${this.opts.maxVirtualMs} ms of virtual time.`), stopped: false });
              return;
            }
            this.wakeSleepers();
            break;
          }
          if (k.promisesSettled) {
            k.promisesSettled = false;
            await this.drain();
            if (this.endedWith !== null) return;
            if (this.completed.length !== 0) break;
          }
          if ((++steps & 63) === 0) {
            const now = this.opts.wallNowMs();
            if (started < 0) started = now;
            else if (now - started > this.budgetMs) {
              this.opts.onWorldChanged?.();
              await new Promise<void>((resolve) => this.opts.later(resolve));
              break;
            }
          }
        }
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * Lets promise reactions run until an answer for the cell is ready, or
   * long enough for any: a reply resolves the client's promise, and
   * pipelines and transactions settle through a few chained reactions.
   */
  private async drain(): Promise<void> {
    for (let i = 0; i < 32 && this.completed.length === 0; i++) await undefined;
  }

  private nextWake(): number {
    let t = Infinity;
    for (const s of this.sleeps) if (s.untilUs < t) t = s.untilUs;
    return t;
  }

  private wakeSleepers(): void {
    const now = this.world.kernel.now;
    const due = this.sleeps.filter((s) => s.untilUs <= now);
    if (due.length === 0) return;
    this.sleeps = this.sleeps.filter((s) => s.untilUs > now);
    for (const s of due) this.completed.push({ id: s.id, ok: true, value: null });
  }

  private deliver(): void {
    const results = this.completed;
    this.completed = [];
    this.awaitingCell = true;
    this.opts.onWorldChanged?.();
    this.opts.post({ type: 'deliver', nowUs: this.world.kernel.now, results });
  }

  private finish(end: CellEnd): void {
    if (this.endedWith !== null) return;
    this.endedWith = end;
    for (const id of this.conns.values()) this.world.closeClient(id);
    this.conns.clear();
    for (const s of this.sharded.values()) for (const id of s.clients.values()) this.world.closeClient(id);
    this.sharded.clear();
    this.pending.clear();
    this.sleeps = [];
    this.completed = [];
    this.opts.onWorldChanged?.();
    this.opts.onEnd(end);
  }
}

/** 'host:port' of the first redis-server running in the world (hosts in the order they were added). */
export function defaultServer(world: World): string {
  for (const host of world.hosts.values()) {
    for (const p of host.processes.values()) if (p instanceof RedisProcess && p.alive) return `${host.name}:${p.port}`;
  }
  for (const host of world.hosts.values()) return `${host.name}:6379`;
  return 'localhost:6379';
}

/** The sentinels a client asks for its primary, and the master's name. */
type SentinelChoice = { sentinels: { host: string; port: number }[]; name: string };

/** 'host:port' as an address; a port that is not a number is an error the cell sees. */
function address(text: string): ShardAddress {
  const m = /^([^:]+):(\d+)$/.exec(text);
  if (m === null) throw new Error(`a shard's server is "host:port", not ${JSON.stringify(text)}`);
  return { host: m[1]!, port: Number(m[2]) };
}

function pageError(message: string): CellError {
  return { name: 'Error', message, line: null, column: null };
}

