import { encodeReply } from '../resp/encode.js';
import { PushReply } from '../resp/reply.js';
import { bytesFromArray } from '../resp/bytes.js';
import { ProtocolError, RequestParser, type ByteDecoder } from '../resp/request-parser.js';
import type { Client, ClientAddress } from './client.js';
import { BLOCKED } from './blocking.js';
import type { RedisServer } from './server.js';

/**
 * Replies go to the transport in pieces of about this size, so that a
 * pipeline of large replies never has to fit in one string, and a transport
 * that cannot keep up can hold the remaining commands back.
 */
const OUTPUT_PIECE_BYTES = 1 << 20;

/**
 * A client connection as a byte stream: bytes in (requests), bytes out
 * (replies). It parses pipelined requests, runs them in order and encodes
 * each reply for the client's protocol. Transports (the TCP server, the
 * simulated network) move the bytes; this class is the same for all of them.
 */
export class ServerConnection {
  readonly client: Client;
  private readonly parser: RequestParser;
  private closed = false;
  /** The transport asked to wait: commands stay in the parser until resume(). */
  private suspended = false;
  /** The client is parked in a blocking command: later commands wait for its reply. */
  private waitingOnBlock = false;
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
    /**
     * Writes reply bytes (a byte string) to the peer. Returning false means
     * "no more for now": the commands not yet run wait for resume().
     */
    private readonly write: (bytes: string) => unknown,
    /** Closes the transport. */
    private readonly close: () => void,
    opts: {
      address?: Partial<ClientAddress>;
      decode?: ByteDecoder;
      /** When the transport can take more bytes (see RawOutput); at once when absent. */
      whenWritable?: (ready: () => void) => void;
    } = {},
  ) {
    this.client = server.connect(opts.address);
    this.client.rawOutput = {
      write: (bytes) => {
        if (!this.closed) this.write(bytes);
      },
      whenWritable: opts.whenWritable ?? ((ready) => ready()),
    };
    this.client.onClose = () => this.shutdown();
    this.client.onAsyncReply = (reply) => {
      if (this.closed) return;
      // CLIENT REPLY OFF silences late replies too, but not pushes.
      if (this.client.replyOff && !(reply instanceof PushReply)) return;
      this.send(encodeReply(reply, this.client.resp));
    };
    this.client.onResume = () => {
      this.waitingOnBlock = false;
      if (!this.closed && !this.suspended) this.run();
    };
    this.parser = new RequestParser({
      decode: opts.decode,
      maxBulkLen: server.config.getNumber('proto-max-bulk-len'),
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes arrived from the peer: run every complete command in them. */
  receive(chunk: Uint8Array): void {
    if (this.closed) return;
    if (this.primaryStream !== null) this.primaryStream.received(bytesFromArray(chunk));
    else this.server.stats.netInputBytes += chunk.length;
    this.server.stats.totalReadsProcessed++;
    this.parser.feed(chunk);
    if (!this.suspended && !this.waitingOnBlock) this.run();
    if (this.server.blocking.hasResumes) this.server.blocking.resumeUnblocked();
  }

  /** The transport can take replies again: run the commands that were held back. */
  resume(): void {
    if (this.closed || !this.suspended) return;
    this.suspended = false;
    if (!this.waitingOnBlock) this.run();
  }

  private run(): void {
    const parser = this.parser;
    let out = '';
    const c = this.client;
    for (;;) {
      if (this.server.threadBlocked) {
        // The server's thread is held by blocking I/O (SAVE): the rest of
        // this client's commands wait, and resume() runs them afterwards.
        this.suspended = true;
        if (out.length !== 0) this.send(out);
        return;
      }
      const argv = parser.next();
      if (argv === null) break;
      if (argv instanceof ProtocolError) {
        this.server.stats.countError('ERR');
        out += '-ERR ' + argv.reply + '\r\n';
        c.closeAfterReply = true;
        break;
      }
      c.queryBufferBytes = parser.pendingBytes;
      c.repliesPending = out.length !== 0;
      const reply = this.server.execute(c, argv);
      if (this.onExecuted !== null) this.onExecuted(argv, reply);
      if (this.primaryStream !== null && reply !== BLOCKED) this.primaryStream.applied(parser.pendingBytes);
      if (reply === BLOCKED) {
        // Nothing to say until the client is served or times out; the
        // commands pipelined behind this one wait for that.
        this.waitingOnBlock = true;
        if (out.length !== 0) this.send(out);
        return;
      }
      out += encodeReply(reply, c.resp);
      if (c.closeAfterReply || c.closed) break;
      if (out.length >= OUTPUT_PIECE_BYTES) {
        const more = this.send(out);
        out = '';
        if (!more) {
          this.suspended = true;
          return;
        }
      }
    }
    if (out.length !== 0) this.send(out);
    if (parser.emptyLines !== 0) {
      parser.emptyLines = 0;
      if (c.role === 'replica') this.server.replication.primary.newlineFromReplica(c);
    }
    if (c.closeAfterReply || c.closed) this.shutdown();
  }

  private send(out: string): boolean {
    this.server.stats.netOutputBytes += out.length;
    this.server.stats.totalWritesProcessed++;
    return this.write(out) !== false;
  }

  /** The peer went away (or we are closing): forget the client. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.disconnect(this.client);
    this.close();
  }
}
