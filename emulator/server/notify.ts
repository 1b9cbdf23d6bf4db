import { GLOBAL, type PubSubRegistry } from './pubsub.js';

/**
 * Keyspace notifications (src/notify.c): a command that changes a key
 * publishes what it did, on `__keyspace@<db>__:<key>` (the event as the
 * message) and on `__keyevent@<db>__:<event>` (the key as the message), for
 * the classes of events `notify-keyspace-events` enables. Every place in
 * Redis that calls notifyKeyspaceEvent has its one call here, with the same
 * class and event name, at the same point of the command.
 */

/** Event classes (server.h NOTIFY_*); the letters are those of notify-keyspace-events. */
export const NOTIFY = {
  /** K: publish on __keyspace@<db>__:<key>. */
  KEYSPACE: 1 << 0,
  /** E: publish on __keyevent@<db>__:<event>. */
  KEYEVENT: 1 << 1,
  /** g: DEL, EXPIRE, RENAME and the other type-independent commands. */
  GENERIC: 1 << 2,
  /** $ */
  STRING: 1 << 3,
  /** l */
  LIST: 1 << 4,
  /** s */
  SET: 1 << 5,
  /** h */
  HASH: 1 << 6,
  /** z */
  ZSET: 1 << 7,
  /** x: a key deleted because its time to live passed. */
  EXPIRED: 1 << 8,
  /** e: a key deleted by maxmemory eviction. */
  EVICTED: 1 << 9,
  /** t */
  STREAM: 1 << 10,
  /** m: a read of a missing key (left out of A on purpose). */
  KEY_MISS: 1 << 11,
  /** d: module events. */
  MODULE: 1 << 13,
  /** n: a key created (left out of A). */
  NEW: 1 << 14,
} as const;

/** Where notifications go: the server's setting and its pub/sub. */
export interface NotifyHost {
  /** notify-keyspace-events as flags. */
  readonly notifyFlags: number;
  readonly pubsub: PubSubRegistry;
}

/**
 * Publishes one keyspace event, if its class is enabled: Redis's
 * notifyKeyspaceEvent(type, event, key, dbid).
 *
 *   notifyKeyspaceEvent(server, NOTIFY.STRING, 'set', 'foo', 0);
 *   // __keyspace@0__:foo "set" and __keyevent@0__:set "foo", as enabled
 */
export function notifyKeyspaceEvent(host: NotifyHost, type: number, event: string, key: string, dbid: number): void {
  const flags = host.notifyFlags;
  if ((flags & type) === 0) return;
  if (flags & NOTIFY.KEYSPACE) host.pubsub.publish(`__keyspace@${dbid}__:${key}`, event, GLOBAL);
  if (flags & NOTIFY.KEYEVENT) host.pubsub.publish(`__keyevent@${dbid}__:${event}`, key, GLOBAL);
}
