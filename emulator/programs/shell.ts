import { bytesToArray } from '../resp/bytes.js';
import { normalizePath } from '../sim/disk-path.js';
import type { Host, SimProcess } from '../sim/host.js';
import type { RealtimeDriver } from '../sim/realtime.js';
import type { World } from '../world/world.js';
import { registerHostSetup } from './host-setup.js';
import { SHELL_PROGRAM, type ShellAction } from './shell/action.js';
import { cd, clear, date, echo, help, hostname } from './shell/builtins.js';
import type { Command, CommandContext, Job, JobHandlers, RedisCliTarget, ShellControl } from './shell/context.js';
import { errnoText } from './shell/errors.js';
import { cat, cp, join, mkdir, pwd, rm, rmdir, sync, touch } from './shell/files.js';
import { hexdump } from './shell/hexdump.js';
import { sha256sum } from './shell/sha256.js';
import { kill } from './shell/kill.js';
import { ls } from './shell/ls.js';
import { falseCommand, poweroff, sleep, trueCommand } from './shell/misc.js';
import { sysctl } from './shell/sysctl.js';
import { ping } from './shell/ping.js';
import { freeTty, LoginShellProcess, ProgramProcess } from './shell/processes.js';
import { ps } from './shell/ps.js';
import { redisBenchmark } from './shell/redis-benchmark.js';
import { redisCheckAof, redisCheckRdb } from './shell/redis-check.js';
import { redisCli } from './shell/redis-cli.js';
import { redisServer } from './shell/redis-server.js';
import { redisSentinel } from './shell/redis-sentinel.js';
import { scp } from './shell/scp.js';
import { sim } from './shell/sim-verbs.js';
import { globMatches, parseLine, type Redirect, type Word } from './shell/words.js';

export type { RedisCliTarget } from './shell/context.js';

interface Registry {
  readonly shells: Map<string, HostShell>;
  next: number;
  /** Set while an 'open' action builds a shell that is being replayed. */
  replaying: boolean;
}

const registries = new WeakMap<World, Registry>();

/**
 * Lets a world replay the shells' actions: call it in World.restore's
 * setup so that a restored world re-creates its shells and runs their
 * lines at the same points of its history. Shells register it themselves
 * on the worlds they are made on.
 *
 *   const copy = World.restore(world.checkpoint(), registerShellProgram);
 *   const [shell] = HostShell.all(copy);
 *   shell.attach((text) => terminal.write(text));
 */
export function registerShellProgram(world: World): void {
  registerHostSetup(world);
  if (registries.has(world)) return;
  const registry: Registry = { shells: new Map(), next: 1, replaying: false };
  registries.set(world, registry);
  world.registerProgram(SHELL_PROGRAM, (w, args) => {
    const a = args as ShellAction;
    let shell = registry.shells.get(a.id);
    if (a.op === 'open') {
      if (shell === undefined) {
        // Replaying: the shell is rebuilt, its output kept until someone attaches.
        registry.replaying = true;
        try {
          shell = new HostShell(w, a.host, null, { columns: a.columns });
        } finally {
          registry.replaying = false;
        }
      }
      shell.openNow();
      return;
    }
    if (shell === undefined) throw new Error(`no shell ${a.id}`);
    if (a.op === 'line') shell.runNow(a.line);
    else shell.interruptNow();
  });
}

export interface HostShellOptions {
  /** The driver when the world follows the wall clock (sim speed, pause, resume). */
  driver?: RealtimeDriver;
  /** The terminal's width in columns (default 80). */
  columns?: number;
  /** `exit` or `logout`: return true if the terminal leaves the shell. */
  onExit?: () => boolean;
  /** `redis-cli` without a command: return true if the terminal opens an interactive session. */
  onRedisCli?: (target: RedisCliTarget) => boolean;
}

/**
 * A root shell on a host of the simulated world: the commands a learner
 * types on a Linux machine that runs Redis, printing what their real
 * counterparts print, plus `sim` for what only a simulation can do.
 *
 *   const shell = new HostShell(world, 'redis', (text) => terminal.write(text));
 *   shell.run('ls -l /var/lib/redis');
 *   shell.run('ping -c 3 replica');      // busy while the world runs
 *   world.runUntil(() => !shell.busy);
 *
 * Lines and output are byte strings (UTF-8 bytes, one char per byte). The
 * shell reads only the world's clock, so the same seed and the same lines
 * at the same virtual times give the same output. Errors are printed,
 * never thrown: even a bug in a command prints "shell: internal error".
 */
