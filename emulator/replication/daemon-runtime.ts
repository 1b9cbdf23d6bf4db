import type { Snapshots } from '../persistence/snapshots.js';
import type { RedisServer } from '../server/server.js';
import type { FileSystem } from '../sim/disk-api.js';
import type { RdbReplicationInfo } from './state.js';
import type { ChildKind, RdbPipe, ReplicationRuntime } from './server-runtime.js';
import type { PrimaryLink, PrimaryLinkEvents } from './replica-link.js';

/** What the process running a redis-server gives its replication. */
export interface DaemonReplicationHost {
  readonly server: RedisServer;
  readonly snapshots: Snapshots;
  disk(): FileSystem;
  log(text: string, level: 'notice' | 'warning'): void;
  alive(): boolean;
  pid(): number;
  /** The host's CPU speed relative to the reference machine. */
  cpuSpeed(): number;
  /** Runs `done` after `us` of virtual time, if the process is still alive then. */
  after(us: number, done: () => void): void;
  dial(host: string, port: number, events: PrimaryLinkEvents): PrimaryLink | string;
}

/**
 * Reference microseconds of CPU to load a kilobyte of RDB, as the
 * snapshot engine loads dump.rdb at start (cpu.ts scale).
 */
const LOAD_US_PER_KB = 6;

/**
 * The replication process of a redis-server running on a simulated host:
 * its snapshot engine forks the RDB children, its disk holds dbfilename,
 * its log takes the lines, its network reaches a primary. Once the process
 * is gone it logs nothing more (its replicas' connections close as it exits).
 */
export class DaemonReplicationRuntime implements ReplicationRuntime {
  readonly immediate = false;
  private readonly server: RedisServer;
  private readonly snapshots: Snapshots;

  constructor(private readonly host: DaemonReplicationHost) {
    this.server = host.server;
    this.snapshots = host.snapshots;
    const server = this.server;
    this.snapshots.childDoneListeners.push((ok, target) => server.replication.primary.bgsaveDone(ok, target));
  }

  log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    if (this.host.alive()) this.host.log(text, level);
  }

  childKind(): ChildKind {
    const t = this.snapshots.childType;
    if (t !== null) return t;
    return this.snapshots.otherChildActive() ? 'other' : null;
  }

  startDiskSave(): boolean {
    return this.snapshots.bgsave() === 'started';
  }

  startSocketSave(pipe: RdbPipe, excludeData: boolean, replication: RdbReplicationInfo): boolean {
    return this.snapshots.bgsaveToSockets(pipe, { excludeData, replication }) === 'started';
  }

  killRdbChild(): void {
    this.snapshots.killChild();
  }

  checkChildDone(): void {
    this.snapshots.checkChildDone();
  }

  private get file(): string {
    const dir = this.server.config.get('dir');
    const name = this.server.config.get('dbfilename');
    return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
  }

  readRdbFile(): Uint8Array | string {
    try {
      return this.host.disk().readFile(this.file);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  rdbFileExists(): boolean {
    try {
      return this.host.disk().exists(this.file);
    } catch {
      return false;
    }
  }

  removeRdbFile(): void {
    try {
      this.host.disk().unlink(this.file);
    } catch {
      // Gone already.
    }
  }

  dial(host: string, port: number, events: PrimaryLinkEvents): PrimaryLink | string {
    return this.host.dial(host, port, events);
  }

  disk(): FileSystem {
    return this.host.disk();
  }

  pid(): number {
    return this.host.pid();
  }

  loadUs(bytes: number): number {
    const speed = this.host.cpuSpeed();
    return speed === Infinity ? 0 : Math.round(((bytes / 1024) * LOAD_US_PER_KB) / speed);
  }

  after(us: number, done: () => void): void {
    this.host.after(us, done);
  }
}
