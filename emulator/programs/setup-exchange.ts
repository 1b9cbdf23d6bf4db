import { ReplyParser } from '../resp/reply-parser.js';
import type { Reply } from '../resp/reply.js';
import type { NetError, Socket } from '../sim/network.js';

/**
 * A connection used the way a tool uses a blocking hiredis context before
 * its real work: connect, send a few commands, wait for their replies. The
 * program's thread is blocked meanwhile, so there is nothing else to
 * schedule; callbacks carry the flow on.
 *
 *   const x = new SetupExchange(socket);
 *   x.onReady = () => x.ask(encodeCommand(['PING']), 1, (replies) => ...);
 *   x.onFail = (message) => ...;
 */
export class SetupExchange {
  private readonly parser = new ReplyParser();
  private expected = 0;
  private replies: Reply[] = [];
  private done: ((replies: Reply[] | null) => void) | null = null;
  private connected = false;
  onReady: (() => void) | null = null;
  /** The connection failed or ended: the system's message (Connection refused, ...). */
  onFail: ((message: string) => void) | null = null;

  constructor(readonly socket: Socket) {
    socket.onConnect = () => {
      this.connected = true;
      this.onReady?.();
    };
    socket.onData = (data) => this.receive(data);
    socket.onClose = (error) => this.closed(error);
  }

  /** Sends `bytes` at `atUs` and calls back with `count` replies, or null if the connection ended first. */
  ask(bytes: string, count: number, atUs: number, done: (replies: Reply[] | null) => void): void {
    this.expected = count;
    this.replies = [];
    this.done = done;
    this.socket.write(bytes, atUs);
  }

  close(): void {
    this.socket.onData = null;
    this.socket.onClose = null;
    this.socket.end();
  }

  private receive(data: Uint8Array): void {
    if (this.done === null) return;
    this.parser.feed(data);
    for (let r = this.parser.next(); r !== undefined; r = this.parser.next()) {
      this.replies.push(r);
      if (this.replies.length === this.expected) {
        const done = this.done;
        this.done = null;
        done(this.replies);
        return;
      }
    }
  }

  private closed(error: NetError | null): void {
    if (this.done !== null) {
      const done = this.done;
      this.done = null;
      done(null);
      return;
    }
    if (!this.connected) this.onFail?.(error?.message ?? 'Connection refused');
  }
}
