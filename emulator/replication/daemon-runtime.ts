import type { Snapshots } from '../persistence/snapshots.js';
import type { RedisServer } from '../server/server.js';
import type { FileSystem } from '../sim/disk.js';
import type { RdbReplicationInfo } from './state.js';
import type { ChildKind, RdbPipe, ReplicationRuntime } from './server-runtime.js';

/**
 * The replication process of a redis-server running on a simulated host:
 * its snapshot engine forks the RDB children, its disk holds dbfilename,
 * its log takes the lines. Once the process is gone it logs nothing more
 * (its replicas' connections close as it exits).
 */
export class DaemonReplicationRuntime implements ReplicationRuntime {
  readonly immediate = false;

  constructor(
    private readonly server: RedisServer,
    private readonly snapshots: Snapshots,
    private readonly disk: () => FileSystem,
    private readonly logLine: (text: string, level: 'notice' | 'warning') => void,
    private readonly alive: () => boolean,
  ) {
    snapshots.childDoneListeners.push((ok, target) => server.replication.primary.bgsaveDone(ok, target));
  }

  log(text: string, level: 'notice' | 'warning' = 'notice'): void {
    if (this.alive()) this.logLine(text, level);
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
      return this.disk().readFile(this.file);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  rdbFileExists(): boolean {
    try {
      return this.disk().exists(this.file);
    } catch {
      return false;
    }
  }

  removeRdbFile(): void {
    try {
      this.disk().unlink(this.file);
    } catch {
      // Gone already.
    }
  }
}
