import type { Kernel } from '../sim/kernel.js';
import type { Transport } from './outbound.js';

/**
 * A connection outside the world (a real TCP socket of the Node server)
 * as a process drives it: bytes the thread writes at a virtual time ahead
 * of the kernel wait for that time, in order, and the close follows the
 * last of them.
 */
export function externalTransport(
  kernel: Kernel,
  opts: {
    address: { addr: string; laddr: string };
    write: (bytes: string) => void;
    close: () => void;
    canWrite: () => boolean;
  },
): Transport {
  let lastAt = 0;
  return {
    write: (bytes, at) => {
      // Keep the order of writes that wait for the thread's time.
      const when = Math.max(at, lastAt);
      lastAt = when;
      if (when <= kernel.now) opts.write(bytes);
      else kernel.at(when, () => opts.write(bytes));
    },
    end: () => {
      if (lastAt <= kernel.now) opts.close();
      else kernel.at(lastAt, () => opts.close());
    },
    canWrite: opts.canWrite,
    writableAt: () => (opts.canWrite() ? kernel.now : null),
    address: opts.address,
  };
}
