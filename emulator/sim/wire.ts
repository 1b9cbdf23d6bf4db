/**
 * A record of the bytes crossing the network, kept for the message view:
 * each piece a socket sent, with when it left, when it arrives, between
 * which ends, its size and its first bytes (enough to tell a PING from an
 * RDB). Recording is off until a viewer asks for it, and only the newest
 * pieces are kept, so a long benchmark costs nothing and a page little.
 * It is not part of the trace (nor of its hash): looking does not change
 * the world.
 */

/** One piece of a connection's byte stream. */
export interface WirePiece {
  /** Virtual time it left and arrives, microseconds since the Unix epoch. */
  readonly sentUs: number;
  readonly arriveUs: number;
  /** The sending end: host name and port (a number, or a Unix socket path). */
  readonly fromHost: string;
  readonly fromPort: number | string;
  readonly toHost: string;
  readonly toPort: number | string;
  /** The sending socket's id: the pieces of one direction of one connection share it. */
  readonly socket: number;
  /** Its length in bytes. */
  readonly bytes: number;
  /** Its first bytes, as a byte string. */
  readonly head: string;
}

/** Bytes of each piece kept for its label. */
export const WIRE_HEAD_BYTES = 96;

export class WireRecorder {
  private readonly ring: WirePiece[] = [];
  private next = 0;
  /** Pieces recorded since the start, for viewers that follow it. */
  count = 0;

  constructor(
    /** How many pieces are kept. */
    readonly limit = 4000,
  ) {}

  add(piece: WirePiece): void {
    if (this.ring.length < this.limit) this.ring.push(piece);
    else this.ring[this.next] = piece;
    this.next = (this.next + 1) % this.limit;
    this.count++;
  }

  /** The pieces kept, oldest first. */
  pieces(): WirePiece[] {
    return this.ring.length < this.limit ? [...this.ring] : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }
}

/** The first bytes of a chunk as a byte string. */
export function headOf(data: Uint8Array | string): string {
  if (typeof data === 'string') return data.length <= WIRE_HEAD_BYTES ? data : data.slice(0, WIRE_HEAD_BYTES);
  const n = Math.min(data.length, WIRE_HEAD_BYTES);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(data[i]!);
  return s;
}
