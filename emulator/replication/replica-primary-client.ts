import type { Client } from '../server/client.js';
import type { ServerConnection } from '../server/connection.js';

/**
 * The primary as the replica knows it (the client struct of server.master
 * and server.cached_master): which history it follows, how much of the
 * stream it read and applied, when it last heard from it.
 */
export class PrimaryClient {
  /** The connection once it is the primary's client; null for a cached one. */
  conn: ServerConnection | null = null;
  /** Bytes read but not applied yet: what is proxied to sub-replicas as it is applied. */
  private unapplied = '';
  private unappliedPos = 0;

  /** The id of the client Redis keeps for this primary, cached or not; null until it has one. */
  clientId: number | null = null;

  constructor(
    /** The primary's replication ID. */
    public replId: string,
    /** The offset applied (reploff). */
    public reploff: number,
    /** The offset read (read_reploff). */
    public readReploff: number,
    /** server.unixtime of the last read (lastinteraction). */
    public lastInteractionS: number,
    /** The database the stream had selected. */
    public db: number,
  ) {}

  /** A primary that does not know offsets (CLIENT_PRE_PSYNC). */
  get prePsync(): boolean {
    return this.reploff === -1;
  }

  get client(): Client | null {
    return this.conn?.client ?? null;
  }

  received(bytes: string): void {
    this.unapplied = this.unappliedPos === this.unapplied.length ? bytes : this.unapplied.slice(this.unappliedPos) + bytes;
    this.unappliedPos = 0;
    this.readReploff += bytes.length;
  }

  /** The next `n` bytes read were applied: they are returned for the sub-replicas. */
  applied(n: number): string {
    const out = this.unapplied.substr(this.unappliedPos, n);
    this.unappliedPos += n;
    this.reploff += n;
    return out;
  }

  /** What was read and not applied is dropped (replicationCacheMaster). */
  dropUnapplied(): void {
    this.unapplied = '';
    this.unappliedPos = 0;
    this.readReploff = this.reploff;
  }
}
