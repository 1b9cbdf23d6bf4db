import { Socket } from 'node:net';

/** A raw socket that keeps what it receives and knows when it closed. */
export class Peer {
  bytes = '';
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => (this.bytes += d.toString('latin1')));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => {});
  }

  static open(port: number): Promise<Peer> {
    return new Promise((resolve, reject) => {
      const s = new Socket();
      s.once('error', reject);
      s.connect(port, '127.0.0.1', () => resolve(new Peer(s)));
    });
  }

  send(bytes: string): void {
    this.socket.write(bytes, 'latin1');
  }

  /** Waits until `ready()` holds, the connection closes, or `ms` pass. */
  async until(ready: () => boolean, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready() && !this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  close(): void {
    this.socket.destroy();
  }
}
