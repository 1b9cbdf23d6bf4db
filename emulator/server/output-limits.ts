import type { Client } from './client.js';
import { clientInfoLine } from './client-info.js';

/**
 * client-output-buffer-limit for normal and pubsub clients (src/
 * networking.c checkClientOutputBufferLimits and
 * closeClientOnOutputBufferLimitReached): a client whose unsent replies
 * (omem) reach the class's hard limit, or stay at or over its soft limit
 * for longer than its seconds, is closed, and what it was not sent is
 * dropped. Replicas have the same rule over the replication buffer
 * (replication/primary.ts).
 */

export type OutputLimitClass = 'normal' | 'pubsub';

export interface OutputLimit {
  hardBytes: number;
  softBytes: number;
  softSeconds: number;
}

/** The class's limits from the configuration's normalized value ("normal 0 0 0 slave ... pubsub ..."). */
export function outputLimitOf(value: string, cls: OutputLimitClass | 'slave'): OutputLimit {
  const t = value.split(' ');
  const i = t.indexOf(cls);
  if (i < 0) return { hardBytes: 0, softBytes: 0, softSeconds: 0 };
  return { hardBytes: Number(t[i + 1]), softBytes: Number(t[i + 2]), softSeconds: Number(t[i + 3]) };
}

/** getClientType for the limits: a primary's link counts as normal, a subscriber as pubsub. */
export function outputLimitClass(c: Client): OutputLimitClass {
  if (c.role !== 'master' && c.inPubSub) return 'pubsub';
  return 'normal';
}

/**
 * Whether `usedBytes` is over the limit now, keeping the time the soft
 * limit was first reached in `state` (checkClientOutputBufferLimits): the
 * soft limit counts only once it has held for more than its seconds.
 */
export function overOutputLimit(limit: OutputLimit, usedBytes: number, nowS: number, state: { obufSoftLimitSinceS: number }): boolean {
  const hard = limit.hardBytes !== 0 && usedBytes >= limit.hardBytes;
  let soft = limit.softBytes !== 0 && usedBytes >= limit.softBytes;
  if (soft) {
    if (state.obufSoftLimitSinceS === 0) {
      state.obufSoftLimitSinceS = nowS;
      soft = false;
    } else if (nowS - state.obufSoftLimitSinceS <= limit.softSeconds) {
      soft = false;
    }
  } else {
    state.obufSoftLimitSinceS = 0;
  }
  return hard || soft;
}

/**
 * closeClientOnOutputBufferLimitReached for a normal or pubsub client:
 * `async` when found as the output grew (the client closes when the
 * server is done with it, logged as scheduled to close), otherwise from
 * serverCron (closed now). True when the client is closed.
 */
export function closeOnOutputBufferLimit(c: Client, async: boolean): boolean {
  if (c.role === 'replica' || c.closeAsap || c.closed || c.output.replyBytes === 0) return false;
  const server = c.server;
  const limit = outputLimitOf(server.config.get('client-output-buffer-limit'), outputLimitClass(c));
  if (!overOutputLimit(limit, c.output.memoryBytes, Math.floor(server.nowMs / 1000), c)) return false;
  const info = clientInfoLine(c, null, []);
  if (async) {
    server.closeAsync(c);
    server.log(`Client ${info} scheduled to be closed ASAP for overcoming of output buffer limits.`, 'warning');
  } else {
    c.closeAsap = true;
    server.kill(c);
    server.log(`Client ${info} closed for overcoming of output buffer limits.`, 'warning');
  }
  return true;
}
