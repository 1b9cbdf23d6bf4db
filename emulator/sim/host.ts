import type { Kernel } from './kernel.js';
import type { Listener, NetHost, Network, Socket } from './network.js';
import { Disk, DISK_PROFILES, type FileSystem } from './disk.js';

/**
 * A machine in the world: a name, power, processes, ports, and (with the
 * disk) files. Profiles carry the numbers the book gives for the machines
 * Redis runs on.
 */
export interface HostProfile {
  readonly name: string;
  /** Speed relative to the reference Core 2 Duo at 2.4 GHz (cpu.ts). */
  readonly cpuSpeed: number;
  /**
   * Time fork() takes per GB of the parent's memory (copying page tables):
   * Redis in Action section 4.1.1 gives 10-20 ms per GB on bare metal and
   * VMware or KVM, 200-300 ms per GB on Xen.
   */
  readonly forkMsPerGb: number;
  /** The disk kind (disk profiles in disk.ts). */
  readonly disk: 'hdd' | 'ssd' | 'nvme';
  readonly memoryBytes: number;
}

export const HOST_PROFILES = {
  /**
   * The machine the Node process itself runs on (`npm run server`): its real
   * CPU already spends real time on each command, so the model adds none.
   */
  native: { name: 'native', cpuSpeed: Infinity, forkMsPerGb: 15, disk: 'ssd', memoryBytes: 16 * 2 ** 30 },
  /** The book's benchmark machine (listing 4.10): a 2.4 GHz Core 2 Duo desktop with a spinning disk. */
  core2duo: { name: 'core2duo', cpuSpeed: 1, forkMsPerGb: 15, disk: 'hdd', memoryBytes: 4 * 2 ** 30 },
  /** A bare-metal server of today with an SSD. */
  metal: { name: 'metal', cpuSpeed: 4, forkMsPerGb: 10, disk: 'ssd', memoryBytes: 64 * 2 ** 30 },
  /** A VMware or KVM virtual machine: fork about as fast as on bare metal. */
  kvm: { name: 'kvm', cpuSpeed: 3, forkMsPerGb: 20, disk: 'ssd', memoryBytes: 16 * 2 ** 30 },
  /** A Xen virtual machine (older cloud instances): fork is ten times slower. */
  xen: { name: 'xen', cpuSpeed: 2, forkMsPerGb: 250, disk: 'ssd', memoryBytes: 16 * 2 ** 30 },
} as const satisfies Record<string, HostProfile>;

export type HostProfileName = keyof typeof HOST_PROFILES;

/** A program running on a host. Subclasses are redis-server, clients, tools. */
export abstract class SimProcess {
  pid = 0;
  alive = true;
  readonly sockets = new Set<Socket>();
  exitCode: number | null = null;

  constructor(
    readonly host: Host,
    readonly name: string,
    readonly argv: readonly string[],
  ) {}

  /** Signals: TERM asks the program to stop (redis-server shuts down cleanly), KILL ends it at once. */
  signal(sig: 'TERM' | 'KILL' | 'INT'): void {
    if (!this.alive) return;
    if (sig === 'KILL') this.host.reap(this, 137, 'killed');
    else this.onTerminate(sig);
  }

  /** What the program does on SIGTERM/SIGINT; by default it exits. */
  protected onTerminate(_sig: 'TERM' | 'INT'): void {
    this.exit(0);
  }

  /** The program ends by itself. */
  exit(code: number): void {
    this.host.reap(this, code, 'exited');
  }

  /** Called once when the process is gone, however it ended; release resources here. */
  onExit(): void {}

  /** Others who want to know when the process ends (the Node server exits with it). */
  readonly exitListeners: Array<(code: number) => void> = [];

  /** Time a piece of work of `us` reference microseconds takes on this host. */
  cpu(us: number): number {
    return us / this.host.profile.cpuSpeed;
  }
}

/** A program of the machine that a process started (fork and execve): its pid, and SIGKILL. */
export interface ExecutedProgram {
  readonly pid: number;
  kill(): void;
}

/**
 * The machine's own programs, the files a process may execute (Sentinel's
 * notification and client-reconfig scripts). A host that stands for the
 * machine it runs on (src/node) runs its real files; a simulated host has
 * none unless it is given some. Paths are taken from `cwd` when relative,
 * as execve takes them from the working directory.
 */
