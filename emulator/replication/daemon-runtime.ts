import { Snapshots } from '../persistence/snapshots.js';
import { AofEngine } from '../persistence/aof-engine.js';
import type { ProcessModule, ProcessServices, ShutdownRequest } from '../process/services.js';
import type { RedisServer } from '../server/server.js';
import type { RdbReplicationInfo } from './state.js';
import type { ChildKind, RdbPipe, ReplicationRuntime } from './server-runtime.js';
import type { PrimaryLink, PrimaryLinkEvents } from './replica-link.js';
import type { FileSystem } from '../sim/disk-api.js';

/**
 * Reference microseconds of CPU to load a kilobyte of RDB, as the
 * snapshot engine loads dump.rdb at start (cpu.ts scale).
 */
const LOAD_US_PER_KB = 6;

/**
 * Replication as a module of a redis-server process on a simulated host
 * (process/services.ts): its snapshot engine forks the RDB children, its
 * disk holds dbfilename, its log takes the lines, its connections reach a
 * primary, serverCron runs replicationCron, beforeSleep sends what
 * replicas are owed, and a shutdown waits for lagging replicas. Once the
 * process is gone it logs nothing more (its replicas' connections close
 * as it exits).
 */
export class DaemonReplicationRuntime implements ReplicationRuntime, ProcessModule {
  readonly immediate = false;

  constructor(private readonly p: ProcessServices) {
    p.server.replication.process = this;
    this.snapshots.childDoneListeners.push((ok, target) => p.server.replication.primary.bgsaveDone(ok, target));
  }

  private get server(): RedisServer {
    return this.p.server;
  }

  private get snapshots(): Snapshots {
    const s = this.p.module(Snapshots);
    if (s === null) throw new Error('replication needs the snapshot engine of its process');
    return s;
  }

  log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    if (this.p.alive) this.p.log(text, level);
  }

  step(text: string): void {
    if (this.p.alive) this.p.kernel.trace.add(this.p.host.name, 'repl', text);
  }

  // ---- the process's moments ----

  cron(): void {
    this.server.replication.cron();
  }

  beforeSleep(): void {
    this.server.replication.beforeSleep();
  }

  joinShutdown(request: ShutdownRequest): boolean {
    const primary = this.server.replication.primary;
    if (!primary.shutdownInitiated) return false;
    if (request.client !== null) primary.awaitShutdown(request.client);
    return true;
  }

  holdShutdown(request: ShutdownRequest, resume: () => boolean): boolean {
    return this.server.replication.primary.waitBeforeShutdown(request.flags.now, request.client, resume);
  }

  stop(): void {
    this.server.replication.primary.reportBeforeShutdown();
  }

  // ---- what replication asks of the process ----

  childKind(): ChildKind {
    const t = this.snapshots.childType;
    if (t !== null) return t;
    return this.p.hasActiveChild() ? 'other' : null;
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
      return this.p.host.disk.readFile(this.file);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  rdbFileExists(): boolean {
    try {
      return this.p.host.disk.exists(this.file);
    } catch {
      return false;
    }
  }

  removeRdbFile(): void {
    try {
      this.p.host.disk.unlink(this.file);
    } catch {
      // Gone already.
    }
  }

  dial(host: string, port: number, events: PrimaryLinkEvents): PrimaryLink | string {
    return this.p.connect(host, port, {
      connected: () => events.connected(),
      data: (bytes) => events.data(bytes),
      closed: (error) => events.closed(error ?? 'connection lost'),
    });
  }

  disk(): FileSystem {
    return this.p.host.disk;
  }

  pid(): number {
    return this.p.pid;
  }

  loadUs(bytes: number): number {
    const speed = this.p.host.profile.cpuSpeed;
    return speed === Infinity ? 0 : Math.round(((bytes / 1024) * LOAD_US_PER_KB) / speed);
  }

  after(us: number, done: () => void): void {
    this.p.after(us, done);
  }

  stopAof(): void {
    this.p.module(AofEngine)?.stopForSync();
  }

  restartAof(): void {
    const aof = this.p.module(AofEngine);
    if (aof === null || aof.restartAfterSync()) return;
    // Redis retries ten times a second apart, then gives up and exits; the
    // emulator's start fails only when a rewrite cannot fork, so it says so once.
    this.log('Failed enabling the AOF after successful master synchronization! Trying it again in one second.', 'warning');
  }
}