export class HostShell {
  /**
   * Called when the foreground program ends, by itself as the world runs
   * or on Ctrl-C, and the shell waits for a line again (not for a line
   * that finished within run()).
   */
  onIdle: (() => void) | null = null;
  /** The shell's name in its world's action log ("shell-1"). */
  readonly id: string;
  /** Output kept while nobody is attached (a replayed shell). */
  private held = '';
  private write: (text: string) => void;
  private current: string;
  private cwdPath = '/';
  private oldCwdPath: string | null = null;
  private login: LoginShellProcess | null = null;
  private job: ForegroundJob | null = null;
  /** Lines typed while a program ran, run when it ends (type-ahead). */
  private readonly queue: string[] = [];
  private status = 0;
  private running = 0;
  private readonly columns: number;

  /**
   * Opens a shell on a host. Everything typed is recorded in the world's
   * action log, so a world restored from a checkpoint has the same shells
   * in the same state (see registerShellProgram).
   */
  constructor(
    readonly world: World,
    hostName: string,
    write: ((text: string) => void) | null,
    private opts: HostShellOptions = {},
  ) {
    world.host(hostName);
    registerShellProgram(world);
    const registry = registries.get(world)!;
    this.id = `shell-${registry.next++}`;
    registry.shells.set(this.id, this);
    this.write = write ?? ((text) => (this.held += text));
    this.current = hostName;
    this.columns = opts.columns ?? 80;
    if (!registry.replaying) world.apply({ kind: 'program', name: SHELL_PROGRAM, args: { op: 'open', id: this.id, host: hostName, columns: this.columns } });
  }

  /** The shells made on a world (after World.restore, the replayed ones), in order. */
  static all(world: World): HostShell[] {
    return [...(registries.get(world)?.shells.values() ?? [])];
  }

  /**
   * Sends the output to `write` from now on; returns what was printed while
   * nobody listened. A terminal taking up a replayed shell passes the
   * options a shell made by a terminal gets (driver, exit, redis-cli);
   * the width stays the one recorded.
   */
  attach(write: (text: string) => void, opts?: Omit<HostShellOptions, 'columns'>): string {
    const held = this.held;
    this.held = '';
    this.write = write;
    if (opts !== undefined) this.opts = { ...opts, columns: this.columns };
    return held;
  }

  /** @internal The 'open' action: the login shell starts. */
  openNow(): void {
    this.guard(() => this.ensureLogin());
  }

  get hostName(): string {
    return this.current;
  }

  get host(): Host {
    return this.world.host(this.current);
  }

  get cwd(): string {
    return this.cwdPath;
  }

  /** Whether a program runs in the foreground. */
  get busy(): boolean {
    return this.job !== null;
  }

  /** The exit status of the last command ($?). */
  get lastStatus(): number {
    return this.status;
  }

  /** Debian's root prompt, "root@redis:~# "; a machine without power says so. */
  get prompt(): string {
    if (!this.host.powered) return `(${this.current} is powered off) $ `;
    return `root@${this.current}:${this.shortCwd()}# `;
  }

  /**
   * Runs a line and resolves once its program, if it takes time, has
   * ended: what a terminal waits for before showing the next prompt.
   * `schedule` runs the line where the world's driver wants outside input.
   */
  runUntilIdle(line: string, schedule: (run: () => void) => void = (run) => run()): Promise<void> {
    return new Promise((resolve) => {
      schedule(() => this.run(line));
      if (!this.busy) {
        resolve();
        return;
      }
      this.onIdle = () => {
        this.onIdle = null;
        resolve();
      };
    });
  }

  /**
   * Runs a line. While a program runs, the line waits for it to end, as
   * typed-ahead input does; `sim` lines run at once, since they act on the
   * world from outside it.
   */
  run(line: string): void {
    this.record({ op: 'line', id: this.id, line });
  }

  /** Ctrl-C: the foreground program gets SIGINT; lines typed ahead are dropped. */
  interrupt(): void {
    this.record({ op: 'interrupt', id: this.id });
  }

