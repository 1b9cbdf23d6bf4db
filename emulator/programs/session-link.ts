import { ReplyQueue, type CLOSED, type CliLink } from '../redis-cli/link.js';
import type { Reply } from '../resp/reply.js';
import type { Session } from '../world/terminal-session.js';
import type { World } from '../world/world.js';

const counters = new WeakMap<World, number>();

/**
 * A terminal's connection (CliLink) as a session of the world: a TCP
 * connection from a host of the world to a server, opened and fed through
 * the world's recorded actions, so the commands take the network's time
 * like any client's and a checkpoint of the world holds them. Replies
 * resolve as the world delivers them.
 *
 *   const link = new SessionLink(world, 'redis', 'redis:6379');
 *   link.send(['PING']);
 *   await link.read();   // once the world has run: StatusReply('PONG')
 *
 * A connection that cannot be made reads as closed.
 */
export class SessionLink implements CliLink {
  readonly id: string;
  readonly session: Session;
  private readonly replies = new ReplyQueue();
  /** Why the connection ended, when it did not end cleanly (a reset, a refusal). */
  error: string | null = null;

  /**
   * Opens a new session from `from` to `to`, or, with `adopt`, takes up a
   * session of the world that is already open (a terminal restored with
   * its world): only what arrives from now on is read.
   */
  constructor(
    private readonly world: World,
    from: string,
    to: string,
    adopt?: Session,
  ) {
    if (adopt !== undefined) {
      this.id = adopt.id;
      this.session = adopt;
      SessionLink.continueNumbering(world, [adopt.id]);
      if (adopt.closed) this.replies.end();
    } else {
      const n = (counters.get(world) ?? 0) + 1;
      counters.set(world, n);
      this.id = `terminal-${n}`;
      this.session = world.openSession(this.id, from, to);
    }
    this.session.subscribe((e) => {
      if (e.kind === 'reply') {
        this.replies.push(e.reply!);
      } else {
        this.error = e.error ?? null;
        this.finish();
      }
    });
  }

  /**
   * Numbers new links after the ids given, so that a world restored from a
   * checkpoint never gives a new terminal the id of one in its history.
   */
  static continueNumbering(world: World, ids: Iterable<string>): void {
    let n = counters.get(world) ?? 0;
    for (const id of ids) {
      const m = /^terminal-(\d+)$/.exec(id);
      if (m !== null) n = Math.max(n, Number(m[1]));
    }
    counters.set(world, n);
  }

  get closed(): boolean {
    return this.replies.ended;
  }

  send(argv: readonly string[]): void {
    if (this.replies.ended) return;
    this.world.send(this.id, [...argv]);
  }

  read(): Promise<Reply | typeof CLOSED> {
    return this.replies.read();
  }

  close(): void {
    if (!this.replies.ended) this.world.apply({ kind: 'closeSession', id: this.id });
    this.finish();
  }

  private finish(): void {
    // Ending resolves the reads that wait: the kernel's async drivers yield so that they run.
    if (this.replies.end()) this.world.kernel.promisesSettled = true;
  }
}
