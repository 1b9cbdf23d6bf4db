import type { ServerConnection } from '../server/connection.js';

/**
 * A connection a process opens itself (Redis's connConnect): a replica to
 * its primary, Sentinel to every server it watches. It is a byte stream
 * the module reads and writes itself; a replica's link to its primary can
 * then become a client of the server, whose commands the event loop runs
 * like any client's (replicationCreateMasterClient).
 *
 * Types only (see services.ts); the process implements them, over the
 * simulated network or, in `npm run server`, over real TCP (dialers.ts).
 *
 *   const link = services.connect('10.0.0.2', 6379, {
 *     connected: () => link.write('PING\r\n'),
 *     data: (bytes) => parser.feed(bytes),
 *     closed: (error) => services.log(`Error condition on socket for SYNC: ${error ?? 'Connection lost'}`, 'warning'),
 *   });
 *   if (typeof link === 'string') services.log(`Unable to connect to MASTER: ${link}`, 'warning');
 */

/** What the module hears of its connection; each runs inside a pass of the process's event loop. */
export interface OutboundEvents {
  /** The non-blocking connect completed. */
  connected(): void;
  /** Bytes arrived, in order. */
  data(bytes: Uint8Array): void;
  /**
   * The connection is over: the connect failed or the peer closed or
   * reset it. `error` is strerror's text ("Connection refused"), or null
   * when the peer closed cleanly. Nothing follows it.
   */
  closed(error: string | null): void;
}

export interface OutboundConnection {
  /** 'connecting' until `connected`, 'open', then 'closed'. */
  readonly state: 'connecting' | 'open' | 'closed';
  /**
   * This end's address, "ip:port" ("[ip]:port" for IPv6), once connected:
   * Sentinel announces the address its command link leaves from
   * (anetFdToString with FD_TO_SOCK_NAME in sentinelSendHello).
   */
  readonly localAddress: string;
  /**
   * Queues bytes (a byte string or bytes) for the peer, sent at the
   * thread's time; false when the connection can no longer send.
   */
  write(bytes: string | Uint8Array): boolean;
  /** Closes the connection after what was written (connClose); no event follows. */
  close(): void;
  /**
   * The connection becomes a client of this process's server, fed by the
   * bytes that arrive from now on, `pending` first (what came in the same
   * read as the end of the handshake). Its events stop.
   */
  becomeClient(pending?: Uint8Array): ServerConnection;
}

/**
 * How a process reaches the network: the simulated one in a world, real
 * TCP in `npm run server`. The process wraps what a dialer gives into an
 * OutboundConnection; modules never see a dialer.
 */
export interface Dialer {
  /**
   * Starts connecting; `events` run when things happen (outside a pass:
   * the process queues them for its loop). Returns the error text when
   * the connection cannot even be started.
   */
  dial(host: string, port: number, events: TransportEvents): Transport | string;
  /** The process has ended: connections the world does not close for it (real sockets) are closed here. */
  processGone?(): void;
}

/** What a dialer reports. */
export interface TransportEvents {
  connected(): void;
  data(bytes: Uint8Array): void;
  closed(error: string | null): void;
}

/** One connection as the process drives it: bytes out, the end, back-pressure. */
export interface Transport {
  /** Sends bytes at virtual time `atUs` (the thread's time, which may be ahead of the kernel). */
  write(bytes: string, atUs: number): void;
  /** Closes this side after what was written. */
  end(): void;
  /** False while the peer is not reading: the client's next commands wait. */
  canWrite(): boolean;
  /**
   * When the send buffer next has room for more (virtual us), or null when
   * that cannot be told yet (the peer is not reading).
   */
  writableAt(): number | null;
  /** The two ends' addresses, for CLIENT LIST once the connection becomes a client. */
  readonly address: { addr: string; laddr: string };
  /**
   * For a transport that takes a client's output itself as its socket has
   * room (the Node server's real sockets, through takeOutput), so what the
   * peer does not read waits in the client's output buffer, counted as
   * Redis counts it: told at the thread's time that there is output. A
   * transport without it is handed all of the output (write).
   */
  outputReady?(atUs: number): void;
}
