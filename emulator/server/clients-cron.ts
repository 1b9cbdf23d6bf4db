import type { Client } from './client.js';
import { effectiveHz } from './info.js';
import { closeOnOutputBufferLimit } from './output-limits.js';
import type { RedisServer } from './server.js';

/**
 * clientsCron (src/server.c): each serverCron visits some of the clients,
 * enough that each is visited about once a second (clients / hz, at least
 * five), taking them in turn from the newest as Redis rotates its list.
 * A visit closes the client when idle past `timeout`, trims its query
 * buffer and resizes its reply buffer, and closes it when its output has
 * stayed over the soft limit too long.
 */

/** CLIENTS_CRON_MIN_ITERATIONS. */
const MIN_VISITS = 5;
/** REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME: the reply buffer's peak is forgotten every 5 s. */
export const REPLY_BUFFER_PEAK_RESET_MS = 5000;

export class ClientsCron {
  /** The clients in the order the rotation takes them, and where it stands. */
  private order: Client[] = [];
  private next = 0;
  /** DEBUG REPLYBUFFER peak-reset-time (ms; -1: never) and resizing (on by default). */
  peakResetTimeMs = REPLY_BUFFER_PEAK_RESET_MS;
  resizeReplyBuffers = true;

  constructor(private readonly server: RedisServer) {}

  run(): void {
    const server = this.server;
    const n = server.clients.size;
    if (n === 0) return;
    let visits = Math.floor(n / effectiveHz(server));
    if (visits < MIN_VISITS) visits = Math.min(n, MIN_VISITS);
    const nowMs = server.nowMs;
    for (let i = 0; i < visits; i++) {
      const c = this.take();
      if (c === null) break;
      if (this.closeIfIdle(c, nowMs)) continue;
      c.queryBuffer?.cronResize(Math.floor(nowMs / 1000) - Math.floor(c.lastInteractionMs / 1000));
      c.output.cronResize(nowMs, this.peakResetTimeMs, this.resizeReplyBuffers);
      closeOnOutputBufferLimit(c, false);
    }
  }

  /** The next client in turn: newest first, round and round. */
  private take(): Client | null {
    if (this.next >= this.order.length) {
      this.order = [...this.server.clients.values()].reverse();
      this.next = 0;
    }
    while (this.next < this.order.length) {
      const c = this.order[this.next++]!;
      if (!c.closed) return c;
    }
    return null;
  }

  /**
   * clientsCronHandleTimeout for `timeout`: a normal client idle for
   * longer is closed; blocked, subscribed, replica and monitor clients
   * are not. Compared in whole seconds, as Redis does.
   */
  private closeIfIdle(c: Client, nowMs: number): boolean {
    const maxIdle = this.server.config.getNumber('timeout');
    if (maxIdle <= 0 || c.role !== 'normal' || c.blocked) return false;
    if (c.inPubSub) return false;
    if (Math.floor(nowMs / 1000) - Math.floor(c.lastInteractionMs / 1000) <= maxIdle) return false;
    this.server.log('Closing idle client', 'verbose');
    this.server.kill(c);
    return true;
  }
}
