import type { Client } from '../server/client.js';
import type { BufferCursor } from './backlog.js';
import { cString } from '../numbers/c-string.js';

/**
 * What a primary knows about one connection that is, or prepares to be, a
 * replica: what REPLCONF told it, and where the replica stands in a full
 * synchronization (the replication fields of Redis's client struct).
 */

/**
 * SLAVE_STATE_*: waiting for a BGSAVE to start, waiting for it to end (the
 * stream accumulates meanwhile), receiving the RDB, online, or (for a
 * client that asked only for the RDB) done with it.
 */
export type ReplicaState = 'wait_bgsave_start' | 'wait_bgsave_end' | 'send_bulk' | 'online' | 'rdb_transmitted';

/** SLAVE_REQ_RDB_EXCLUDE_DATA and SLAVE_REQ_RDB_EXCLUDE_FUNCTIONS: what REPLCONF rdb-filter-only leaves out. */
export const REQ_EXCLUDE_DATA = 1;
export const REQ_EXCLUDE_FUNCTIONS = 2;
export const REQ_RDB_MASK = REQ_EXCLUDE_DATA | REQ_EXCLUDE_FUNCTIONS;

/** SLAVE_CAPA_EOF (diskless transfers) and SLAVE_CAPA_PSYNC2 (+CONTINUE with an ID). */
export const CAPA_EOF = 1;
export const CAPA_PSYNC2 = 2;

export class ReplicaLink {
  /** REPLCONF listening-port (an int, as Redis keeps it); 0 when not told. */
  listeningPort = 0;
  /** REPLCONF ip-address, or null to use the connection's peer address. */
  announcedIp: string | null = null;
  /** CAPA_* bits. */
  capa = 0;
  /** REQ_* bits. */
  req = 0;
  /** REPLCONF rdb-only 1: the client wants the RDB and nothing after it. */
  rdbOnly = false;
  /** Null until SYNC or PSYNC makes the connection a replica. */
  state: ReplicaState | null = null;
  /** It came with SYNC, not PSYNC (CLIENT_PRE_PSYNC): no +FULLRESYNC, no ACKs expected. */
  prePsync = false;
  /** The offset +FULLRESYNC announced (psync_initial_offset). */
  initialOffset = 0;
  /** The highest offset REPLCONF ACK reported, and when (unix seconds). */
  ackOffset = 0;
  ackTimeS = 0;
  /** Where it stands in the replication buffer. */
  readonly cursor: BufferCursor = { block: null, pos: 0 };
  /** The command stream flows to it (the write handler is installed). */
  streaming = false;
  /** Its socket's send buffer is full: the stream waits in the replication buffer. */
  awaitingRoom = false;
  /** Its stream just started: the backlog accumulated during the sync is being sent. */
  catchingUp = false;
  /** A diskless transfer ended: the stream starts with its first REPLCONF ACK. */
  startStreamOnAck = false;
  /** Unix seconds of the last write it could not take whole during a diskless transfer, 0 for none. */
  lastPartialWriteS = 0;
  /** Since when its output has been over the soft limit, unix seconds; 0 when under it. */
  softLimitSinceS = 0;
  /** Its transfer stopped (the connection went, or the sync was abandoned): pending writes are dropped. */
  gone = false;

  constructor(readonly client: Client) {}

  /** The peer's IP address as Redis prints it (connPeerToString): no port, no brackets. */
  get peerIp(): string {
    const c = this.client;
    if (c.unixSocket !== null) return '/unixsocket';
    const addr = c.address.addr;
    const colon = addr.lastIndexOf(':');
    const ip = colon < 0 ? addr : addr.slice(0, colon);
    return ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  }

  /** The address INFO and ROLE show: the announced one, else the peer's. */
  get ip(): string {
    return this.announcedIp ?? this.peerIp;
  }

  /**
   * The name the log gives it (replicationGetSlaveName): "ip:port", with
   * brackets around an IPv6 address, or "ip:<unknown-replica-port>".
   */
  get name(): string {
    const ip = cString(this.ip);
    if (this.listeningPort === 0) return `${ip}:<unknown-replica-port>`;
    return ip.includes(':') ? `[${ip}]:${this.listeningPort}` : `${ip}:${this.listeningPort}`;
  }
}