  private record(action: ShellAction): void {
    try {
      this.world.apply({ kind: 'program', name: SHELL_PROGRAM, args: action });
    } catch (e) {
      this.write(`shell: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  }

  /** @internal The 'line' action. */
  runNow(line: string): void {
    this.guard(() => {
      if (this.job !== null && !/^\s*sim(\s|$)/.test(line)) {
        this.queue.push(line);
        return;
      }
      this.execute(line);
    });
  }

  /** @internal The 'interrupt' action. */
  interruptNow(): void {
    const wasBusy = this.job !== null;
    this.guard(() => {
      this.queue.length = 0;
      const job = this.job;
      if (job === null) {
        this.write('^C\n');
        return;
      }
      this.write('^C');
      job.handlers.onInterrupt();
    });
    // A program that ends on Ctrl-C ends within this call: tell the terminal.
    if (wasBusy && this.job === null) this.onIdle?.();
  }

  private guard(fn: () => void): void {
    this.running++;
    try {
      fn();
    } catch (e) {
      this.write(`shell: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    } finally {
      this.running--;
    }
  }

  private get home(): string {
    return '/root';
  }

  private shortCwd(): string {
    const home = this.home;
    if (this.cwdPath === home) return '~';
    if (this.cwdPath.startsWith(home + '/')) return '~' + this.cwdPath.slice(home.length);
    return this.cwdPath;
  }

  /** A login shell on the current host, started again after a reboot or a kill. */
  private ensureLogin(): void {
    const host = this.host;
    if (!host.powered) return;
    if (this.login !== null && this.login.alive && this.login.host === host) return;
    const login = new LoginShellProcess(host, 'bash', ['-bash'], freeTty(host), 1, this.world.kernel.now);
    host.spawn(login);
    this.login = login;
    this.cwdPath = this.isDir(this.home) ? this.home : '/';
    this.oldCwdPath = null;
  }

  private isDir(path: string): boolean {
    try {
      return this.host.disk.stat(path).isDirectory;
    } catch {
      return false;
    }
  }

  private resolve(path: string): string {
    return normalizePath(path.startsWith('/') ? path : join(this.cwdPath, path));
  }

  private variable(name: string): string {
    switch (name) {
      case '?':
        return String(this.status);
      case '$':
        return String(this.login?.pid ?? 0);
      case 'HOME':
        return this.home;
      case 'USER':
      case 'LOGNAME':
        return 'root';
      case 'HOSTNAME':
        return this.current;
      case 'PWD':
        return this.cwdPath;
      case 'OLDPWD':
        return this.oldCwdPath ?? '';
      case 'SHELL':
        return '/bin/bash';
      case 'PATH':
        return '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
      case 'TERM':
        return 'xterm-256color';
      default:
        return '';
    }
  }

  private execute(line: string): void {
    const host = this.host;
    if (!host.powered) {
      const first = line.trim().split(/\s+/)[0] ?? '';
      if (first !== 'sim' && first !== 'help' && first !== '') {
        this.write(`${this.current} is powered off: only sim commands work here (sim power-on ${this.current})\n`);
        this.status = 1;
        return;
      }
    } else {
      this.ensureLogin();
    }
    const parsed = parseLine(line, (name) => this.variable(name));
    if ('error' in parsed) {
      this.write(parsed.error + '\n');
      this.status = 2;
      return;
    }
    const words = this.expand(parsed.words);
    const streams = this.openRedirects(parsed.redirects);
    if (streams === null) {
      this.status = 1;
      return;
    }
    if (words.length === 0) {
      this.status = 0;
      return;
    }
    const [name, ...args] = words;
    const command = this.lookup(name!);
    if (command === null) {
      streams.err(`bash: ${name}: ${name!.includes('/') ? 'No such file or directory' : 'command not found'}\n`);
      this.status = 127;
      return;
    }
    const ctx = this.context(host, streams);
    const result = command(ctx, args);
    if (result !== 'job') this.status = result;
    if (!host.powered && !this.busy) this.write(`${this.current} is powered off: only sim commands work here (sim power-on ${this.current})\n`);
  }

  private lookup(name: string): Command | null {
    let n = name;
    if (n.includes('/')) {
      const m = /^\/(?:usr\/)?(?:local\/)?s?bin\/([^/]+)$/.exec(n);
      if (m === null) return null;
      n = m[1]!;
    }
    return Object.prototype.hasOwnProperty.call(COMMANDS, n) ? COMMANDS[n]! : null;
  }

