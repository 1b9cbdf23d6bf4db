import type { World } from '../../../emulator/world/world.js';
import type { Socket } from '../../../emulator/sim/network.js';
import { bytesFromArray } from '../../../emulator/resp/bytes.js';
import { encodeCommand } from '../../../emulator/resp/encode.js';

/**
 * A raw TCP peer on the simulated network: it sends bytes and keeps every
 * byte the server sends back, as a replica or redis-cli --rdb sees them.
 */
export class RawPeer {
  received = '';
  closed = false;
  readonly socket: Socket;

  constructor(
    private readonly world: World,
    from: string,
    to: string,
    port = 6379,
  ) {
    const host = world.host(from);
    this.socket = host.net.connect(host, to, port);
    this.socket.onData = (d) => (this.received += bytesFromArray(d));
    this.socket.onClose = () => (this.closed = true);
    world.runUntil(() => this.socket.state === 'open', { maxMs: 1000 });
  }

  send(bytes: string): void {
    this.socket.write(bytes);
  }

  command(...argv: string[]): void {
    this.send(encodeCommand(argv));
  }

  /** Runs the world until `n` more bytes than `from` arrived (or the time limit). */
  waitFor(pred: (received: string) => boolean, maxMs = 5000): boolean {
    return this.world.runUntil(() => pred(this.received), { maxMs });
  }

  /** Takes what arrived so far. */
  take(): string {
    const r = this.received;
    this.received = '';
    return r;
  }

  close(): void {
    this.socket.end();
  }
}
