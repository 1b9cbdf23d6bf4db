import { Socket } from 'node:net';
import type { RedisProcess, ExternalConnection } from '../../emulator/process/redis-process.js';
import type { PrimaryDialer, PrimaryLinkEvents } from '../../emulator/replication/replica-link.js';
import { readDecoder } from './byte-decoder.js';
import type { NodeWorldDriver } from './world-driver.js';

/**
 * How `npm run server` reaches its primary: a real TCP connection, so the
 * emulator can be a replica of a real redis-server (or of another
 * emulator). Its events enter the world through the driver, like a real
 * client's bytes; once synchronized, the socket becomes a client of the
 * process's loop, the way the process's listening sockets' clients are.
 */

/** strerror's texts for the errors a connect or a read can end with. */
const STRERROR: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset by peer',
  ETIMEDOUT: 'Connection timed out',
  EHOSTUNREACH: 'No route to host',
  ENETUNREACH: 'Network is unreachable',
  EPIPE: 'Broken pipe',
  ENOTFOUND: 'Name or service not known',
  EAI_AGAIN: 'Temporary failure in name resolution',
};

function address(ip: string | undefined, port: number | undefined): string {
  const host = ip ?? '?';
  return host.includes(':') ? `[${host}]:${port ?? 0}` : `${host}:${port ?? 0}`;
}

export function realTcpDialer(process: RedisProcess, driver: NodeWorldDriver): PrimaryDialer {
  return (host: string, port: number, events: PrimaryLinkEvents) => {
    const socket = new Socket();
    let client: ExternalConnection | null = null;
    let given = false;
    let reason = 'connection lost';
    socket.setNoDelay(true);
    socket.on('connect', () => {
      if (!given) driver.input(() => events.connected());
    });
    socket.on('data', (chunk: Buffer) => {
      if (given) return;
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
      driver.input(() => (client !== null ? client.receive(bytes) : events.data(bytes)));
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      reason = STRERROR[e.code ?? ''] ?? e.message;
    });
    socket.on('close', () => {
      if (given) return;
      driver.input(() => (client !== null ? client.closed() : events.closed(reason)));
    });
    socket.connect({ host, port });
    return {
      write: (bytes) => {
        if (!socket.destroyed) socket.write(bytes, 'latin1');
      },
      close: () => {
        given = true;
        socket.destroy();
      },
      becomeClient: (pending) => {
        const c = process.attachExternal({
          address: { addr: address(socket.remoteAddress, socket.remotePort), laddr: address(socket.localAddress, socket.localPort) },
          decode: readDecoder(),
          write: (bytes) => {
            if (!socket.destroyed) socket.write(bytes, 'latin1');
          },
          close: () => socket.end(),
          canWrite: () => true,
        });
        client = c;
        // Read by the loop once the replica has made the connection its primary's client.
        if (pending.length !== 0) queueMicrotask(() => driver.input(() => c.receive(pending)));
        return c.connection;
      },
    };
  };
}
