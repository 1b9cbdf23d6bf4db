import { encodeCommand } from '../resp/encode.js';
import { ErrorReply, type Reply } from '../resp/reply.js';
import { CLIENT_CPU, type ClientCpuCosts } from '../sim/cpu.js';
import { SimProcess, type Host } from '../sim/host.js';
import type { SimEvent } from '../sim/kernel.js';
import { NET_ERRORS, type NetError, type Socket } from '../sim/network.js';
import type { World } from '../world/world.js';
import { parseBenchmarkArgs, type BenchmarkArgsExit, type BenchmarkOptions } from './benchmark-args.js';
import {
  CSV_HEADER,
  csvRow,
  fullReport,
  progressLine,
  quietLine,
  testFigures,
  type HostConfig,
  type ProgressState,
} from './benchmark-report.js';
import { isSelected, PayloadGenerator, SUITE } from './benchmark-suite.js';
import { LatencyHistogram } from '../numbers/latency-histogram.js';
import { ReplyCounter } from './reply-counter.js';
import { RequestBuffer } from './request-buffer.js';
import { SetupExchange } from './setup-exchange.js';

/**
 * redis-benchmark 7.0.15 as a program in the simulated world. It runs the
 * real tool's tests in its order with its commands, over as many
 * connections as -c asks, on one event loop (or one per --threads), and
 * prints what the real tool prints, progress lines included. Every figure
 * is virtual time: a request's latency runs from the write of its flight
 * to the first read of its replies, as the real tool measures it, and the
 * tool's own CPU work (CLIENT_CPU.benchmark) keeps its thread busy.
 *
 *   const world = new World({ seed: 1 });
 *   world.addHost('A', 'core2duo');
 *   world.startRedis('A');
 *   const bench = startBenchmark(world, 'A', ['-c', '1', '-q'], (text) => console.log(text));
 *   world.runUntil(() => !bench.alive, { maxMs: 600_000 });
 *   bench.results[2];   // { name: 'SET', rps: 34246.57, p50Ms: 0.031, ... }
 *
 * Big runs go faster with `world.trace.commands = false`: the server then
 * stops recording every command in the trace.
 *
 * Where it knowingly differs from the real tool:
 * - -r numbers come from the world's seeded generator, not libc's random()
 *   seeded from the clock, so runs repeat exactly.
 * - With --threads, a thread left without requests to send always waits for
 *   its next 250 ms tick before it stops; the real tool's threads race, and
 *   sometimes a reply arrives first and stops them sooner.
 * - Replies that other connections receive after the one that completes the
 *   test are not counted; the real tool counts those that reach it in the
 *   same pass of its loop (a difference only when -P overshoots -n).
 * - A test's connections are all opened when it begins; the real tool opens
 *   them one after another. Its thread is busy for as long either way.
 * - --cluster stops after CLUSTER NODES, TLS options are refused, and -x
 *   reads an empty standard input.
 */

/** One finished test, with the figures as the tool printed them. */
export interface BenchmarkResult {
  name: string;
  /** Replies counted ("N requests completed"). */
  requests: number;
  seconds: number;
  /** Requests per second over the test's whole milliseconds, as printed. */
  rps: number;
  p50Ms: number;
  avgMs: number;
  minMs: number;
  maxMs: number;
  p95Ms: number;
  p99Ms: number;
  /** Writes of -P requests each. */
  flights: number;
  /** Virtual microseconds from the test's first write to the reply that ended it. */
  elapsedUs: number;
}

export interface BenchmarkStartOptions {
  /** Standard error; the standard output callback when not given. */
  err?: (text: string) => void;
  /** The tool's own CPU costs; CLIENT_CPU.benchmark by default. */
  costs?: ClientCpuCosts;
}

/**
 * Starts redis-benchmark on a host with the arguments after the program's
 * name. `-h` names a host of the world; 127.0.0.1 and localhost mean the
 * tool's own host. Standard output goes to `out`.
 */
