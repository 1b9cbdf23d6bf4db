import type { Database } from '../keyspace/database.js';
import type { WatchedKey, Watcher } from '../keyspace/watch.js';
import type { CommandDef } from '../commands/table.js';
import type { Protocol } from '../resp/encode.js';
import type { RedisServer } from './server.js';

/** A command queued inside MULTI. */
export interface QueuedCommand {
  cmd: CommandDef;
  argv: string[];
}

/** How a client reached the server, for CLIENT LIST and INFO. */
export interface ClientAddress {
  /** "ip:port" of the client. */
  addr: string;
  /** "ip:port" of the server side. */
  laddr: string;
  /** The socket's file descriptor as the server would number it. */
  fd: number;
}

/**
 * One connection's state on a server: its database, protocol, name,
 * transaction and watches. The transport that carries its bytes (TCP, the
 * simulated network, an in-process call) lives outside.
 */
export class Client implements Watcher {
  db: Database;
  resp: Protocol = 2;
  /** CLIENT SETNAME (a byte string; empty when unset). */
  name = '';
  // MULTI state (Redis's CLIENT_MULTI, CLIENT_DIRTY_EXEC, CLIENT_DIRTY_CAS).
  inMulti = false;
  multiError = false;
  dirtyCas = false;
  queue: QueuedCommand[] = [];
  watched: WatchedKey[] = [];
  /** Set while EXEC runs the queue. */
  inExec = false;
  /** The last command run (CLIENT LIST "cmd="), full name. */
  lastCommand = 'NULL';
  /** The command being run right now (Redis's c->cmd), for handlers that need its name. */
  cmd: CommandDef | null = null;
  readonly createdMs: number;
  lastInteractionMs: number;
  /** The connection should close once pending replies are written (QUIT, protocol error, CLIENT KILL). */
  closeAfterReply = false;
  /** CLIENT KILL or shutdown: the connection is gone. */
  closed = false;
  /** Called by the server when it closes the connection (CLIENT KILL). */
  onClose: (() => void) | null = null;
  /** A rewritten argv for propagation of the current command (SETEX -> SET PXAT, ...). */
  propagateArgv: string[] | null = null;
  /** Bytes in the query buffer, for CLIENT LIST (set by the transport). */
  queryBufferBytes = 0;
  /** Bytes of the last command's arguments, for CLIENT LIST argv-mem. */
  argvBytes = 0;
  /** CLIENT NO-EVICT, CLIENT REPLY and others could be added here; flags shown by CLIENT LIST. */
  flagsText = 'N';

  constructor(
    readonly server: RedisServer,
    readonly id: number,
    readonly address: ClientAddress,
  ) {
    this.db = server.dbs[0]!;
    this.createdMs = server.nowMs;
    this.lastInteractionMs = server.nowMs;
  }

  get dbIndex(): number {
    return this.db.id;
  }
}
