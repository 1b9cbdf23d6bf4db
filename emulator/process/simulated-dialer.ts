import type { SimProcess } from '../sim/host.js';
import type { Kernel } from '../sim/kernel.js';
import type { Socket } from '../sim/network.js';
import type { Dialer, Transport, TransportEvents } from './outbound.js';

/**
 * About what a socket's send buffer holds: a writer that waits for room
 * (the RDB transfer to a replica) writes again once no more than this is
 * still queued on the link.
 */
const SEND_BUFFER_BYTES = 128 * 1024;

/** A simulated socket as a process drives it, whichever side opened it. */
export function socketTransport(socket: Socket, kernel: Kernel): Transport {
  return {
    write: (bytes, atUs) => socket.write(bytes, atUs),
    end: () => socket.end(),
    canWrite: () => true,
    writableAt: () => {
      // A partition holds the bytes back: no room until it heals.
      if (socket.stalled.length !== 0) return null;
      const link = socket.net.pathOf(socket);
      const queuedUntil = socket.pathDirection!.busyUntil;
      return Math.max(kernel.now, Math.round(queuedUntil - (SEND_BUFFER_BYTES * 8e6) / link.profile.bandwidthBps));
    },
    address: socket.unix
      ? { addr: `${socket.localPort}:0`, laddr: `${socket.localPort}:0` }
      : { addr: `${socket.remoteIp}:${socket.remotePort}`, laddr: `${socket.localIp}:${socket.localPort}` },
  };
}

/**
 * connConnect over the simulated network, for a process on a host of a
 * world: the name or address is resolved as the host's resolver would,
 * the socket belongs to the process (it closes when the process ends),
 * and a failed connect reports strerror's text.
 */
export function simulatedDialer(proc: SimProcess): Dialer {
  return {
    dial(target: string, port: number, events: TransportEvents): Transport | string {
      const host = proc.host;
      const net = host.net;
      const to = net.resolve(host.name, target);
      if (to === null) return 'Name or service not known';
      const socket = net.connect(host, to, port);
      proc.sockets.add(socket);
      socket.onConnect = () => events.connected();
      socket.onData = (data) => events.data(data);
      socket.onClose = (err) => {
        proc.sockets.delete(socket);
        events.closed(err === null ? null : err.message);
      };
      const transport = socketTransport(socket, host.kernel);
      return {
        ...transport,
        end: () => {
          proc.sockets.delete(socket);
          socket.end();
        },
      };
    },
  };
}
