import { encodeCommand } from '../resp/encode.js';
import { bytesToArray } from '../resp/bytes.js';
import { ReplyParser } from '../resp/reply-parser.js';
import type { Reply } from '../resp/reply.js';
import { ServerConnection } from '../server/connection.js';
import type { RedisServer } from '../server/server.js';
import type { Client } from '../server/client.js';

/** What read() gives once the server has closed the connection (a reply may be null). */
export const CLOSED: unique symbol = Symbol('connection closed');

/**
 * A terminal's connection to a server: commands go out as RESP, replies
 * come back parsed, in order. Replies may come later than the command
 * (blocking commands, pub/sub messages), so reading is asynchronous.
 */
export interface CliLink {
  send(argv: readonly string[]): void;
  /** The next reply, or CLOSED once the server has closed the connection. */
  read(): Promise<Reply | typeof CLOSED>;
  /** Closes the connection from the client side. */
  close(): void;
  readonly closed: boolean;
}

/**
 * A CliLink to a server in the same process, through the same byte stream a
 * TCP client would use (ServerConnection), so the terminal sees exactly the
 * bytes redis-cli would.
 *
 *   const link = new InProcessLink(server);
 *   link.send(['PING']);
 *   await link.read();   // StatusReply('PONG')
 */
export class InProcessLink implements CliLink {
  private readonly parser = new ReplyParser();
  private readonly connection: ServerConnection;
  private readonly ready: Reply[] = [];
  private readonly waiting: Array<(r: Reply | typeof CLOSED) => void> = [];
  private serverClosed = false;

  constructor(server: RedisServer, address?: { addr?: string; laddr?: string }) {
    this.connection = new ServerConnection(
      server,
      (bytes) => this.receive(bytes),
      () => this.onServerClose(),
      { address },
    );
  }

  get closed(): boolean {
    return this.serverClosed;
  }

  /** The server's side of this connection. */
  get client(): Client {
    return this.connection.client;
  }

  send(argv: readonly string[]): void {
    if (this.serverClosed) return;
    this.connection.receive(bytesToArray(encodeCommand(argv)));
  }

  read(): Promise<Reply | typeof CLOSED> {
    if (this.ready.length !== 0) return Promise.resolve(this.ready.shift()!);
    if (this.serverClosed) return Promise.resolve(CLOSED);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  close(): void {
    this.connection.shutdown();
  }

  private receive(bytes: string): void {
    this.parser.feed(bytes);
    for (;;) {
      const r = this.parser.next();
      if (r === undefined) break;
      const w = this.waiting.shift();
      if (w) w(r);
      else this.ready.push(r);
    }
  }

  private onServerClose(): void {
    this.serverClosed = true;
    for (const w of this.waiting.splice(0)) w(CLOSED);
  }
}