export interface HostPrograms {
  /** access(path, X_OK): whether the file exists and may be executed. */
  executable(path: string, cwd: string): boolean;
  /**
   * Starts the program with `argv` (argv[0] is the path, as given). Once it
   * ends, `exited` gets its exit code and the signal that ended it (0 when
   * none). Null when it cannot be started at all (fork failed).
   */
  run(path: string, argv: readonly string[], cwd: string, exited: (code: number, signal: number) => void): ExecutedProgram | null;
}

export class Host implements NetHost {
  powered = true;
  /** The programs on this machine a process may execute; none on a simulated host. */
  programs: HostPrograms | null = null;
  bootId = 1;
  readonly processes = new Map<number, SimProcess>();
  private listeners = new Map<number | string, Listener>();
  private nextPid = 1000;
  /** The host's files: a simulated disk of the profile's kind, or a real folder (src/node). */
  disk: FileSystem;

  constructor(
    readonly kernel: Kernel,
    readonly net: Network,
    readonly name: string,
    public profile: HostProfile,
    /** Its address on the simulated network. */
    readonly ip: string = '10.0.0.1',
    disk?: FileSystem,
  ) {
    this.disk = disk ?? new Disk(kernel, name, DISK_PROFILES[profile.disk]);
  }

  listener(port: number | string): Listener | undefined {
    return this.powered ? this.listeners.get(port) : undefined;
  }

  /** Accepts connections on a port (or Unix socket path); false if it is taken. */
  listen(port: number | string, accept: (s: Socket) => void): boolean {
    if (this.listeners.has(port)) return false;
    this.listeners.set(port, { host: this, port, accept });
    return true;
  }

  unlisten(port: number | string): void {
    this.listeners.delete(port);
  }

  /**
   * Numbers the next processes from `pid`: a host that stands for the
   * machine it runs on (npm run server) gives its redis-server the
   * operating system's pid, the one its log and INFO show.
   */
  numberProcessesFrom(pid: number): void {
    this.nextPid = pid;
  }

  /** Starts a program; it gets the next pid. */
  spawn<P extends SimProcess>(proc: P): P {
    proc.pid = this.nextPid++;
    this.processes.set(proc.pid, proc);
    this.kernel.trace.add(this.name, 'spawn', `${proc.pid} ${proc.argv.join(' ')}`);
    for (const l of this.spawnListeners) l(proc);
    return proc;
  }

  /** Told of each new process before it starts (whoever shows a process's output from its first line). */
  readonly spawnListeners: Array<(proc: SimProcess) => void> = [];

  /** A process ends: its sockets close, its ports free up. */
  reap(proc: SimProcess, code: number, how: 'killed' | 'exited' | 'power-loss'): void {
    if (!proc.alive) return;
    proc.alive = false;
    proc.exitCode = code;
    this.processes.delete(proc.pid);
    for (const [port, l] of this.listeners) if (ownerOf(l) === proc) this.listeners.delete(port);
    this.kernel.trace.add(this.name, 'exit', `${proc.pid} ${proc.name} ${how} ${code}`);
    try {
      proc.onExit();
      for (const l of proc.exitListeners) l(code);
    } finally {
      // The kernel drops what the process had buffered but not written.
      if (how !== 'power-loss') this.disk.killProcess(proc.pid);
      if (how !== 'power-loss') this.net.closeSockets([...proc.sockets]);
      proc.sockets.clear();
    }
  }

  /** Power is cut: every process dies at once, sockets vanish, the page cache is lost. */
  powerOff(): void {
    if (!this.powered) return;
    this.kernel.trace.add(this.name, 'power-loss', 'power cut');
    for (const p of [...this.processes.values()]) this.reap(p, 137, 'power-loss');
    this.listeners.clear();
    this.net.hostDown(this.name);
    this.powered = false;
    this.disk.powerLoss();
  }

  /** Power back: the machine boots with no processes. */
  powerOn(): void {
    if (this.powered) return;
    this.powered = true;
    this.bootId++;
    this.kernel.trace.add(this.name, 'boot', `boot ${this.bootId}`);
  }

  /** The process with a pid, if alive. */
  process(pid: number): SimProcess | undefined {
    return this.processes.get(pid);
  }
}

const owners = new WeakMap<Listener, SimProcess>();

/** Listens on behalf of a process, so the port is freed when it ends. */
export function listenFor(proc: SimProcess, port: number | string, accept: (s: Socket) => void): boolean {
  if (!proc.host.listen(port, accept)) return false;
  const l = proc.host.listener(port);
  if (l) owners.set(l, proc);
  return true;
}

function ownerOf(l: Listener): SimProcess | undefined {
  return owners.get(l);
}
