import { encodeReply } from '../resp/encode.js';
import { ProtocolError, RequestParser, type ByteDecoder } from '../resp/request-parser.js';
import type { Client, ClientAddress } from './client.js';
import type { RedisServer } from './server.js';

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

  constructor(
    readonly server: RedisServer,
    /** Writes reply bytes (a byte string) to the peer. */
    private readonly write: (bytes: string) => void,
    /** Closes the transport. */
    private readonly close: () => void,
    opts: { address?: Partial<ClientAddress>; decode?: ByteDecoder } = {},
  ) {
    this.client = server.connect(opts.address);
    this.client.onClose = () => this.shutdown();
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
    this.server.stats.netInputBytes += chunk.length;
    this.server.stats.totalReadsProcessed++;
    const parser = this.parser;
    parser.feed(chunk);
    let out = '';
    const c = this.client;
    for (;;) {
      const argv = parser.next();
      if (argv === null) break;
      if (argv instanceof ProtocolError) {
        this.server.stats.countError('ERR');
        out += '-ERR ' + argv.reply + '\r\n';
        c.closeAfterReply = true;
        break;
      }
      c.queryBufferBytes = parser.pendingBytes;
      const reply = this.server.execute(c, argv);
      out += encodeReply(reply, c.resp);
      if (c.closeAfterReply || c.closed) break;
    }
    if (out.length !== 0) {
      this.server.stats.netOutputBytes += out.length;
      this.server.stats.totalWritesProcessed++;
      this.write(out);
    }
    if (c.closeAfterReply || c.closed) this.shutdown();
  }

  /** The peer went away (or we are closing): forget the client. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.disconnect(this.client);
    this.close();
  }
}
