import { errorReply, type Reply } from '../resp/reply.js';
import { parseInt64 } from '../numbers/int64.js';
import { NOT_INTEGER } from '../server/errors.js';
import { BLOCKED } from '../server/blocking.js';
import type { Client } from '../server/client.js';
import { GETACK_COMMAND } from './stream.js';
import type { ReplicationPrimary } from './primary.js';

/**
 * WAIT numreplicas timeout (src/replication.c waitCommand): a client
 * waits until that many replicas have acknowledged every write it made
 * (its offset after its last command), or the timeout passes; it gets
 * the count either way. The replicas are asked for an ACK once per event
 * loop pass in which someone started waiting (REPLCONF GETACK in the
 * stream), and each ACK that arrives may release waiting clients.
 */
export class WaitingForReplicas {
  /** clients_waiting_acks: the newest first, as Redis adds them. */
  private readonly clients: Client[] = [];
  /** get_ack_from_slaves: a GETACK is due before the pass ends. */
  private ackRequested = false;
  private readonly want = new WeakMap<Client, { offset: number; numreplicas: number }>();

  constructor(private readonly p: ReplicationPrimary) {}

  /** WAIT. */
  command(c: Client, argv: string[]): Reply {
    const p = this.p;
    if (p.state.masterHost !== null) {
      return errorReply(
        'WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.',
      );
    }
    const n = parseInt64(argv[1]!);
    if (n === null) return NOT_INTEGER;
    const t = parseInt64(argv[2]!);
    if (t === null) return errorReply('timeout is not an integer or out of range');
    if (t < 0n) return errorReply('timeout is negative');
    const offset = c.woff;
    const acked = this.countAcks(offset);
    if (acked >= Number(n) || c.inMulti) return acked;
    // The count is read as a long but kept in the blocked client's int
    // (bpop.numreplicas), so 2^32 + 1 waits for one replica and 2^31 for
    // a negative number, which the next pass before sleeping satisfies.
    const numreplicas = Number(BigInt.asIntN(32, BigInt(n)));
    const timeoutMs = t > 0n ? Number(t) + p.server.nowMs : 0;
    this.clients.unshift(c);
    this.want.set(c, { offset, numreplicas });
    p.server.blocking.block(c, {
      kind: 'wait',
      keys: [],
      timeoutMs,
      serve: () => ({ reply: 0, deleted: false }),
      timeoutReply: () => this.countAcks(offset),
      onUnblock: () => {
        const i = this.clients.indexOf(c);
        if (i >= 0) this.clients.splice(i, 1);
      },
    });
    this.ackRequested = true;
    return BLOCKED;
  }

  /** replicationCountAcksByOffset: online replicas that acknowledged `offset`. */
  countAcks(offset: number): number {
    const p = this.p;
    let n = 0;
    for (const c of p.replicas) {
      const r = p.link(c);
      if (r.state === 'online' && r.ackOffset >= offset) n++;
    }
    return n;
  }

  /**
   * beforeSleep's part: the GETACK asked for this pass (unless clients are
   * paused, since it would grow the stream), then the waiting clients an
   * ACK may have satisfied.
   */
  beforeSleep(): void {
    const p = this.p;
    if (this.ackRequested && !p.server.pause.paused()) {
      this.ackRequested = false;
      p.feedCommand(p.slaveSelDb, GETACK_COMMAND);
    }
    if (this.clients.length !== 0) this.release();
  }

  /** processClientsWaitingReplicas. */
  private release(): void {
    let lastOffset = 0;
    let lastCount = 0;
    for (const c of [...this.clients]) {
      const w = this.want.get(c)!;
      if (lastOffset !== 0 && lastOffset >= w.offset && lastCount >= w.numreplicas) {
        this.p.server.blocking.unblock(c, lastCount);
        continue;
      }
      const n = this.countAcks(w.offset);
      if (n >= w.numreplicas) {
        lastOffset = w.offset;
        lastCount = n;
        this.p.server.blocking.unblock(c, n);
      }
    }
  }
}
