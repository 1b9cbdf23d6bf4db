import type { Kernel } from '../sim/kernel.js';
import type { Transport } from './outbound.js';

/**
 * A connection outside the world (a real TCP socket of the Node server)
 * as a process drives it: the client's output waits in its output buffer
 * until the socket takes it; the news that there is some, made at a
 * virtual time ahead of the kernel, waits for that time, in order, and the
 * close follows the last of it.
 */
export function externalTransport(
  kernel: Kernel,
  opts: {
    address: { addr: string; laddr: string };
    /** Writes bytes to the socket (a connection the process dialled). */
    write?: (bytes: string) => void;
    /**
     * There is output to take (ExternalConnection.takeOutput), as the
     * socket has room: a client of the server, whose output waits in its
     * output buffer until the socket takes it.
     */
    outputReady?: () => void;
    close: () => void;
    canWrite: () => boolean;
  },
): Transport {
  let lastAt = 0;
  const when = (at: number, run: () => void): void => {
    // Keep the order of what waits for the thread's time.
    const t = Math.max(at, lastAt);
    lastAt = t;
    if (t <= kernel.now) run();
    else kernel.at(t, run);
  };
  const write = opts.write;
  const outputReady = opts.outputReady;
  return {
    write: (bytes, at) => {
      if (write !== undefined) when(at, () => write(bytes));
    },
    ...(outputReady === undefined ? {} : { outputReady: (at: number) => when(at, outputReady) }),
    end: () => {
      if (lastAt <= kernel.now) opts.close();
      else kernel.at(lastAt, () => opts.close());
    },
    canWrite: opts.canWrite,
    writableAt: () => (opts.canWrite() ? kernel.now : null),
    address: opts.address,
  };
}