  /** Pathname expansion: a word with unquoted wildcards becomes the sorted names it matches, or stays as typed. */
  private expand(words: Word[]): string[] {
    const out: string[] = [];
    for (const w of words) {
      if (w.pattern === null) {
        out.push(w.text);
        continue;
      }
      const matches = this.glob(w.pattern);
      if (matches.length === 0) out.push(w.text);
      else out.push(...matches);
    }
    return out;
  }

  private glob(pattern: string): string[] {
    const absolute = pattern.startsWith('/');
    const parts = pattern.split('/').filter((p) => p !== '');
    let found: string[] = [absolute ? '/' : ''];
    for (const part of parts) {
      const next: string[] = [];
      const literal = !/(^|[^\\])[*?[]/.test(part);
      for (const base of found) {
        const dir = base === '' ? this.cwdPath : this.resolve(base);
        const prefix = base === '' ? '' : base.endsWith('/') ? base : base + '/';
        if (literal) {
          const name = part.replace(/\\(.)/g, '$1');
          if (this.exists(join(dir, name))) next.push(prefix + name);
          continue;
        }
        let names: string[];
        try {
          names = this.host.disk.readdir(dir);
        } catch {
          continue;
        }
        for (const n of names) if (globMatches(part, n)) next.push(prefix + n);
      }
      found = next;
      if (found.length === 0) return [];
    }
    return found.sort();
  }

  private exists(path: string): boolean {
    try {
      return this.host.disk.exists(path);
    } catch {
      return false;
    }
  }

  /** Where standard output and error go: the terminal, or files opened (and truncated) first. */
  private openRedirects(redirects: readonly Redirect[]): Streams | null {
    const terminal = (text: string): void => this.write(text);
    const streams: Streams = { out: terminal, err: terminal, outIsTerminal: true };
    for (const r of redirects) {
      let sink: (text: string) => void;
      if (r.target === '&1') {
        sink = streams.out;
      } else if (r.target === '/dev/null') {
        sink = () => {};
      } else {
        const path = this.resolve(r.target);
        const disk = this.host.disk;
        try {
          if (r.append) disk.appendFile(path, new Uint8Array(0));
          else disk.writeFile(path, new Uint8Array(0));
        } catch (e) {
          this.write(`bash: ${r.target}: ${errnoText(e)}\n`);
          return null;
        }
        let failed = false;
        sink = (text) => {
          if (failed || text === '') return;
          try {
            disk.appendFile(path, bytesToArray(text));
          } catch (e) {
            failed = true;
            this.write(`bash: ${r.target}: write error: ${errnoText(e)}\n`);
          }
        };
      }
      if (r.fd === 1) {
        streams.out = sink;
        streams.outIsTerminal = r.target === '&1';
      } else {
        streams.err = sink;
      }
    }
    return streams;
  }

  private context(host: Host, streams: Streams): CommandContext {
    const control: ShellControl = {
      setCwd: (path) => {
        this.oldCwdPath = this.cwdPath;
        this.cwdPath = path;
      },
      switchHost: (name) => this.switchHost(name),
      oldCwd: this.oldCwdPath,
      shellPid: this.login?.pid ?? 0,
      exit: () => {
        if (this.opts.onExit?.() === true) return true;
        // Nowhere to return to: the next line logs in again.
        this.login?.exit(0);
        return false;
      },
      interactiveRedisCli: (target) => this.opts.onRedisCli?.(target) ?? false,
    };
    return {
      world: this.world,
      host,
      cwd: this.cwdPath,
      home: this.home,
      columns: this.columns,
      isTerminal: streams.outIsTerminal,
      driver: this.opts.driver ?? null,
      shell: control,
      out: (text) => streams.out(text),
      err: (text) => streams.err(text),
      resolve: (path) => normalizePath(path.startsWith('/') ? path : join(this.cwdPath, path)),
      foreground: (name, argv, handlers) => this.startJob(host, name, argv, handlers),
      adopt: (proc) => this.adoptJob(host, proc),
    };
  }

  private startJob(host: Host, name: string, argv: readonly string[], handlers: JobHandlers): Job {
    const login = this.login!;
    const proc = new ProgramProcess(host, name, argv, login.tty, login.pid, this.world.kernel.now);
    host.spawn(proc);
    const job = new ForegroundJob(proc, handlers, (status) => this.jobEnded(job, status));
    proc.onSignal = (sig) => {
      if (!job.running) return;
      if (sig === 'INT') {
        handlers.onInterrupt();
        return;
      }
      // Programs here do not catch SIGTERM: they die, and bash says so.
      job.running = false;
      handlers.onKilled?.();
      proc.exit(143);
      this.write('Terminated\n');
      this.jobEnded(job, 143);
    };
    proc.onGone = () => {
      if (!job.running) return;
      job.running = false;
      handlers.onKilled?.();
      // A power cut reaps processes before the host goes dark: wait for the
      // end of this moment to tell a kill from a power loss.
      const bootId = host.bootId;
      this.world.kernel.at(this.world.kernel.now, () => {
        this.guard(() => {
          if (host.powered && host.bootId === bootId) this.write('Killed\n');
          this.jobEnded(job, 137);
        });
      });
    };
    login.foregroundBusy = true;
    this.job = job;
    return job;
  }

  private adoptJob(host: Host, proc: SimProcess): number | 'job' {
    if (!proc.alive) return proc.exitCode ?? 0;
    const job = new ForegroundJob(proc, { onInterrupt: () => proc.signal('INT') }, (status) => this.jobEnded(job, status));
    proc.exitListeners.push((code) => {
      if (!job.running) return;
      job.running = false;
      if (code !== 137) {
        this.jobEnded(job, code);
        return;
      }
      const bootId = host.bootId;
      this.world.kernel.at(this.world.kernel.now, () => {
        this.guard(() => {
          if (host.powered && host.bootId === bootId) this.write('Killed\n');
          this.jobEnded(job, 137);
        });
      });
    });
    if (this.login !== null) this.login.foregroundBusy = true;
    this.job = job;
    return 'job';
  }

  private jobEnded(job: ForegroundJob, status: number): void {
    if (this.job !== job) return;
    this.job = null;
    if (this.login !== null) this.login.foregroundBusy = false;
    this.status = status;
    // bash ends the line a program killed by Ctrl-C left open.
    if (status === 130) this.write('\n');
    if (!this.host.powered) this.write(`${this.current} is powered off: only sim commands work here (sim power-on ${this.current})\n`);
    while (this.queue.length !== 0 && this.job === null) this.execute(this.queue.shift()!);
    if (this.job === null && this.running === 0) this.onIdle?.();
  }

  private switchHost(name: string): void {
    const target = this.world.host(name);
    if (this.login !== null && this.login.alive) this.login.exit(0);
    this.login = null;
    this.current = target.name;
    this.cwdPath = '/';
    this.ensureLogin();
  }
}

interface Streams {
  out: (text: string) => void;
  err: (text: string) => void;
  outIsTerminal: boolean;
}

class ForegroundJob implements Job {
  running = true;