export function startBenchmark(
  world: World,
  hostName: string,
  argv: readonly string[],
  out: (text: string) => void,
  opts: BenchmarkStartOptions = {},
): BenchmarkProcess {
  const host = world.host(hostName);
  if (!host.powered) throw new Error(`${hostName} is powered off`);
  const proc = host.spawn(new BenchmarkProcess(world, host, argv, out, opts));
  proc.start();
  return proc;
}

/** When the real tool pauses while opening connections: 50 ms after every 65 (createMissingClients). */
const CLIENTS_PER_PAUSE = 65;
const CONNECT_PAUSE_US = 50_000;
/** The progress timer's period, and its first delay from when the loop is made. */
const PROGRESS_INTERVAL_US = 250_000;
const FIRST_PROGRESS_US = 1_000;
/** The histogram's range in microseconds; longer latencies count as the maximum. */
const HISTOGRAM_MIN_US = 10;
const HISTOGRAM_MAX_US = 3_000_000;

/** An event loop: the tool's single one, or one per --threads. */
class EventLoop {
  /** When its thread is next free, virtual microseconds (fractional). */
  busyUntil = 0;
  stopped = false;
  stoppedAt = 0;
  timer: SimEvent | null = null;
  timerDue = 0;
  constructor(readonly index: number) {}
}

/** One test in progress. */
class TestRun {
  issued = 0;
  finished = 0;
  flights = 0;
  startMs = 0;
  firstWriteUs = -1;
  endUs = 0;
  running = true;
  live = 0;
  /** Sums of recorded values taken at their slot's midpoint, for the progress line's means. */
  overallSum = 0;
  recentSum = 0;
  recentCount = 0;
  readonly conns: Connection[] = [];
  constructor(
    readonly title: string,
    readonly template: RequestBuffer,
    readonly dataSize: number,
    readonly requests: number,
    readonly hist: LatencyHistogram,
  ) {}
}

class Connection {
  readonly counter = new ReplyCounter();
  /** Replies still expected for the flight written (the real tool's `pending`). */
  pending: number;
  prefixPending: number;
  startUs = 0;
  latencyUs = -1;
  /** Its read handler is on: a flight is out (or the connection idles under -I). */
  awaiting = false;
  connected = false;
  closed = false;
  closeError: NetError | null = null;
  constructor(
    readonly run: TestRun,
    readonly socket: Socket,
    readonly loop: EventLoop,
    readonly request: RequestBuffer,
    /** Commands sent once ahead of the first flight (AUTH, SELECT, HELLO ...). */
    public prefix: Uint8Array | null,
    prefixCount: number,
    pipeline: number,
  ) {
    this.prefixPending = prefixCount;
    this.pending = pipeline + prefixCount;
  }
}

interface QueuedTest {
  title: string;
  request: string;
  dataSize: number;
}

export class BenchmarkProcess extends SimProcess {
  /** The parsed options; null when the arguments made the tool exit. */
  readonly options: BenchmarkOptions | null;
  /** Finished tests, in order. */
  readonly results: BenchmarkResult[] = [];
  /**
   * The tool is spinning: 7.0.15 loops forever in its write handler when a
   * benchmark connection is refused or times out (its write error is
   * reported as EAGAIN), printing nothing more. The process stays until
   * signalled, like the real one.
   */
  stuck = false;
  /** What CONFIG GET save / appendonly answered; null if it failed. */
  hostConfig: HostConfig | null = null;
  private readonly parsed: BenchmarkOptions | BenchmarkArgsExit;
  private readonly out: (text: string) => void;
  private readonly err: (text: string) => void;
  private readonly costs: ClientCpuCosts;
  private readonly mainLoop = new EventLoop(0);
  private loops: EventLoop[] = [this.mainLoop];
  private readonly payload = new PayloadGenerator();
  private queue: QueuedTest[] = [];
  private roundTests = 0;
  private run: TestRun | null = null;
  private finishEvent: SimEvent | null = null;
  private readonly progress: ProgressState = { previousTickMs: 0, previousFinished: 0, lastPrintedBytes: 0 };
  private prefix = '';
  private prefixCount = 0;
  /** Each histogram slot's midpoint, for the running means. */
  private midpoints: Float64Array | null = null;
  /** Per-request costs on this host's CPU, set when a test starts. */
  private replyUs = 0;
  private itemUs = 0;
  private flightUs = 0;

