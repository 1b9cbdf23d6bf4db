import { encodeCommand } from '../resp/encode.js';
import { ReplyParser } from '../resp/reply-parser.js';
import { PushReply, type Reply } from '../resp/reply.js';
import type { NetError, Socket } from '../sim/network.js';

/**
 * A terminal's connection to a server in the world: commands go out as RESP,
 * replies are kept in order as data. The world owns sessions, so what they
 * receive is part of the world's state and is rebuilt exactly when a
 * checkpoint is restored. The terminals of the workbook and of `npm run cli`
 * show a session's replies; nothing here formats them.
 */
export interface SessionEvent {
  /** Virtual time (us since the world began). */
  readonly t: number;
  readonly kind: 'reply' | 'closed';
  readonly reply?: Reply;
  /** Why the connection ended: null for a clean close. */
  readonly error?: string | null;
}

export class Session {
  readonly events: SessionEvent[] = [];
  /** Commands sent whose replies have not come. */
  pending = 0;
  private parser = new ReplyParser();
  private listeners: Array<(e: SessionEvent) => void> = [];
  private queued: string[] = [];
  /** The commands whose replies have not come, oldest first, for `onReply`. */
  private readonly sent: string[][] = [];

  constructor(
    readonly id: string,
    readonly from: string,
    readonly to: string,
    readonly socket: Socket,
    private readonly elapsedUs: () => number,
    /** Told of each reply to a command with the command (not of pushes, nor of a stream's later messages). */
    private readonly onReply?: (argv: readonly string[], reply: Reply) => void,
  ) {
    socket.onConnect = () => {
      const q = this.queued;
      this.queued = [];
      for (const bytes of q) socket.write(bytes);
    };
    socket.onData = (data) => {
      this.parser.feed(data);
      for (;;) {
        let r: Reply | undefined;
        try {
          r = this.parser.next();
        } catch {
          socket.destroy();
          this.push({ t: this.elapsedUs(), kind: 'closed', error: 'Protocol error' });
          return;
        }
        if (r === undefined) break;
        if (this.pending > 0) this.pending--;
        const argv = r instanceof PushReply ? undefined : this.sent.shift();
        if (argv !== undefined) this.onReply?.(argv, r);
        this.push({ t: this.elapsedUs(), kind: 'reply', reply: r });
      }
    };
    socket.onClose = (error: NetError | null) => {
      this.push({ t: this.elapsedUs(), kind: 'closed', error: error?.message ?? null });
    };
    // The terminal's own machine lost power: the connection vanished with its
    // kernel, so the terminal hears it now rather than wait for a reply that
    // can never come.
    socket.onHostDown = () => {
      this.push({ t: this.elapsedUs(), kind: 'closed', error: 'Connection lost: the machine lost power' });
    };
  }

  get closed(): boolean {
    return this.socket.state === 'closed';
  }

  /** Sends one command. False when the connection is gone. */
  send(argv: readonly string[]): boolean {
    if (this.socket.state === 'closed') return false;
    this.pending++;
    if (this.onReply !== undefined) this.sent.push([...argv]);
    const bytes = encodeCommand(argv);
    if (this.socket.state === 'connecting') this.queued.push(bytes);
    else this.socket.write(bytes);
    return true;
  }

  /** The replies received so far. */
  replies(): Reply[] {
    return this.events.filter((e) => e.kind === 'reply').map((e) => e.reply!);
  }

  subscribe(listener: (e: SessionEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  private push(e: SessionEvent): void {
    this.events.push(e);
    for (const l of this.listeners) l(e);
  }
}
