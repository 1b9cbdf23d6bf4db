import type { RawOutput } from '../server/client.js';
import type { ReplicaLink } from './primary-replica-link.js';

/**
 * Moving bytes to replicas at the pace their sockets take them: the RDB
 * file of a disk-target sync (sendBulkToSlave), and the pipe of a diskless
 * one, which advances only when every replica took the last piece
 * (rdbPipeReadHandler and rdbPipeWriteHandler).
 */

/**
 * How much of an RDB file is handed to a replica's socket each time it can
 * take more. Redis reads 16 KB per writable event; a larger piece gives the
 * same pace in fewer simulated events.
 */
export const BULK_PIECE_BYTES = 64 * 1024;

/**
 * Calls `step` each time the socket can take more, until it returns false.
 * A transport that is writable at once (no simulated network) runs the
 * steps in a loop rather than by recursion.
 */
export function pump(out: RawOutput, step: () => boolean): void {
  for (;;) {
    if (!step()) return;
    let waiting = true;
    let readyNow = false;
    out.whenWritable(() => {
      if (waiting) readyNow = true;
      else pump(out, step);
    });
    waiting = false;
    if (!readyNow) return;
  }
}

/**
 * A diskless transfer in progress: the replicas the child's pipe feeds.
 * Each piece goes to every replica still there; the child may write the
 * next one once all of them took it.
 */
export class DisklessTransfer {
  readonly targets: Set<ReplicaLink>;
  private readonly waiting = new Set<ReplicaLink>();
  private next: (() => void) | null = null;

  constructor(
    targets: Iterable<ReplicaLink>,
    /** Counts the bytes each replica is sent (stat_net_repl_output_bytes). */
    private readonly sent: (bytes: number) => void,
    /** Unix seconds now, for the replicas' last partial writes. */
    private readonly nowS: () => number,
  ) {
    this.targets = new Set(targets);
  }

  /** Sends a piece of the pipe to every replica; `next` once all can take more. False when none is left. */
  write(piece: string, next: () => void): boolean {
    if (this.targets.size === 0) return false;
    this.next = next;
    for (const t of this.targets) this.waiting.add(t);
    for (const t of [...this.targets]) {
      const out = t.client.rawOutput;
      if (out === null) {
        this.ready(t);
        continue;
      }
      out.write(piece);
      this.sent(piece.length);
      // A replica whose socket cannot take the piece at once has its time
      // of last partial write set, until it takes the rest
      // (rdbPipeReadHandler, rdbPipeWriteHandlerConnRemoved): replicationCron
      // drops one that stays so for longer than repl-timeout, since the
      // child, and every other replica, wait for it. Redis also renews the
      // time each time part of the rest goes; here a piece is taken whole.
      let writing = true;
      let tookAll = false;
      out.whenWritable(() => {
        if (writing) {
          tookAll = true;
          return;
        }
        t.lastPartialWriteS = 0;
        this.ready(t);
      });
      writing = false;
      if (tookAll) this.ready(t);
      else t.lastPartialWriteS = this.nowS();
    }
    return true;
  }

  /** A replica's socket can take more. */
  private ready(t: ReplicaLink): void {
    if (!this.waiting.delete(t) || this.waiting.size !== 0 || this.next === null) return;
    const next = this.next;
    this.next = null;
    next();
  }

  /** A replica went away: the transfer goes on without it. */
  drop(t: ReplicaLink): void {
    this.targets.delete(t);
    this.ready(t);
  }
}