  constructor(
    readonly world: World,
    host: Host,
    argv: readonly string[],
    out: (text: string) => void,
    opts: BenchmarkStartOptions = {},
  ) {
    const args = argv[0] === 'redis-benchmark' ? argv.slice(1) : [...argv];
    super(host, 'redis-benchmark', ['redis-benchmark', ...args]);
    this.parsed = parseBenchmarkArgs(args);
    this.options = 'error' in this.parsed ? null : this.parsed;
    this.out = out;
    this.err = opts.err ?? out;
    this.costs = opts.costs ?? CLIENT_CPU.benchmark;
  }

  private get kernel() {
    return this.host.kernel;
  }

  private get opts(): BenchmarkOptions {
    return this.options!;
  }

  /** Runs main(): called by startBenchmark once the process has its pid. */
  start(): void {
    const parsed = this.parsed;
    if ('error' in parsed) {
      (parsed.stream === 'stdout' ? this.out : this.err)(parsed.error);
      this.exit(parsed.exitCode);
      return;
    }
    for (const w of parsed.warnings) this.err(w);
    this.buildPrefix();
    this.mainLoop.busyUntil = this.kernel.now;
    // The progress timer is made at the very start, before the server's
    // configuration is fetched.
    this.mainLoop.timerDue = this.kernel.now + FIRST_PROGRESS_US;
    if (parsed.cluster) {
      this.checkCluster();
      return;
    }
    this.fetchConfig(() => this.afterConfig());
  }

  /** The commands each benchmark connection sends before its first request. */
  private buildPrefix(): void {
    const o = this.opts;
    const parts: string[][] = [];
    if (o.password !== null) parts.push(o.user === null ? ['AUTH', o.password] : ['AUTH', o.user, o.password]);
    if (o.tracking) parts.push(['CLIENT', 'TRACKING', 'on']);
    if (o.dbnum !== 0) parts.push(['SELECT', String(o.dbnum)]);
    if (o.resp3) parts.push(['HELLO', '3']);
    this.prefix = parts.map((p) => encodeCommand(p)).join('');
    this.prefixCount = parts.length;
  }

  /** How the tool names its server in messages: host:port, or the socket path. */
  private get where(): string {
    const o = this.opts;
    return o.socket ?? `${o.host}:${o.port}`;
  }

  /**
   * Opens a connection to the server, or returns the system's message when
   * it fails at once (no such host or socket file, no free local port).
   */
  private openSocket(): Socket | string {
    const o = this.opts;
    const net = this.world.network;
    if (o.socket !== null) {
      if (this.host.listener(o.socket) === undefined) return 'No such file or directory';
      return net.connect(this.host, this.host.name, o.socket);
    }
    const name = this.resolve(o.host);
    if (name === null) {
      // An address nobody has is unreachable; a name nobody has does not resolve.
      return /^\d{1,3}(\.\d{1,3}){3}$/.test(o.host) ? NET_ERRORS.EHOSTUNREACH : 'Name or service not known';
    }
    // A TCP port is 16 bits; the C tool passes atoi's value through htons.
    const s = net.connect(this.host, name, o.port & 0xffff);
    if (s.state === 'closed') {
      s.onClose = null;
      return NET_ERRORS.EADDRNOTAVAIL;
    }
    return s;
  }

