import { globMatch } from '../keyspace/glob.js';
import { errorReply, FramesReply, type Reply } from '../resp/reply.js';
import { PROPAGATE, type Client } from '../server/client.js';
import { GLOBAL, SHARD, type ChannelKind } from '../server/pubsub.js';
import { helpReply, subcommandSyntaxError } from './command-help.js';
import type { Handler } from '../server/command-table.js';

/**
 * The pub/sub commands (src/pubsub.c). Every subscription change is
 * confirmed by a push per channel or pattern (an array in RESP2), and the
 * command itself has no other reply: the pushes are the reply. The
 * registry they work on is the server's (server/pubsub.ts).
 */

/** The subscription commands answer only with their pushes. */
const NO_REPLY = new FramesReply([]);

function subscribe(c: Client, argv: string[]): Reply {
  // Redis refuses SUBSCRIBE to a client that must get one reply per command
  // (a script) except inside a transaction; scripts do not exist here, so
  // it is always allowed.
  for (let j = 1; j < argv.length; j++) c.server.pubsub.subscribe(c, argv[j]!, GLOBAL);
  return NO_REPLY;
}

function ssubscribe(c: Client, argv: string[]): Reply {
  // Unlike SUBSCRIBE, not even a transaction may do it (7.0's
  // ssubscribeCommand checks CLIENT_DENY_BLOCKING alone).
  if (c.inExec) return errorReply("SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
  for (let j = 1; j < argv.length; j++) c.server.pubsub.subscribe(c, argv[j]!, SHARD);
  return NO_REPLY;
}

function unsubscribeGeneric(c: Client, argv: string[], kind: ChannelKind): Reply {
  const pubsub = c.server.pubsub;
  if (argv.length === 1) pubsub.unsubscribeAll(c, kind, true);
  else for (let j = 1; j < argv.length; j++) pubsub.unsubscribe(c, argv[j]!, kind, true);
  return NO_REPLY;
}

function unsubscribe(c: Client, argv: string[]): Reply {
  return unsubscribeGeneric(c, argv, GLOBAL);
}

function sunsubscribe(c: Client, argv: string[]): Reply {
  return unsubscribeGeneric(c, argv, SHARD);
}

function psubscribe(c: Client, argv: string[]): Reply {
  for (let j = 1; j < argv.length; j++) c.server.pubsub.psubscribe(c, argv[j]!);
  return NO_REPLY;
}

function punsubscribe(c: Client, argv: string[]): Reply {
  const pubsub = c.server.pubsub;
  if (argv.length === 1) pubsub.punsubscribeAll(c, true);
  else for (let j = 1; j < argv.length; j++) pubsub.punsubscribe(c, argv[j]!, true);
  return NO_REPLY;
}

/**
 * PUBLISH and SPUBLISH: the number of deliveries. Outside a cluster the
 * command goes to replicas (which deliver it to their own subscribers) but
 * not to the AOF: a message is not data.
 */
function publishGeneric(c: Client, argv: string[], kind: ChannelKind): Reply {
  const receivers = c.server.pubsub.publish(argv[1]!, argv[2]!, kind);
  c.forcePropagation |= PROPAGATE.REPL;
  return receivers;
}

function publish(c: Client, argv: string[]): Reply {
  return publishGeneric(c, argv, GLOBAL);
}

function spublish(c: Client, argv: string[]): Reply {
  return publishGeneric(c, argv, SHARD);
}

/** PUBSUB CHANNELS / SHARDCHANNELS [pattern]: the channels someone listens to. */
function channelList(argv: string[], table: Map<string, unknown>): Reply {
  if (argv.length > 3) return subcommandSyntaxError(argv);
  const pattern = argv.length === 3 ? argv[2]! : null;
  const out: Reply[] = [];
  for (const channel of table.keys()) if (pattern === null || globMatch(pattern, channel)) out.push(channel);
  return out;
}

/** PUBSUB NUMSUB / SHARDNUMSUB [channel ...]: each channel and its subscribers, flat. */
function numsubList(argv: string[], table: Map<string, readonly unknown[]>): Reply {
  const out: Reply[] = [];
  for (let j = 2; j < argv.length; j++) out.push(argv[j]!, table.get(argv[j]!)?.length ?? 0);
  return out;
}

function pubsubChannels(c: Client, argv: string[]): Reply {
  return channelList(argv, c.server.pubsub.channels);
}

function pubsubShardchannels(c: Client, argv: string[]): Reply {
  return channelList(argv, c.server.pubsub.shardChannels);
}

function pubsubNumsub(c: Client, argv: string[]): Reply {
  return numsubList(argv, c.server.pubsub.channels);
}

function pubsubShardnumsub(c: Client, argv: string[]): Reply {
  return numsubList(argv, c.server.pubsub.shardChannels);
}

/** PUBSUB NUMPAT: distinct patterns, however many clients share each. */
function pubsubNumpat(c: Client): Reply {
  return c.server.pubsub.patterns.size;
}

function pubsubHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, [
    'CHANNELS [<pattern>]',
    '    Return the channels that have subscribers, those matching <pattern> if given.',
    'NUMPAT',
    '    Return how many distinct patterns clients are subscribed to.',
    'NUMSUB [<channel> ...]',
    '    Return each channel with its number of subscribers; clients listening',
    '    through a pattern are not counted.',
    'SHARDCHANNELS [<pattern>]',
    '    Return the shard channels that have subscribers, those matching <pattern> if given.',
    'SHARDNUMSUB [<shardchannel> ...]',
    '    Return each shard channel with its number of subscribers.',
  ]);
}

export const pubsubCommands: Record<string, Handler> = {
  subscribe,
  unsubscribe,
  psubscribe,
  punsubscribe,
  ssubscribe,
  sunsubscribe,
  publish,
  spublish,
  'pubsub|channels': pubsubChannels,
  'pubsub|shardchannels': pubsubShardchannels,
  'pubsub|numsub': pubsubNumsub,
  'pubsub|shardnumsub': pubsubShardnumsub,
  'pubsub|numpat': pubsubNumpat,
  'pubsub|help': pubsubHelp,
};
