import { Socket } from 'node:net';
import { encodeCommand } from '../../emulator/resp/encode.js';

/** A raw socket to a server that keeps every byte it receives and knows when it closed. */
export class Peer {
  bytes = '';
  closed = false;
  private wake: (() => void) | null = null;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.bytes += d.toString('latin1');
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => {});
  }

  static open(port: number): Promise<Peer> {
    return new Promise((resolve, reject) => {
      const s = new Socket();
      s.once('error', reject);
      s.connect(port, '127.0.0.1', () => resolve(new Peer(s)));
    });
  }

  /** Sends bytes as they are (a malformed request, half a command...). */
  send(bytes: string): void {
    this.socket.write(bytes, 'latin1');
  }

  /** Sends a command as a RESP array of bulk strings. */
  command(...argv: string[]): void {
    this.send(encodeCommand(argv));
  }

  /** Stops reading: what the server sends piles up in the kernel, then in the server. */
  pause(): void {
    this.socket.pause();
  }

  /** Waits until `ready()` holds, the connection closes, or `ms` pass; wakes on every byte that arrives. */
  async until(ready: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready() && !this.closed && Date.now() < deadline) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
    this.wake = null;
  }

  /** Waits until nothing more arrives for `ms`. */
  async quiet(ms = 150): Promise<void> {
    for (;;) {
      const before = this.bytes.length;
      await new Promise((r) => setTimeout(r, ms));
      if (this.bytes.length === before || this.closed) return;
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