  /** The world's host that -h names: by name, by address, or this host for the loopback names. */
  private resolve(hostArg: string): string | null {
    if (hostArg === '127.0.0.1' || hostArg === 'localhost') return this.host.name;
    if (this.world.hosts.has(hostArg)) return hostArg;
    for (const h of this.world.hosts.values()) if ((h as { ip?: string }).ip === hostArg) return h.name;
    return null;
  }

  /** A blocking connection for setup, as getRedisContext makes: connects, then authenticates under -a. */
  private setupConnection(ready: (x: SetupExchange) => void, failed: () => void): void {
    const loop = this.mainLoop;
    loop.busyUntil = Math.max(this.kernel.now, loop.busyUntil) + this.cpu(this.costs.connectUs);
    const s = this.openSocket();
    if (typeof s === 'string') {
      this.err(`Could not connect to Redis at ${this.where}: ${s}\n`);
      failed();
      return;
    }
    this.sockets.add(s);
    const x = new SetupExchange(s);
    x.onFail = (message) => {
      this.sockets.delete(s);
      this.err(`Could not connect to Redis at ${this.where}: ${message}\n`);
      failed();
    };
    x.onReady = () => {
      const o = this.opts;
      if (o.password === null) {
        ready(x);
        return;
      }
      const auth = o.user === null ? ['AUTH', o.password] : ['AUTH', o.user, o.password];
      x.ask(encodeCommand(auth), 1, this.threadNow(loop), (replies) => {
        const r = replies?.[0];
        if (r === undefined) {
          this.err(`ERROR: failed to fetch reply from ${this.where}\n`);
          this.closeSetup(x);
          failed();
        } else if (r instanceof ErrorReply) {
          this.err(`Node ${this.where} replied with error:\n${r.message}\n`);
          this.exit(1);
        } else ready(x);
      });
    };
  }

  private closeSetup(x: SetupExchange): void {
    x.close();
    this.sockets.delete(x.socket);
  }

  /** CONFIG GET save and appendonly, for the report's host configuration lines. */
  private fetchConfig(then: () => void): void {
    const failed = (): void => {
      this.err('WARNING: Could not fetch server CONFIG\n');
      then();
    };
    this.setupConnection((x) => {
      const bytes = encodeCommand(['CONFIG', 'GET', 'save']) + encodeCommand(['CONFIG', 'GET', 'appendonly']);
      x.ask(bytes, 2, this.threadNow(this.mainLoop), (replies) => {
        this.closeSetup(x);
        const values: string[] = [];
        for (const r of replies ?? []) {
          if (r instanceof ErrorReply) {
            if (r.message.startsWith('NOAUTH')) {
              this.err(`Node ${this.where} replied with error:\n${r.message}\n`);
              this.exit(1);
              return;
            }
            break;
          }
          if (!Array.isArray(r) || r.length < 2) break;
          const v: Reply = r[1]!;
          values.push(typeof v === 'string' ? v : '');
        }
        if (values.length < 2) {
          failed();
          return;
        }
        this.hostConfig = { save: values[0]!, appendonly: values[1]! };
        then();
      });
    }, failed);
  }

  /**
   * --cluster: the tool first asks CLUSTER NODES. A server without cluster
   * support refuses, and the tool stops as the real one does; cluster
   * mode itself is not simulated.
   */
  private checkCluster(): void {
    const failedFetch = (): void => {
      this.err(`Failed to fetch cluster configuration from ${this.where}\n`);
      this.exit(1);
    };
    this.setupConnection(
      (x) => {
        x.ask(encodeCommand(['CLUSTER', 'NODES']), 1, this.threadNow(this.mainLoop), (replies) => {
          this.closeSetup(x);
          const r = replies?.[0];
          if (r instanceof ErrorReply) {
            this.err(`Cluster node ${this.where} replied with error:\n${r.message}\n`);
            failedFetch();
          } else if (r === undefined) failedFetch();
          else {
            this.err('redis-benchmark: --cluster: cluster mode is not available in the simulated world\n');
            this.exit(1);
          }
        });
      },
      () => this.exit(1),
    );
  }

