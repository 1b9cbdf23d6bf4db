import { RedisServer, type ServerOptions } from '../server/server.js';
import type { Handler } from '../server/command-table.js';
import { ALL_HANDLERS } from '../commands/index.js';
import { ReplicationState } from '../replication/state.js';

export interface CreateServerOptions extends ServerOptions {
  /** Replaces the command handlers (tests; redis-sentinel's own table). */
  handlers?: Readonly<Record<string, Handler>>;
}

/**
 * A redis-server assembled from its subsystems, the way Redis's main() in
 * server.c wires the command table and replication into the server struct.
 * The server (emulator/server) sits below the command handlers and the
 * replication code, so it cannot build them itself: this layer, which sees
 * them all, hands them in.
 *
 *     const server = createServer({ clock: new ManualClock() });
 *     server.execute(server.connect(), ['SET', 'k', 'v']); // 'OK'
 */
export function createServer(opts: CreateServerOptions): RedisServer {
  const { handlers, ...options } = opts;
  return new RedisServer(options, {
    handlers: handlers ?? ALL_HANDLERS,
    replication: (server) => new ReplicationState(server),
  });
}
