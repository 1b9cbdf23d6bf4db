/**
 * Sentinel's user scripts (the script execution part of src/sentinel.c):
 * a master's notification-script runs for each of its warning events, its
 * client-reconfig-script for each failover. Jobs wait in a queue; the
 * timer starts up to 16 at a time as programs of the host, collects the
 * ones that ended, retries those that asked for it (exit code 1, or a
 * signal) with a delay that doubles each time, and kills those that run
 * too long.
 */
import type { Reply } from '../resp/reply.js';
import { MapReply } from '../resp/reply.js';
import type { ExecutedProgram } from '../sim/host.js';
import type { Sentinel } from './sentinel.js';

/** SENTINEL_SCRIPT_MAX_QUEUE, SENTINEL_SCRIPT_MAX_RUNNING, SENTINEL_SCRIPT_MAX_RETRY, SENTINEL_SCRIPT_MAX_ARGS. */
const MAX_QUEUE = 256;
const MAX_RUNNING = 16;
const MAX_RETRY = 10;
const MAX_ARGS = 16;

/** struct sentinelScriptJob. */
interface ScriptJob {
  readonly argv: string[];
  running: boolean;
  retryNum: number;
  /** When it started while running; when it may run again after a failure; 0 before the first run. */
  startMs: number;
  pid: number;
  program: ExecutedProgram | null;
}

export class ScriptQueue {
  private readonly jobs: ScriptJob[] = [];
  /** Children that ended since the timer last looked (what waitpid would return). */
  private readonly ended: Array<{ job: ScriptJob; code: number; signal: number }> = [];
  running = 0;

  constructor(private readonly s: Sentinel) {}

  get length(): number {
    return this.jobs.length;
  }

  /** sentinelScheduleScriptExecution: queued at the tail; past the limit the oldest job not running is dropped. */
  schedule(path: string, args: readonly string[]): void {
    this.jobs.push({ argv: [path, ...args.slice(0, MAX_ARGS - 1)], running: false, retryNum: 0, startMs: 0, pid: 0, program: null });
    if (this.jobs.length > MAX_QUEUE) {
      const i = this.jobs.findIndex((j) => !j.running);
      if (i >= 0) this.jobs.splice(i, 1);
    }
  }

  /** The three steps sentinelTimer takes after the instances: run, collect, kill. */
  tick(): void {
    this.runPending();
    this.collectTerminated();
    this.killTimedOut();
  }

  /** sentinelRunPendingScripts: the oldest jobs first, those waiting for a retry once their time has come. */
  private runPending(): void {
    const now = this.s.nowMs();
    for (const job of this.jobs) {
      if (this.running >= MAX_RUNNING) break;
      if (job.running || (job.startMs !== 0 && job.startMs > now)) continue;
      job.running = true;
      job.startMs = now;
      job.retryNum++;
      const programs = this.s.p.host.programs;
      const program = programs?.run(job.argv[0]!, job.argv, this.s.cwd(), (code, signal) => this.ended.push({ job, code, signal })) ?? null;
      if (program === null) {
        // A failed fork is reported as signal 99, so that it reads like the other failures.
        this.s.event('warning', '-script-error', null, `${job.argv[0]} 99 0`);
        job.running = false;
        job.pid = 0;
        continue;
      }
      this.running++;
      job.pid = program.pid;
      job.program = program;
      this.s.event('debug', '+script-child', null, String(program.pid));
    }
  }

  /** sentinelScriptRetryDelay: the retry delay, doubled for each retry after the first. */
  private retryDelayMs(retryNum: number): number {
    let delay = this.s.periods.scriptRetryDelayMs;
    for (let n = retryNum; n > 1; n--) delay *= 2;
    return delay;
  }

  /**
   * sentinelCollectTerminatedScripts: a job that ended well leaves the
   * queue; one killed by a signal or that exited with 1 ("retry me") runs
   * again later, up to ten times; any other failure is reported and dropped.
   */
  private collectTerminated(): void {
    for (const { job, code, signal } of this.ended.splice(0)) {
      this.s.event('debug', '-script-child', null, `${job.pid} ${code} ${signal}`);
      const i = this.jobs.indexOf(job);
      if (i < 0 || !job.running) {
        this.s.p.log(`waitpid() returned a pid (${job.pid}) we can't find in our scripts execution queue!`, 'warning');
        continue;
      }
      if ((signal !== 0 || code === 1) && job.retryNum !== MAX_RETRY) {
        job.running = false;
        job.pid = 0;
        job.program = null;
        job.startMs = this.s.nowMs() + this.retryDelayMs(job.retryNum);
      } else {
        if (signal !== 0 || code !== 0) this.s.event('warning', '-script-error', null, `${job.argv[0]} ${signal} ${code}`);
        this.jobs.splice(i, 1);
      }
      this.running--;
    }
  }

  /** sentinelKillTimedoutScripts: SIGKILL to a script that runs past script-max-runtime; it is collected when it ends. */
  private killTimedOut(): void {
    const now = this.s.nowMs();
    for (const job of this.jobs) {
      if (job.running && now - job.startMs > this.s.periods.scriptMaxRuntimeMs) {
        this.s.event('warning', '-script-timeout', null, `${job.argv[0]} ${job.pid}`);
        job.program?.kill();
      }
    }
  }

  /** SENTINEL PENDING-SCRIPTS (sentinelPendingScriptsCommand). */
  pendingReply(): Reply {
    const now = this.s.nowMs();
    return this.jobs.map((job) => {
      const time: [string, string] = job.running ? ['run-time', String(now - job.startMs)] : ['run-delay', String(job.startMs !== 0 ? Math.max(0, job.startMs - now) : 0)];
      return new MapReply(['argv', job.argv, 'flags', job.running ? 'running' : 'scheduled', 'pid', String(job.pid), ...time, 'retry-num', String(job.retryNum)]);
    });
  }
}