  private afterConfig(): void {
    if (!this.alive) return;
    const o = this.opts;
    if (o.keepAlive === 0) {
      this.err(
        "WARNING: Keepalive disabled. You probably need 'echo 1 > /proc/sys/net/ipv4/tcp_tw_reuse' for Linux and " +
          "'sudo sysctl -w net.inet.tcp.msl=1000' for Mac OS X in order to use a lot of clients/requests\n",
      );
    }
    if (o.command.length !== 0 && o.tests !== null) this.err('WARNING: Option -t is ignored.\n');
    if (o.idle) {
      this.out(`Creating ${o.clients} idle connections and waiting forever (Ctrl+C when done)\n`);
      this.beginTest({ title: '', request: '', dataSize: o.dataSize });
      return;
    }
    if (o.csv) this.out(CSV_HEADER);
    this.startRound();
  }

  /** One pass over the selected tests (or the command line), as one turn of the tool's -l loop. */
  private startRound(): void {
    const o = this.opts;
    if (o.command.length !== 0) {
      const args = o.stdinArg ? [...o.command, ''] : o.command;
      const request = encodeCommand(args);
      this.queue = [{ title: o.command.join(' '), request, dataSize: request.length }];
    } else {
      const data = this.payload.next(o.dataSize);
      this.queue = SUITE.filter((t) => isSelected(o.tests, t)).map((t) => ({
        title: t.title,
        request: t.request(data, o.randomKeys),
        dataSize: o.dataSize,
      }));
    }
    this.roundTests = this.queue.length;
    this.nextTest();
  }

  private nextTest(): void {
    if (!this.alive) return;
    const next = this.queue.shift();
    if (next !== undefined) {
      this.beginTest(next);
      return;
    }
    const o = this.opts;
    if (o.command.length === 0 && !o.csv) this.out('\n');
    if (!o.loop) {
      this.exit(0);
      return;
    }
    // With nothing selected the real tool would print blank lines forever
    // without any time passing; here it stops there, spinning.
    if (this.roundTests === 0) {
      this.stuck = true;
      return;
    }
    this.startRound();
  }

  private beginTest(test: QueuedTest): void {
    const o = this.opts;
    const kernel = this.kernel;
    const speed = this.host.profile.cpuSpeed;
    this.replyUs = this.costs.perCommandUs / speed;
    this.itemUs = this.costs.perReplyItemUs / speed;
    this.flightUs = this.costs.perFlightUs / speed;
    // --precision 0 makes the real tool's histogram fail to initialise; it
    // crashes at its first use. A placeholder keeps the run going until then.
    const hist = new LatencyHistogram(HISTOGRAM_MIN_US, HISTOGRAM_MAX_US, Math.max(1, o.precision));
    if (this.midpoints === null || this.midpoints.length !== hist.countsLen) {
      this.midpoints = new Float64Array(hist.countsLen);
      for (let i = 0; i < hist.countsLen; i++) this.midpoints[i] = hist.medianEquivalent(hist.valueAtIndex(i));
    }
    const template = RequestBuffer.build(test.request, o.pipeline, o.randomKeys);
    const run = new TestRun(test.title, template, test.dataSize, o.requests, hist);
    this.run = run;
    this.progress.previousFinished = 0;
    this.progress.lastPrintedBytes = 0;
    const threaded = o.threads > 0 && !o.idle;
    const start = Math.max(kernel.now, this.mainLoop.busyUntil);
    if (threaded) {
      // Each test makes its threads afresh, each with its own progress timer.
      this.loops = [];
      for (let i = 0; i < o.threads; i++) {
        const loop = new EventLoop(i);
        loop.timerDue = start + FIRST_PROGRESS_US;
        this.loops.push(loop);
      }
    } else {
      this.mainLoop.stopped = false;
      this.loops = [this.mainLoop];
    }
    // The main thread opens every connection before any loop runs.
    let t = start;
    const connectUs = this.cpu(this.costs.connectUs);
    const count = Math.max(1, o.clients);
    for (let i = 0; i < count; i++) {
      const loop = this.loops[i % this.loops.length]!;
      t += connectUs;
      if (this.createConnection(run, loop, run.template) === null) return;
      if (i !== 0 && i % CLIENTS_PER_PAUSE === 0) t += CONNECT_PAUSE_US;
    }
    this.mainLoop.busyUntil = t;
    run.startMs = Math.floor(t / 1000);
    for (const loop of this.loops) {
      if (loop.busyUntil < t) loop.busyUntil = t;
      this.scheduleTimer(loop, t);
    }
  }

