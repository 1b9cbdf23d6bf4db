import { globMatch } from '../keyspace/glob.js';
import { PushReply, type Reply } from '../resp/reply.js';
import type { Client } from './client.js';

/**
 * The server's side of pub/sub (src/pubsub.c): who listens to which channel,
 * pattern and shard channel, and the delivery of messages.
 *
 * Each map lists a channel's subscribers in the order they subscribed, as
 * Redis's per-channel client lists do. Redis keeps the channels themselves
 * in hash tables whose order depends on a random hash seed (PUBSUB CHANNELS,
 * the patterns a message is matched against, UNSUBSCRIBE without
 * arguments); here they keep the order they were first subscribed in.
 */

/** Global channels and shard channels behave alike, with their own words. */
export interface ChannelKind {
  readonly subscribe: string;
  readonly unsubscribe: string;
  readonly message: string;
  /** The client's own channels of this kind. */
  own(c: Client): Set<string>;
  /** The count a subscription reply carries (clientSubscriptionsCount or its shard form). */
  count(c: Client): number;
}

export const GLOBAL: ChannelKind = {
  subscribe: 'subscribe',
  unsubscribe: 'unsubscribe',
  message: 'message',
  own: (c) => c.channels,
  count: (c) => c.channels.size + c.patterns.size,
};

export const SHARD: ChannelKind = {
  subscribe: 'ssubscribe',
  unsubscribe: 'sunsubscribe',
  message: 'smessage',
  own: (c) => c.shardChannels,
  count: (c) => c.shardChannels.size,
};

/**
 * Hands a push (a message or a subscription reply) to a client. While the
 * client runs a command its pushes are held and go out just before that
 * command's reply, as Redis appends them to the same output buffer; to any
 * other client they go out at once.
 */
export function pushTo(c: Client, push: PushReply): void {
  if (c.heldPushes !== null) {
    if (c.heldPushes === NO_PUSHES) c.heldPushes = [];
    c.heldPushes.push(push);
  } else {
    c.onAsyncReply?.(push);
  }
}

/** The marker of a client that runs a command and has no pushes held yet. */
export const NO_PUSHES: Reply[] = Object.freeze([]) as unknown as Reply[];

export class PubSubRegistry {
  /** Channel -> subscribed clients (server.pubsub_channels). */
  readonly channels = new Map<string, Client[]>();
  /** Pattern -> subscribed clients (server.pubsub_patterns). */
  readonly patterns = new Map<string, Client[]>();
  /** Shard channel -> subscribed clients (server.pubsubshard_channels). */
  readonly shardChannels = new Map<string, Client[]>();

  private table(kind: ChannelKind): Map<string, Client[]> {
    return kind === SHARD ? this.shardChannels : this.channels;
  }

  /** pubsubSubscribeChannel: subscribes and confirms (also when already subscribed). */
  subscribe(c: Client, channel: string, kind: ChannelKind): void {
    const own = kind.own(c);
    if (!own.has(channel)) {
      own.add(channel);
      growSlots(c, kind, own.size);
      addTo(this.table(kind), channel, c);
    }
    pushTo(c, new PushReply([kind.subscribe, channel, kind.count(c)]));
  }

  /** pubsubUnsubscribeChannel: returns whether the client was subscribed. */
  unsubscribe(c: Client, channel: string, kind: ChannelKind, notify: boolean): boolean {
    const was = kind.own(c).delete(channel);
    if (was) removeFrom(this.table(kind), channel, c);
    if (notify) pushTo(c, new PushReply([kind.unsubscribe, channel, kind.count(c)]));
    return was;
  }

  /**
   * pubsubUnsubscribeAllChannelsInternal: every channel of the kind, in the
   * order they were subscribed; a client with none still gets one reply,
   * with a null channel.
   */
  unsubscribeAll(c: Client, kind: ChannelKind, notify: boolean): number {
    let count = 0;
    for (const channel of [...kind.own(c)]) if (this.unsubscribe(c, channel, kind, notify)) count++;
    if (notify && count === 0) pushTo(c, new PushReply([kind.unsubscribe, null, kind.count(c)]));
    return count;
  }

