import type { ShutdownFlags } from '../commands/shutdown.js';
import type { Client } from '../server/client.js';
import type { ServerLogLevel } from '../server/log-line.js';
import type { RedisServer } from '../server/server.js';
import type { ServerCpuCosts } from '../sim/cpu.js';
import type { Host } from '../sim/host.js';
import type { Kernel } from '../sim/kernel.js';
import type { OutboundConnection, OutboundEvents } from './outbound.js';

/**
 * The contract between a redis-server process and the modules that live
 * beside its command engine: the snapshot engine, the AOF, replication,
 * and next Sentinel. A module is made with the process's services and
 * hands back the hooks the process calls at its moments, the way Redis's
 * main(), serverCron, beforeSleep and prepareForShutdown call into rdb.c,
 * aof.c and replication.c. The process calls every module's hook the same
 * way, in the order the modules were added; none is special-cased.
 *
 * This file holds types only, so that modules below the process (under
 * persistence/ and replication/) can name them without importing the
 * process itself.
 *
 *   class Greeter implements ProcessModule {
 *     constructor(private readonly p: ProcessServices) {}
 *     cron(): void {
 *       this.p.log('still here');
 *     }
 *   }
 *   proc.addModule((services) => new Greeter(services));
 */

/** What a module gets from the process it runs in. */
export interface ProcessServices {
  readonly server: RedisServer;
  readonly host: Host;
  readonly kernel: Kernel;
  /** The CPU cost model of the process's thread. */
  readonly costs: ServerCpuCosts;
  readonly pid: number;
  readonly alive: boolean;
  /** Virtual time as the server's thread sees it (ahead of the kernel while a pass runs). */
  nowUs(): number;
  /** Charges thread time (a fork, a blocking write). */
  stall(us: number): void;
  /**
   * Holds the thread for blocking I/O started by the running command or
   * hook (SAVE's fsync): nothing else runs, and no reply leaves, until the
   * returned function is called; then `after` runs inside a pass.
   */
  holdThreadForIo(): (after: () => void) => void;
  /**
   * A line in the server's log at Redis's level for it; `childPid` when the
   * line is the fork child's (Redis's child writes its own pid and role C).
   */
  log(text: string, level?: ServerLogLevel, childPid?: number): void;
  /** The process's standard output. */
  stdout(text: string): void;
  /** A line written from a signal handler (serverLogFromHandler): to the log file, or standard output. */
  logFromSignalHandler(text: string): void;
  /** Ends the process (exit(3)). */
  exit(code: number): void;
  /**
   * Runs `task` inside a pass of the event loop once `us` of virtual time
   * have passed (0: the next pass), unless the process has ended by then:
   * a time event of Redis's ae loop. Returns its cancellation.
   */
  after(us: number, task: () => void): () => void;
  /**
   * Opens a connection to `host:port` (connConnect): over the simulated
   * network, or, in `npm run server`, a real TCP socket. Its events arrive
   * inside passes of the event loop. Returns the error text when the
   * connection cannot even be started (a name that does not resolve).
   */
  connect(host: string, port: number, events: OutboundEvents): OutboundConnection | string;
  /**
   * hasActiveChildProcess: whether a module has a forked child running
   * (Redis runs one child at a time: an RDB save, an AOF rewrite).
   */
  hasActiveChild(): boolean;
  /** The process's module of a kind, if it has one (replication asks for the snapshot engine). */
  module<M extends ProcessModule>(kind: abstract new (...args: never[]) => M): M | null;
}

/** The outcome of loading the dataset at start. */
export interface LoadOutcome {
  /** Thread time the loading takes (the server answers -LOADING meanwhile). */
  us: number;
  /** The last line the server logs before it exits: the data could not be loaded. */
  error?: string;
  /** The exit code when the data could not be loaded (1 when absent). */
  exitCode?: number;
  /**
   * What the line logged when loading ends names ("DB loaded from disk");
   * null when the module logged it itself.
   */
  loadedLine?: string | null;
}

/** A shutdown on its way (prepareForShutdown). */
export interface ShutdownRequest {
  readonly flags: ShutdownFlags;
  /** The client that sent SHUTDOWN; null for a signal. */
  readonly client: Client | null;
  /**
   * Tells the waiting client that the shutdown failed after all; for a
   * module that refuses once it has waited (for its disk, for replicas).
   */
  fail(): void;
}

/**
 * The hooks a module may offer; every one is optional. Hooks run in the
 * order the modules were added. The shutdown hooks run in the reverse
 * order (the last module added stops first, as a stack unwinds), one
 * phase across all modules before the next, as Redis's
 * prepareForShutdown and finishShutdown go: a shutdown already under
 * way, the wait for replicas, the steps that cannot fail (reports,
 * children killed), then the steps that can (the AOF's fsync, the final
 * save).
 */
export interface ProcessModule {
  /** Whether this module's forked child is running (see hasActiveChild). */
  readonly childActive?: boolean;
  /**
   * main() before the dataset is loaded (the AOF reads its manifest).
   * Returns the line the server exits with when it cannot go on, else null.
   */
  prepare?(): string | null;
  /**
   * loadDataFromDisk: the module whose files hold the dataset loads them
   * (the AOF when appendonly is yes, otherwise dump.rdb); the others
   * return null. Every module is asked until one fails, so one can finish
   * its own start after another loaded (the AOF deletes its history files).
   */
  load?(): LoadOutcome | null;
  /** serverCron, `hz` times a second. */
  cron?(): void;
  /** After a pass's commands, before its replies leave (beforeSleep). May hold the thread. */
  beforeSleep?(): void;
  /**
   * isShutdownInitiated: this module holds a shutdown back already; the new
   * request joins it (its client waits too). True when so.
   */
  joinShutdown?(request: ShutdownRequest): boolean;
  /**
   * prepareForShutdown's wait (lagging replicas get shutdown-timeout to
   * catch up). True when the module holds the shutdown: it calls `resume`
   * once the wait is over, which says whether the shutdown went on.
   */
  holdShutdown?(request: ShutdownRequest, resume: () => boolean): boolean;
  /** finishShutdown's steps that cannot fail: reports, children killed. */
  stop?(): void;
  /**
   * finishShutdown's steps that can fail or wait. Returning false refuses
   * the shutdown at once (the AOF's first rewrite is not written yet and
   * FORCE was not given). Otherwise the module calls `next` once its part
   * is done, at once or when its I/O completes; a module that refuses
   * after waiting calls `request.fail()` instead.
   */
  shutdown?(request: ShutdownRequest, next: () => void): boolean;
  /** The process is gone. */
  exit?(): void;
}

/** Makes a module from the process's services. */
export type ModuleFactory<M extends ProcessModule = ProcessModule> = (services: ProcessServices) => M;