  /** A benchmark connection; null when it failed at once (the tool has exited). */
  private createConnection(run: TestRun, loop: EventLoop, template: RequestBuffer): Connection | null {
    const o = this.opts;
    const s = this.openSocket();
    if (s === NET_ERRORS.EHOSTUNREACH) {
      // A non-blocking connect reports this later, and 7.0.15 then spins.
      this.hang();
      return null;
    }
    if (typeof s === 'string') {
      this.err(`Could not connect to Redis at ${this.where}: ${s}\n`);
      this.exit(1);
      return null;
    }
    this.sockets.add(s);
    // Without -r every connection sends the same bytes; with it each patches its own.
    const request = template.hasPlaceholders && template === run.template ? template.copy() : template;
    const prefix = this.prefixCount !== 0 ? bytesOf(this.prefix) : null;
    const c = new Connection(run, s, loop, request, prefix, this.prefixCount, o.pipeline);
    run.conns.push(c);
    run.live++;
    if (o.idle) c.awaiting = true;
    s.onConnect = () => this.onWritable(c);
    s.onData = (data) => this.onReadable(c, data);
    s.onClose = (error) => this.onClosed(c, error);
    return c;
  }

  /** The thread's clock: the kernel's, or later while the thread is busy. */
  private threadNow(loop: EventLoop): number {
    const now = this.kernel.now;
    return loop.busyUntil > now ? loop.busyUntil : now;
  }

  private onWritable(c: Connection): void {
    c.connected = true;
    if (this.stuck || c.run !== this.run || !c.run.running || c.loop.stopped || this.opts.idle) return;
    this.writeFlight(c, this.threadNow(c.loop));
  }

  /** The write handler: sends the next flight unless all requests are out. */
  private writeFlight(c: Connection, at: number): void {
    const run = c.run;
    if (run.issued >= run.requests) return;
    const o = this.opts;
    run.issued += o.pipeline;
    if (c.closed) {
      // The peer is gone: a reset is reported, a closed pipe is not.
      if (c.closeError !== null) this.err(`Error writing to the server: ${c.closeError.message}\n`);
      this.freeConnection(c);
      return;
    }
    if (o.randomKeys) c.request.randomize(this.kernel.random, o.keyspaceLen);
    let bytes = c.request.bytes;
    if (c.prefix !== null) {
      const first = new Uint8Array(c.prefix.length + bytes.length);
      first.set(c.prefix, 0);
      first.set(bytes, c.prefix.length);
      bytes = first;
      c.prefix = null;
    }
    c.startUs = at;
    c.latencyUs = -1;
    c.awaiting = true;
    if (run.firstWriteUs < 0) run.firstWriteUs = at;
    run.flights++;
    if (this.flightUs !== 0) c.loop.busyUntil = at + this.flightUs;
    c.socket.write(bytes, at);
  }

