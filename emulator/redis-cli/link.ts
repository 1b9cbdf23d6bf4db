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
 * The replies of a connection in arrival order, for a reader that may ask
 * before they arrive: read() takes the oldest reply not yet read, or waits
 * for the next; once the connection has ended, what was received is still
 * read first, then CLOSED.
 */
export class ReplyQueue {
  private readonly ready: Reply[] = [];
  private readonly waiting: Array<(r: Reply | typeof CLOSED) => void> = [];
  private over = false;

  /** The connection has ended. */
  get ended(): boolean {
    return this.over;
  }

  push(reply: Reply): void {
    const w = this.waiting.shift();
    if (w !== undefined) w(reply);
    else this.ready.push(reply);
  }

  read(): Promise<Reply | typeof CLOSED> {
    if (this.ready.length !== 0) return Promise.resolve(this.ready.shift()!);
    if (this.over) return Promise.resolve(CLOSED);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Marks the connection ended: readers waiting get CLOSED. False if it had already ended. */
  end(): boolean {
    if (this.over) return false;
    this.over = true;
    for (const w of this.waiting.splice(0)) w(CLOSED);
    return true;
  }
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
  private readonly replies = new ReplyQueue();

  constructor(server: RedisServer, address?: { addr?: string; laddr?: string }) {
    this.connection = new ServerConnection(
      server,
      (bytes) => this.receive(bytes),
      () => this.onServerClose(),
      { address },
    );
  }

  get closed(): boolean {
    return this.replies.ended;
  }

  /** The server's side of this connection. */
  get client(): Client {
    return this.connection.client;
  }

  send(argv: readonly string[]): void {
    if (this.replies.ended) return;
    this.connection.receive(bytesToArray(encodeCommand(argv)));
  }

  read(): Promise<Reply | typeof CLOSED> {
    return this.replies.read();
  }

  close(): void {
    this.connection.shutdown();
  }

  private receive(bytes: string): void {
    this.parser.feed(bytes);
    for (;;) {
      const r = this.parser.next();
      if (r === undefined) break;
      this.replies.push(r);
    }
  }

  private onServerClose(): void {
    this.replies.end();
  }
}
