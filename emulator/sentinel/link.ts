import type { ProcessServices } from '../process/services.js';
import type { OutboundConnection } from '../process/outbound.js';
import { encodeCommand } from '../resp/encode.js';
import { ReplyParser } from '../resp/reply-parser.js';
import type { Reply } from '../resp/reply.js';

/**
 * One of the two connections Sentinel keeps to an instance (the command
 * link and the pub/sub link of struct instanceLink in src/sentinel.c), as
 * hiredis's async context gives them: commands are sent at once, queued
 * while the connect is in progress, and each reply goes to the callback
 * of the command it answers, in order. On the pub/sub link, messages
 * ("message" pushes) go to `onMessage` instead.
 */
export class ReplyLink {
  private conn: OutboundConnection | null = null;
  private open = false;
  private queued = '';
  private readonly parser = new ReplyParser();
  private readonly waiting: Array<(r: Reply) => void> = [];
  /** When the connection was started (cc_conn_time / pc_conn_time), ms. */
  readonly connectedAtMs: number;
  /**
   * pc_last_activity: when the pub/sub link last received anything on the
   * hello subscription (its confirmation or a message), ms; 0 before that.
   * A sentinel hears its own hellos there every publish period, so a link
   * that stays silent is one whose peer is gone without closing it.
   */
  lastActivityMs = 0;

  constructor(
    p: ProcessServices,
    ip: string,
    port: number,
    nowMs: number,
    private readonly onClosed: () => void,
    private readonly onMessage: ((channel: string, payload: string) => void) | null = null,
    /** sentinelInstanceMapCommand: the name the instance knows a command by (its master's rename-command table). */
    private readonly mapCommand: (name: string) => string = (name) => name,
  ) {
    this.connectedAtMs = nowMs;
    const c = p.connect(ip, port, {
      connected: () => {
        this.open = true;
        if (this.queued !== '') this.conn?.write(this.queued);
        this.queued = '';
      },
      data: (bytes) => this.feed(bytes),
      closed: () => this.drop(),
    });
    if (typeof c !== 'string') this.conn = c;
  }

  get alive(): boolean {
    return this.conn !== null;
  }

  /** The IP address this end of the connection has; null while the system has not told it yet (a real socket still connecting). */
  get localIp(): string | null {
    if (this.conn === null) return null;
    const a = this.conn.localAddress;
    if (a.startsWith('?')) return null;
    const ip = a.slice(0, a.lastIndexOf(':'));
    return ip.startsWith('[') ? ip.slice(1, -1) : ip;
  }

  /** Replies still awaited (pending_commands). */
  get pending(): number {
    return this.waiting.length;
  }

  /** Sends a command; `then` receives its reply. False when the link is gone. */
  send(argv: readonly string[], then: (r: Reply) => void = () => {}): boolean {
    if (this.conn === null) return false;
    const name = this.mapCommand(argv[0]!);
    const bytes = encodeCommand(name === argv[0] ? argv : [name, ...argv.slice(1)]);
    if (this.open) this.conn.write(bytes);
    else this.queued += bytes;
    this.waiting.push(then);
    return true;
  }

  /** instanceLinkCloseConnection: closes without calling back. */
  close(): void {
    const c = this.conn;
    this.conn = null;
    this.waiting.length = 0;
    c?.close();
  }

  private drop(): void {
    if (this.conn === null) return;
    this.conn = null;
    this.waiting.length = 0;
    this.onClosed();
  }

  private feed(bytes: Uint8Array): void {
    this.parser.feed(bytes);
    for (let r = this.parser.next(); r !== undefined && this.conn !== null; r = this.parser.next()) {
      if (this.onMessage !== null && Array.isArray(r) && r[0] === 'message' && r.length === 3) {
        this.onMessage(String(r[1]), String(r[2]));
        continue;
      }
      this.waiting.shift()?.(r);
    }
  }
}