  /** The read handler: counts complete replies, records latencies, and moves the connection on. */
  private onReadable(c: Connection, data: Uint8Array): void {
    if (!c.awaiting) return;
    const loop = c.loop;
    const run = c.run;
    const now = this.kernel.now;
    const t = loop.busyUntil > now ? loop.busyUntil : now;
    if (this.opts.precision === 0) {
      this.host.reap(this, 139, 'killed');
      return;
    }
    // Latency is taken at the first read after the write, before parsing.
    if (c.latencyUs < 0) c.latencyUs = Math.floor(t) - Math.floor(c.startUs);
    const counter = c.counter;
    counter.items = 0;
    let cost = 0;
    let pos = 0;
    let done = false;
    while (c.pending > 0 && (pos = counter.next(data, pos)) !== -1) {
      if (counter.isPush) continue;
      cost += this.replyUs;
      if (counter.isError) {
        this.err(`Error from server: ${counter.errorText}\n`);
        this.exit(1);
        return;
      }
      c.pending--;
      if (c.prefixPending > 0) {
        c.prefixPending--;
        continue;
      }
      if (run.finished++ < run.requests) this.record(run, c.latencyUs);
      if (c.pending === 0) {
        done = true;
        break;
      }
    }
    const end = t + cost + counter.items * this.itemUs;
    loop.busyUntil = end;
    if (!done) return;
    c.awaiting = false;
    if (run.finished >= run.requests) {
      this.stopLoop(loop, end);
      return;
    }
    if (this.opts.keepAlive !== 0) {
      c.pending = this.opts.pipeline;
      this.writeFlight(c, end);
    } else this.reconnect(c, end);
  }

  private record(run: TestRun, latencyUs: number): void {
    const v = latencyUs <= HISTOGRAM_MAX_US ? latencyUs : HISTOGRAM_MAX_US;
    const hist = run.hist;
    const index = hist.indexFor(v);
    hist.recordAt(index, v);
    const mid = this.midpoints![index]!;
    run.overallSum += mid;
    run.recentSum += mid;
    run.recentCount++;
  }

  /** -k 0: the finished connection is replaced by a new one, then closed. */
  private reconnect(c: Connection, at: number): void {
    const run = c.run;
    this.kernel.at(at, () => {
      if (this.run !== run || !run.running || this.stuck) return;
      const loop = this.loops[(run.live - 1) % this.loops.length]!;
      c.loop.busyUntil = this.threadNow(c.loop) + this.cpu(this.costs.connectUs);
      // The old buffer moves to the new connection, placeholders and all.
      if (this.createConnection(run, loop, c.request) === null) return;
      this.freeConnection(c);
    });
  }

  private freeConnection(c: Connection): void {
    c.awaiting = false;
    c.run.live--;
    this.closeSocket(c.socket);
  }

  private closeSocket(s: Socket): void {
    s.onConnect = null;
    s.onData = null;
    s.onClose = null;
    s.end();
    this.sockets.delete(s);
  }

  private onClosed(c: Connection, error: NetError | null): void {
    c.closed = true;
    c.closeError = error;
    this.sockets.delete(c.socket);
    const run = c.run;
    if (this.stuck || run !== this.run || !run.running || c.loop.stopped) return;
    if (!c.connected) {
      this.hang();
      return;
    }
    if (c.awaiting) {
      this.err(`Error: ${error === null ? 'Server closed the connection' : error.message}\n`);
      this.exit(1);
    }
    // Otherwise the loss shows at the connection's next write.
  }

  /** The refused-connection spin of 7.0.15: nothing runs any more. */
  private hang(): void {
    this.stuck = true;
    for (const loop of this.loops) {
      this.kernel.cancel(loop.timer);
      loop.timer = null;
    }
    if (this.run !== null) for (const c of this.run.conns) c.awaiting = false;
  }

  /** A loop leaves: without threads that ends the test, with them the last one to leave does. */
  private stopLoop(loop: EventLoop, at: number): void {
    loop.stopped = true;
    loop.stoppedAt = at;
    this.kernel.cancel(loop.timer);
    loop.timer = null;
    let end = 0;
    for (const l of this.loops) {
      if (!l.stopped) return;
      if (l.stoppedAt > end) end = l.stoppedAt;
    }
    this.endRun(end);
  }

