import { createConnection, type Socket } from 'node:net';
import { externalTransport } from '../../emulator/process/index.js';
import type { Dialer, Transport, TransportEvents } from '../../emulator/process/outbound.js';
import { NET_ERRORS } from '../../emulator/sim/index.js';
import type { Kernel } from '../../emulator/sim/kernel.js';
import { formatAddress } from './tcp-server.js';

/**
 * How a process of `npm run server` reaches other servers: real TCP
 * sockets (a replica of a real redis-server, Sentinel watching real
 * servers). Their events enter the world through `input`, as a real
 * client's bytes do, so virtual time is brought up to the wall clock
 * first.
 *
 *   proc.dialer = tcpDialer(world.kernel, (fn) => driver.input(fn));
 */
export function tcpDialer(kernel: Kernel, input: (fn: () => void) => void): Dialer {
  const open = new Set<Socket>();
  return {
    dial(host: string, port: number, events: TransportEvents): Transport {
      const socket = createConnection({ host, port, noDelay: true });
      open.add(socket);
      let error: string | null = null;
      let blocked = false;
      socket.on('connect', () => input(() => events.connected()));
      socket.on('data', (b: Buffer) => input(() => events.data(new Uint8Array(b.buffer, b.byteOffset, b.length))));
      socket.on('drain', () => {
        blocked = false;
      });
      socket.on('error', (e: NodeJS.ErrnoException) => {
        error = strerror(e);
      });
      socket.on('close', () => {
        open.delete(socket);
        input(() => events.closed(error));
      });
      return externalTransport(kernel, {
        address: {
          get addr() {
            return formatAddress(socket.remoteAddress ?? host, socket.remotePort ?? port);
          },
          get laddr() {
            return formatAddress(socket.localAddress, socket.localPort);
          },
        },
        write: (bytes) => {
          if (!socket.write(Buffer.from(bytes, 'latin1'))) blocked = true;
        },
        close: () => socket.end(),
        canWrite: () => !blocked,
      });
    },
    processGone() {
      for (const s of open) s.destroy();
      open.clear();
    },
  };
}

/** The text strerror gives for a socket error, as Redis logs it ("Connection refused"). */
function strerror(e: NodeJS.ErrnoException): string {
  const code = e.code as keyof typeof NET_ERRORS | undefined;
  if (code !== undefined && code in NET_ERRORS) return NET_ERRORS[code];
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'Name or service not known';
  return e.message;
}
