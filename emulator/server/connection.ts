import { encodeReplyTo } from '../resp/encode.js';
import { PushReply, type Reply } from '../resp/reply.js';
import { ProtocolError, RequestParser, type ByteDecoder } from '../resp/request-parser.js';
import type { Client, ClientAddress } from './client.js';
import { BLOCKED } from './blocking.js';
import { closeOnOutputBufferLimit } from './output-limits.js';
import { QueryBuffer } from './query-buffer.js';
import { clientInfoLine } from './client-info.js';
import { bytesFromArray, repr } from '../resp/bytes.js';
import type { RedisServer } from './server.js';

export interface ConnectionOptions {
  address?: Partial<ClientAddress>;
  decode?: ByteDecoder;
  /** When the transport can take more bytes (see RawOutput); at once when absent. */
  whenWritable?: (ready: () => void) => void;
  /**
   * The transport takes the client's output itself (takeOutput), as its
   * socket has room: this says there is some. Without it every byte is
   * handed to `write` as soon as it is made.
   */
  onOutput?: () => void;
}

/**
 * A client connection as a byte stream: bytes in (requests), bytes out
 * (replies). It parses pipelined requests, runs them in order and puts
 * each reply, encoded for the client's protocol, into the client's output
 * buffer (reply-buffer.ts), where it waits for the socket as in Redis and
 * counts against the output-buffer limits. Transports (the TCP server, the
 * simulated network) move the bytes; this class is the same for all of them.
 */
export class ServerConnection {
  readonly client: Client;
  private readonly parser: RequestParser;
  private closed = false;
  /** The server's thread is held (SAVE): commands stay in the parser until resume(). */
  private suspended = false;
  /** The client is parked in a blocking command: later commands wait for its reply. */
  private waitingOnBlock = false;
  private readonly onOutput: (() => void) | null;
  /**
   * Called after each command with its arguments and reply: a simulated
   * process charges the command's CPU time here, and the server's clock moves
   * on before the next one runs.
   */
  onExecuted: ((argv: string[], reply: unknown) => void) | null = null;
  /**
   * Set on a replica's connection to its primary once it carries the
   * replication stream: told of the bytes read (they count as replication
   * input) and, after each command, how many bytes read are not parsed
   * yet, from which the offset applied follows (commandProcessed).
   */
  primaryStream: { received(bytes: string): void; applied(unparsedBytes: number): void } | null = null;