  private endRun(at: number): void {
    const run = this.run!;
    run.running = false;
    run.endUs = at;
    for (const c of run.conns) c.awaiting = false;
    this.mainLoop.busyUntil = Math.max(this.mainLoop.busyUntil, at);
    this.finishEvent = this.kernel.at(at, () => {
      this.finishEvent = null;
      this.finishTest();
    });
  }

  private finishTest(): void {
    const run = this.run!;
    const o = this.opts;
    const totalMs = Math.floor(run.endUs / 1000) - run.startMs;
    const f = testFigures(run.hist, run.finished, totalMs);
    const pad = this.progress.lastPrintedBytes;
    if (o.csv) this.out(csvRow(run.title, f));
    else if (o.quiet) this.out(quietLine(pad, run.title, f));
    else {
      const head = {
        title: run.title,
        finished: run.finished,
        clients: o.clients,
        dataSize: run.dataSize,
        keepAlive: o.keepAlive,
        hostConfig: this.hostConfig,
        threads: o.threads,
      };
      this.out(fullReport(pad, head, run.hist, f));
    }
    this.results.push({
      name: run.title,
      requests: run.finished,
      seconds: f.seconds,
      rps: f.rps,
      p50Ms: f.p50Ms,
      avgMs: f.avgMs,
      minMs: f.minMs,
      maxMs: f.maxMs,
      p95Ms: f.p95Ms,
      p99Ms: f.p99Ms,
      flights: run.flights,
      elapsedUs: run.endUs - run.firstWriteUs,
    });
    for (const c of run.conns) if (!c.closed) this.closeSocket(c.socket);
    this.run = null;
    this.nextTest();
  }

  private scheduleTimer(loop: EventLoop, notBefore: number): void {
    this.kernel.cancel(loop.timer);
    loop.timer = this.kernel.at(Math.max(loop.timerDue, notBefore), () => this.onTimer(loop));
  }

  /** The progress timer (showThroughput), every 250 ms while a loop runs. */
  private onTimer(loop: EventLoop): void {
    loop.timer = null;
    const run = this.run;
    if (this.stuck || run === null || !run.running || loop.stopped) return;
    const o = this.opts;
    const at = this.threadNow(loop);
    if (o.precision === 0 && !o.csv && !o.idle) {
      this.host.reap(this, 139, 'killed');
      return;
    }
    if (run.live === 0 && run.finished !== run.requests) {
      this.err('All clients disconnected... aborting.\n');
      this.exit(1);
      return;
    }
    if (o.threads > 0 && !o.idle && run.finished >= run.requests) {
      this.stopLoop(loop, at);
      return;
    }
    if (!o.csv && loop.index === 0) {
      if (o.idle) this.out(`clients: ${run.live}\r`);
      else {
        const recentMean = run.recentSum / run.recentCount;
        const overallMean = run.overallSum / run.hist.totalCount;
        this.out(progressLine(run.title, Math.floor(at / 1000), run.startMs, run.finished, recentMean, overallMean, this.progress));
        run.recentSum = 0;
        run.recentCount = 0;
      }
    }
    loop.timerDue = at + PROGRESS_INTERVAL_US;
    this.scheduleTimer(loop, this.kernel.now);
  }

  /** SIGINT and SIGTERM end the real tool by their default action. */
  protected override onTerminate(sig: 'TERM' | 'INT'): void {
    this.host.reap(this, sig === 'INT' ? 130 : 143, 'killed');
  }

  override onExit(): void {
    for (const loop of this.loops) this.kernel.cancel(loop.timer);
    this.kernel.cancel(this.mainLoop.timer);
    this.kernel.cancel(this.finishEvent);
    for (const s of this.sockets) {
      s.onConnect = null;
      s.onData = null;
      s.onClose = null;
    }
    if (this.run !== null) this.run.running = false;
  }
}

function bytesOf(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
