import type { ServerConnection } from '../server/connection.js';

/**
 * The connection a replica opens to its primary (connectWithMaster): a
 * byte stream the process dials over its network, a simulated link or a
 * real TCP socket. During the handshake and the RDB transfer the replica
 * reads and writes it itself; once synchronized the connection becomes
 * the primary's client, whose commands the process's event loop runs
 * (replicationCreateMasterClient).
 */
export interface PrimaryLink {
  /** Queues bytes for the primary. */
  write(bytes: string): void;
  /** Closes the connection (connClose); no event follows. */
  close(): void;
  /**
   * The connection becomes a client of this server, fed by the bytes
   * that arrive from now on, `pending` first (what came after the RDB or
   * +CONTINUE in the same read). Its events no longer reach the handshake.
   */
  becomeClient(pending: Uint8Array): ServerConnection;
}

/** What the link reports while the replica reads it itself. */
export interface PrimaryLinkEvents {
  /** The non-blocking connect completed. */
  connected(): void;
  /** Bytes arrived. */
  data(bytes: Uint8Array): void;
  /** The connection failed or was closed by the peer: strerror's text, or "connection lost". */
  closed(reason: string): void;
}

/** How a process dials: a link, or the error text connConnect gave. */
export type PrimaryDialer = (host: string, port: number, events: PrimaryLinkEvents) => PrimaryLink | string;
