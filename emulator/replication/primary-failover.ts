import { errorReply, OK, type Reply } from '../resp/reply.js';
import { asciiLower } from '../resp/bytes.js';
import { parseInt64 } from '../numbers/int64.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import type { ReplicaLink } from './primary-replica-link.js';
import type { ReplicationState } from './state.js';

/**
 * FAILOVER (src/replication.c failoverCommand, updateFailoverStatus): a
 * primary hands over to one of its replicas without losing writes. It
 * pauses writes, waits until a replica (the one named, or any) has
 * acknowledged the whole stream, then becomes a replica of it and asks it,
 * with PSYNC ... FAILOVER, to become the primary. A timeout aborts it, or
 * with FORCE hands over anyway.
 */

/** NO_FAILOVER, FAILOVER_WAIT_FOR_SYNC, FAILOVER_IN_PROGRESS as INFO shows them. */
export type FailoverState = 'no-failover' | 'waiting-for-sync' | 'failover-in-progress';

export class Failover {
  state: FailoverState = 'no-failover';
  /** failover_end_time: unix ms, 0 for no timeout. */
  private endMs = 0;
  private force = false;
  private targetHost: string | null = null;
  private targetPort = 0;

  constructor(private readonly s: ReplicationState) {}

  /** FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | ABORT. */
  command(argv: string[]): Reply {
    const s = this.s;
    if (argv.length === 2 && asciiLower(argv[1]!) === 'abort') {
      if (this.state === 'no-failover') return errorReply('No failover in progress.');
      this.abort('Failover manually aborted');
      return OK;
    }
    let timeoutMs = 0;
    let force = false;
    let port = 0;
    let host: string | null = null;
    for (let j = 1; j < argv.length; j++) {
      const opt = asciiLower(argv[j]!);
      if (opt === 'timeout' && j + 1 < argv.length && timeoutMs === 0) {
        const v = parseInt64(argv[j + 1]!);
        if (v === null) return NOT_INTEGER;
        if (v <= 0n) return errorReply('FAILOVER timeout must be greater than 0');
        timeoutMs = Number(v);
        j++;
      } else if (opt === 'to' && j + 2 < argv.length && host === null) {
        const v = parseInt64(argv[j + 2]!);
        if (v === null) return NOT_INTEGER;
        port = Number(v);
        host = argv[j + 1]!;
        j += 2;
      } else if (opt === 'force' && !force) {
        force = true;
      } else {
        return SYNTAX_ERROR;
      }
    }
    if (this.state !== 'no-failover') return errorReply('FAILOVER already in progress.');
    if (s.masterHost !== null) return errorReply('FAILOVER is not valid when server is a replica.');
    if (s.primary.replicas.length === 0) return errorReply('FAILOVER requires connected replicas.');
    if (force && (timeoutMs === 0 || host === null)) return errorReply('FAILOVER with force option requires both a timeout and target HOST and IP.');
    if (host !== null) {
      const r = this.findReplica(host, port);
      if (r === null) return errorReply('FAILOVER target HOST and PORT is not a replica.');
      if (r.state !== 'online') return errorReply('FAILOVER target replica is not online.');
      this.targetHost = host;
      this.targetPort = port;
      s.log(`FAILOVER requested to ${host}:${port}.`);
    } else {
      s.log('FAILOVER requested to any replica.');
    }
    if (timeoutMs !== 0) this.endMs = s.server.nowMs + timeoutMs;
    this.force = force;
    this.state = 'waiting-for-sync';
    // Writes wait until the handover; the replicas still get the stream.
    s.server.pause.pause('failover', Number.MAX_SAFE_INTEGER, 'write');
    return OK;
  }

  /** findReplica: the replica at host:port, by its announced or peer address. */
  private findReplica(host: string, port: number): ReplicaLink | null {
    const p = this.s.primary;
    for (const c of p.replicas) {
      const r = p.link(c);
      if (asciiLower(host) === asciiLower(r.ip) && port === r.listeningPort) return r;
    }
    return null;
  }

  /** clearFailoverState: the handover is over, writes go on. */
  clear(): void {
    this.endMs = 0;
    this.force = false;
    this.targetHost = null;
    this.targetPort = 0;
    this.state = 'no-failover';
    this.s.server.pause.unpause('failover');
  }

  /** abortFailover: a server already turned into a replica becomes a primary again. */
  abort(reason: string): void {
    if (this.state === 'no-failover') return;
    const s = this.s;
    if (this.targetHost !== null) s.log(`FAILOVER to ${this.targetHost}:${this.targetPort} aborted: ${reason}`);
    else s.log(`FAILOVER to any replica aborted: ${reason}`);
    if (this.state === 'failover-in-progress') s.replica.unsetMaster();
    this.clear();
  }

  /**
   * updateFailoverStatus, from replicationCron and after each event loop
   * pass: the timeout, then a replica that acknowledged everything.
   */
  update(): void {
    if (this.state !== 'waiting-for-sync') return;
    const s = this.s;
    if (this.endMs !== 0 && this.endMs <= s.server.nowMs) {
      if (this.force) {
        s.log(`FAILOVER to ${this.targetHost}:${this.targetPort} time out exceeded, failing over.`);
        this.state = 'failover-in-progress';
        s.replica.setMaster(this.targetHost!, this.targetPort);
      } else {
        this.abort('Replica never caught up before timeout');
      }
      return;
    }
    const offset = s.masterReplOffset;
    let target: ReplicaLink | null = null;
    if (this.targetHost !== null) {
      target = this.findReplica(this.targetHost, this.targetPort);
    } else {
      const p = s.primary;
      for (const c of p.replicas) {
        const r = p.link(c);
        if (r.ackOffset !== offset) continue;
        this.targetHost = r.ip;
        this.targetPort = r.listeningPort;
        target = r;
        break;
      }
    }
    if (target === null || target.ackOffset !== offset) return;
    this.state = 'failover-in-progress';
    s.log(`Failover target ${this.targetHost}:${this.targetPort} is synced, failing over.`);
    s.replica.setMaster(this.targetHost!, this.targetPort);
  }
}