  constructor(
    readonly server: RedisServer,
    /** Writes bytes to the peer (without onOutput: every byte as soon as it is made). */
    private readonly write: (bytes: string) => void,
    /** Closes the transport once the output is written (at once after closeAsap). */
    private readonly close: () => void,
    opts: ConnectionOptions = {},
  ) {
    const c = server.connect(opts.address);
    this.client = c;
    this.onOutput = opts.onOutput ?? null;
    c.output.onNewBlock = () => closeOnOutputBufferLimit(c, true);
    c.rawOutput = {
      write: (bytes) => {
        if (this.closed) return;
        c.output.addRaw(bytes);
        this.outputReady();
      },
      whenWritable: opts.whenWritable ?? ((ready) => ready()),
    };
    c.onClose = () => this.shutdown();
    c.onAsyncReply = (reply) => {
      // Nothing more for a connection that closes after what it was given.
      if (this.closed || c.closeAfterReply) return;
      // CLIENT REPLY OFF silences late replies too, but not pushes (the
      // dispatcher silences the replies of commands).
      if (c.replyOff && !(reply instanceof PushReply)) return;
      this.addReply(reply);
      this.outputReady();
    };
    c.onResume = () => {
      this.waitingOnBlock = false;
      if (!this.closed && !this.suspended) this.run();
    };
    const qb = new QueryBuffer();
    c.queryBuffer = qb;
    this.parser = new RequestParser({
      decode: opts.decode,
      maxBulkLen: server.config.getNumber('proto-max-bulk-len'),
      authRequired: () => !c.authenticated,
      observer: qb,
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Bytes arrived from the peer: read as Redis reads its socket, a
   * buffer's worth at a time (readQueryFromClient), each read followed by
   * the commands it completes.
   */
  receive(chunk: Uint8Array): void {
    const c = this.client;
    const qb = c.queryBuffer!;
    const server = this.server;
    for (let at = 0; at < chunk.length && !this.closed && !c.closeAsap; ) {
      // A primary's stream is read greedily, as Redis reads its master client.
      const n = this.primaryStream !== null ? chunk.length - at : Math.min(qb.readLength(this.parser.bigArgMissing), chunk.length - at);
      const part = at === 0 && n === chunk.length ? chunk : chunk.subarray(at, at + n);
      if (this.primaryStream !== null) this.primaryStream.received(bytesFromArray(part));
      else server.stats.netInputBytes += n;
      server.stats.totalReadsProcessed++;
      qb.read(n);
      this.parser.feed(part);
      at += n;
      server.updateTime();
      c.lastInteractionMs = server.nowMs;
      if (c.role !== 'master' && qb.len > server.config.getNumber('client-query-buffer-limit')) {
        this.queryBufferTooBig();
        break;
      }
      if (!this.suspended && !this.waitingOnBlock) this.run();
      qb.consumed(this.parser.pendingBytes);
    }
    server.freeClientsInAsyncFreeQueue();
    if (server.blocking.hasResumes) server.blocking.resumeUnblocked();
  }

  /** client-query-buffer-limit: the client is closed, and the start of its buffer logged. */
  private queryBufferTooBig(): void {
    const c = this.client;
    const info = clientInfoLine(c, null, []);
    this.server.log(`Closing client that reached max query buffer length: ${info} (qbuf initial bytes: ${repr(this.parser.peek(64))})`, 'warning');
    this.server.closeAsync(c);
  }

  /** The server's thread is free again: run the commands that were held back. */
  resume(): void {
    if (this.closed || !this.suspended) return;
    this.suspended = false;
    if (!this.waitingOnBlock) this.run();
  }

  /** Puts a reply into the output buffer (addReply), unless the connection is closing at once. */
  private addReply(reply: Reply): void {
    const c = this.client;
    if (c.closeAsap) return;
    encodeReplyTo(c.output, reply, c.resp);
  }

  private run(): void {
    const parser = this.parser;
    const c = this.client;
    for (;;) {
      if (this.server.threadBlocked) {
        // The server's thread is held by blocking I/O (SAVE): the rest of
        // this client's commands wait, and resume() runs them afterwards.
        this.suspended = true;
        break;
      }
      if (c.closeAfterReply || c.closeAsap || c.closed) break;
      const argv = parser.next();
      if (argv === null) break;
      if (argv instanceof ProtocolError) {
        this.server.stats.countError('ERR');
        this.addReply(argv.error);
        c.closeAfterReply = true;
        break;
      }
      c.queryBufferBytes = parser.pendingBytes;
      c.repliesPending = c.output.pending !== 0;
      const reply = this.server.execute(c, argv);
      if (this.onExecuted !== null) this.onExecuted(argv, reply);
      if (this.primaryStream !== null && reply !== BLOCKED) this.primaryStream.applied(parser.pendingBytes);
      if (reply === BLOCKED) {
        // Nothing to say until the client is served or times out; the
        // commands pipelined behind this one wait for that.
        this.waitingOnBlock = true;
        break;
      }
      this.addReply(reply);
    }
    if (parser.emptyLines !== 0) {
      parser.emptyLines = 0;
      if (c.role === 'replica') this.server.replication.primary.newlineFromReplica(c);
    }
    if (c.closeAsap) {
      // beforeNextClient: a client marked to close at once goes now, with
      // whatever it had not been sent.
      this.server.kill(c);
      return;
    }
    this.outputReady();
    if (c.closeAfterReply || c.closed) this.shutdown();
  }

  /** New output: the transport is told, or (without onOutput) given it now. */
  private outputReady(): void {
    if (this.client.output.pending === 0) return;
    if (this.onOutput !== null) {
      this.onOutput();
      return;
    }
    for (const piece of this.takeOutput(Infinity)) this.write(piece);
  }

  /** Up to `max` bytes of output for the socket, as pieces; they count as written. */
  takeOutput(max: number): string[] {
    const pieces = this.client.output.take(max);
    // A replica's bytes (the file, the stream) are counted as replication
    // output where replication makes them (sendBulkToSlave writes the file
    // without writeToClient), so they are not counted twice here.
    if (pieces.length !== 0 && this.client.role !== 'replica') {
      const stats = this.server.stats;
      for (const p of pieces) stats.netOutputBytes += p.length;
      stats.totalWritesProcessed++;
    }
    return pieces;
  }

  /** Bytes of output waiting for the socket. */
  get outputPending(): number {
    return this.client.output.pending;
  }

  /** The peer went away (or we are closing): forget the client. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    const c = this.client;
    if (c.closeAsap) c.output.clear();
    this.server.disconnect(c);
    this.close();
  }
}