  constructor(
    readonly process: SimProcess,
    readonly handlers: JobHandlers,
    private readonly ended: (status: number) => void,
  ) {}

  finish(status: number): void {
    if (!this.running) return;
    this.running = false;
    if (this.process.alive) this.process.exit(status);
    this.ended(status);
  }
}

/** exit and logout: a login shell says "logout"; the terminal decides where that leads. */
const exitCommand: Command = (ctx) => {
  ctx.out('logout\n');
  ctx.shell.exit();
  return 0;
};

const COMMANDS: Record<string, Command> = {
  ls,
  cat,
  hexdump,
  sha256sum,
  cp,
  scp,
  rm,
  mkdir,
  rmdir,
  touch,
  sync,
  pwd,
  cd,
  echo,
  ps,
  kill,
  'redis-server': redisServer,
  'redis-sentinel': redisSentinel,
  'redis-cli': redisCli,
  'redis-benchmark': redisBenchmark,
  'redis-check-rdb': redisCheckRdb,
  'redis-check-aof': redisCheckAof,
  poweroff,
  date,
  ping,
  hostname,
  help,
  sim,
  sleep,
  sysctl,
  clear,
  exit: exitCommand,
  logout: exitCommand,
  true: trueCommand,
  false: falseCommand,
};

/** The names of the commands the shell runs, for Tab completion. */
export function shellCommandNames(): string[] {
  return Object.keys(COMMANDS).sort();
}
