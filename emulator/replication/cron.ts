import type { RedisServer } from '../server/server.js';
import type { ReplicationState } from './state.js';
import { PING_COMMAND } from './stream.js';

/**
 * replicationCron (src/replication.c), run once a second from serverCron:
 * the PING every repl-ping-replica-period, newlines to replicas waiting
 * for their RDB, replicas that stopped acknowledging, the backlog's TTL,
 * the BGSAVE replicas wait for, and the RDB made only for replicas.
 */
export class ReplicationCron {
  /**
   * serverCron's and replicationCron's loop counters. Redis's first
   * serverCron runs a millisecond after start, before any client can
   * connect; the process here runs its first one a tick later, so the
   * counts start as if that first round had run.
   */
  private serverCronLoops = 1;
  private replicationCronLoops = 1;

  constructor(private readonly s: ReplicationState) {}

  /** serverCron's part, hz times a second: replicationCron runs once a second (run_with_period(1000)). */
  tick(): void {
    const hz = Math.min(500, Math.max(1, this.s.server.config.getNumber('hz')));
    const every = Math.max(1, Math.floor(1000 / Math.floor(1000 / hz)));
    if (this.serverCronLoops++ % every === 0) this.run();
  }

  /** replicationCron itself. */
  run(): void {
    const s = this.s;
    const p = s.primary;
    const server = s.server;
    server.updateTime();
    const cfg = server.config;
    const nowS = s.nowS;
    s.primary.updateFailover();
    if (s.hasReplicaPart) s.replica.cron();
    if (this.replicationCronLoops % cfg.getNumber('repl-ping-replica-period') === 0 && p.replicas.length !== 0) {
      p.feedCommand(p.slaveSelDb, PING_COMMAND);
    }
    // Replicas still waiting for their RDB hear a newline each second, so they do not time out.
    const child = s.process.childKind();
    for (const c of p.replicas) {
      const r = p.link(c);
      if (r.state === 'wait_bgsave_start' || (r.state === 'wait_bgsave_end' && child !== 'socket')) c.rawOutput?.write('\n');
    }
    const timeoutS = cfg.getNumber('repl-timeout');
    for (const c of [...p.replicas]) {
      const r = p.link(c);
      if (r.state === 'online' && !r.prePsync && nowS - r.ackTimeS > timeoutS) {
        p.log(`Disconnecting timedout replica (streaming sync): ${r.name}`, 'warning');
        server.kill(c);
      } else if (r.state === 'wait_bgsave_end' && child === 'socket' && r.lastPartialWriteS !== 0 && nowS - r.lastPartialWriteS > timeoutS) {
        p.log(`Disconnecting timedout replica (full sync): ${r.name}`, 'warning');
        server.kill(c);
      }
    }
    const ttl = cfg.getNumber('repl-backlog-ttl');
    if (p.replicas.length === 0 && ttl > 0 && s.buffer !== null && s.masterHost === null && nowS - p.noReplicasSinceS > ttl) {
      // Without a backlog the offset stops counting: the old ID must not be trusted any more.
      s.changeReplicationId();
      s.clearReplicationId2();
      s.freeBacklog();
      s.log(`Replication backlog freed after ${ttl} seconds without connected replicas.`);
    }
    this.startPendingFork();
    this.removeRdbUsedToSyncReplicas();
    p.refreshGoodReplicas();
    this.replicationCronLoops++;
  }

  /**
   * replicationStartPendingFork: a BGSAVE for the replicas waiting for one
   * (those with the first one's requirements), once no child runs; a
   * diskless one waits repl-diskless-sync-delay for more replicas to come.
   */
  startPendingFork(): void {
    const s = this.s;
    const p = s.primary;
    if (s.process.childKind() !== null) return;
    const nowS = s.nowS;
    let waiting = 0;
    let maxIdle = 0;
    let mincapa = 0;
    let req = 0;
    for (const c of p.replicas) {
      const r = p.link(c);
      if (r.state !== 'wait_bgsave_start') continue;
      if (waiting === 0) req = r.req;
      else if (r.req !== req) continue;
      maxIdle = Math.max(maxIdle, nowS - Math.floor(c.lastInteractionMs / 1000));
      mincapa = waiting === 0 ? r.capa : mincapa & r.capa;
      waiting++;
    }
    if (waiting === 0) return;
    const cfg = p.server.config;
    const maxReplicas = cfg.getNumber('repl-diskless-sync-max-replicas');
    if (!cfg.getBool('repl-diskless-sync') || (maxReplicas > 0 && waiting >= maxReplicas) || maxIdle >= cfg.getNumber('repl-diskless-sync-delay')) {
      p.synchronization.startBgsaveForReplication(mincapa, req);
    }
  }

  /** rdb-del-sync-files: a server with no persistence does not keep the RDB it made for replicas. */
  private removeRdbUsedToSyncReplicas(): void {
    const s = this.s;
    const p = s.primary;
    const cfg = p.server.config;
    // A server that never served a replica made no RDB for one.
    if (!p.hasSynchronization) return;
    if (!cfg.getBool('rdb-del-sync-files')) {
      p.synchronization.rdbGeneratedByReplication = false;
      return;
    }
    const persistenceOff = noSaveRules(p.server) && !cfg.getBool('appendonly');
    if (!persistenceOff || !p.synchronization.rdbGeneratedByReplication) return;
    for (const c of p.replicas) {
      const s = p.link(c).state;
      if (s === 'wait_bgsave_start' || s === 'wait_bgsave_end' || s === 'send_bulk') return;
    }
    if (!s.process.rdbFileExists()) return;
    p.synchronization.rdbGeneratedByReplication = false;
    s.log('Removing the RDB file used to feed replicas in a persistence-less instance');
    s.process.removeRdbFile();
  }
}

/** The `save` parameter holds no rule (saveparamslen == 0). */
export function noSaveRules(server: RedisServer): boolean {
  return server.config.get('save').trim() === '';
}