  /** pubsubSubscribePattern. */
  psubscribe(c: Client, pattern: string): void {
    if (!c.patterns.has(pattern)) {
      c.patterns.add(pattern);
      addTo(this.patterns, pattern, c);
    }
    pushTo(c, new PushReply(['psubscribe', pattern, GLOBAL.count(c)]));
  }

  /** pubsubUnsubscribePattern. */
  punsubscribe(c: Client, pattern: string, notify: boolean): boolean {
    const was = c.patterns.delete(pattern);
    if (was) removeFrom(this.patterns, pattern, c);
    if (notify) pushTo(c, new PushReply(['punsubscribe', pattern, GLOBAL.count(c)]));
    return was;
  }

  /** pubsubUnsubscribeAllPatterns. */
  punsubscribeAll(c: Client, notify: boolean): number {
    let count = 0;
    for (const pattern of [...c.patterns]) if (this.punsubscribe(c, pattern, notify)) count++;
    if (notify && count === 0) pushTo(c, new PushReply(['punsubscribe', null, GLOBAL.count(c)]));
    return count;
  }

  /** Drops every subscription without a word (a closed connection, RESET). */
  forget(c: Client): void {
    if (c.channels.size !== 0) this.unsubscribeAll(c, GLOBAL, false);
    if (c.shardChannels.size !== 0) this.unsubscribeAll(c, SHARD, false);
    if (c.patterns.size !== 0) this.punsubscribeAll(c, false);
  }

  /**
   * pubsubPublishMessage: the channel's subscribers get a message, then, for
   * global channels, the subscribers of every matching pattern a pmessage.
   * Returns how many deliveries were made.
   */
  publish(channel: string, message: string, kind: ChannelKind): number {
    let receivers = 0;
    const subscribers = this.table(kind).get(channel);
    if (subscribers !== undefined) {
      for (const c of subscribers) pushTo(c, new PushReply([kind.message, channel, message]));
      receivers += subscribers.length;
    }
    if (kind === SHARD || this.patterns.size === 0) return receivers;
    for (const [pattern, clients] of this.patterns) {
      if (!globMatch(pattern, channel)) continue;
      for (const c of clients) pushTo(c, new PushReply(['pmessage', pattern, channel, message]));
      receivers += clients.length;
    }
    return receivers;
  }
}

function addTo(table: Map<string, Client[]>, name: string, c: Client): void {
  const list = table.get(name);
  if (list === undefined) table.set(name, [c]);
  else list.push(c);
}

function removeFrom(table: Map<string, Client[]>, name: string, c: Client): void {
  const list = table.get(name)!;
  list.splice(list.indexOf(c), 1);
  // A channel nobody listens to is forgotten, so PUBSUB CHANNELS drops it.
  if (list.length === 0) table.delete(name);
}

/**
 * The client's channel table grows like a Redis dict (4 buckets, then the
 * next power of two once full) and never shrinks: its buckets count in the
 * client's memory (pubsubMemOverhead).
 */
function growSlots(c: Client, kind: ChannelKind, size: number): void {
  const slots = kind === SHARD ? c.shardChannelSlots : c.channelSlots;
  if (size <= slots) return;
  let next = Math.max(4, slots);
  while (next < size) next *= 2;
  if (kind === SHARD) c.shardChannelSlots = next;
  else c.channelSlots = next;
}

/** The memory a client's subscriptions take beyond the names (pubsubMemOverhead). */
export function pubsubMemOverhead(c: Client): number {
  const LIST_NODE = 24;
  const DICT_ENTRY = 24;
  return (
    c.patterns.size * LIST_NODE +
    c.channels.size * DICT_ENTRY +
    c.channelSlots * 8 +
    c.shardChannels.size * DICT_ENTRY +
    c.shardChannelSlots * 8
  );
}
