import { FramesReply, MapReply, NULL_ARRAY, OK, SetReply, VerbatimReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { clientInfoLine } from '../server/client-info.js';
import { parseInt64, type Int64 } from '../numbers/int64.js';
import { opt } from './args.js';
import { helpReply, subcommandSyntaxError } from './command-help.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import type { Handler } from '../server/command-table.js';
import { cString } from '../numbers/c-string.js';

/**
 * CLIENT and its subcommands (src/networking.c): naming, describing and
 * killing connections, silencing replies, waking a blocked one, pausing
 * them all (the held commands are the dispatcher's, server/client-pause.ts).
 * TRACKING needs machinery the dispatcher does not have yet (invalidation
 * messages) and is left out; as tracking
 * can never be on, GETREDIR, TRACKINGINFO and CACHING give the answers of a
 * connection that does not track.
 */

type ClientType = 'normal' | 'slave' | 'master' | 'pubsub';

const UNBLOCKED_BY_CLIENT = errorReply('-UNBLOCKED client unblocked via CLIENT UNBLOCK');

/**
 * CLIENT UNBLOCK id [TIMEOUT|ERROR]: answers a blocked client as if it had
 * timed out, or with an UNBLOCKED error; either way its command counts as
 * failed, as in Redis.
 */
function clientUnblock(c: Client, argv: string[]): Reply {
  if (argv.length > 4) return subcommandSyntaxError(argv);
  let asError = false;
  if (argv.length === 4) {
    const reason = opt(argv[3]!);
    if (reason === 'error') asError = true;
    else if (reason !== 'timeout') return errorReply('CLIENT UNBLOCK reason should be TIMEOUT or ERROR');
  }
  const id = parseInt64(argv[2]!);
  if (id === null) return NOT_INTEGER;
  const target = typeof id === 'number' ? c.server.clients.get(id) : undefined;
  if (!target || !target.blockedOn) return 0;
  const cmd = target.blockedOn.cmd;
  // TIMEOUT answers what the command answers when its time runs out
  // (replyToBlockedClientTimedOut): WAIT's count of acknowledging replicas.
  const timedOut = target.blockedOn.timeoutReply?.() ?? NULL_ARRAY;
  c.server.blocking.unblock(target, asError ? UNBLOCKED_BY_CLIENT : timedOut, 'released');
  if (cmd && !asError) cmd.failedCalls++;
  return 1;
}

/** getClientType: what CLIENT LIST TYPE and CLIENT KILL TYPE filter on. */
function clientType(c: Client): ClientType {
  if (c.role === 'master') return 'master';
  if (c.role === 'replica') return 'slave';
  if (c.inPubSub) return 'pubsub';
  return 'normal';
}

/** getClientTypeByName. */
function typeByName(name: string): ClientType | null {
  switch (opt(name)) {
    case 'normal':
      return 'normal';
    case 'slave':
    case 'replica':
      return 'slave';
    case 'pubsub':
      return 'pubsub';
    case 'master':
      return 'master';
    default:
      return null;
  }
}

/**
 * clientSetNameOrReply: an empty name removes the name; names are limited
 * to printable ASCII without spaces so CLIENT LIST stays parseable.
 */
export function setClientName(c: Client, name: string): Reply | null {
  for (let i = 0; i < name.length; i++) {
    const ch = name.charCodeAt(i);
    if (ch < 33 || ch > 126) return errorReply('Client names cannot contain spaces, newlines or special characters.');
  }
  c.name = name;
  return null;
}

function clientId(c: Client): Reply {
  return c.id;
}

function clientInfo(c: Client, argv: string[]): Reply {
  return new VerbatimReply(clientInfoLine(c, c, argv) + '\n');
}

function clientList(c: Client, argv: string[]): Reply {
  let type: ClientType | null = null;
  let out = '';
  if (argv.length === 4 && opt(argv[2]!) === 'type') {
    type = typeByName(argv[3]!);
    if (type === null) return errorReply(`Unknown client type '${cString(argv[3]!)}'`);
  } else if (argv.length > 3 && opt(argv[2]!) === 'id') {
    for (let j = 3; j < argv.length; j++) {
      const id = parseInt64(argv[j]!);
      if (id === null) return errorReply('Invalid client ID');
      const other = c.server.clients.get(Number(id));
      if (other) out += clientInfoLine(other, c, argv) + '\n';
    }
    return new VerbatimReply(out);
  } else if (argv.length !== 2) {
    return SYNTAX_ERROR;
  }
  for (const other of c.server.clients.values()) {
    if (type !== null && clientType(other) !== type) continue;
    out += clientInfoLine(other, c, argv) + '\n';
  }
  return new VerbatimReply(out);
}

function clientSetname(c: Client, argv: string[]): Reply {
  return setClientName(c, argv[2]!) ?? OK;
}

function clientGetname(c: Client): Reply {
  return c.name === '' ? null : c.name;
}

function clientNoEvict(c: Client, argv: string[]): Reply {
  const o = opt(argv[2]!);
  if (o === 'on') c.noEvict = true;
  else if (o === 'off') c.noEvict = false;
  else return SYNTAX_ERROR;
  return OK;
}

function clientKill(c: Client, argv: string[]): Reply {
  let addr: string | null = null;
  let laddr: string | null = null;
  let user: string | null = null;
  let type: ClientType | null = null;
  let id = 0;
  let skipMe = true;
  if (argv.length === 3) {
    // The old form kills by address, and may kill the caller.
    addr = argv[2]!;
    skipMe = false;
  } else {
    for (let i = 2; i < argv.length; i += 2) {
      const moreArgs = argv.length > i + 1;
      const o = opt(argv[i]!);
      if (!moreArgs) return SYNTAX_ERROR;
      const value = argv[i + 1]!;
      if (o === 'id') {
        const v = parseInt64(value);
        if (v === null || v < 1) return errorReply('client-id should be greater than 0');
        id = Number(v);
      } else if (o === 'type') {
        type = typeByName(value);
        if (type === null) return errorReply(`Unknown client type '${cString(value)}'`);
      } else if (o === 'addr') {
        addr = value;
      } else if (o === 'laddr') {
        laddr = value;
      } else if (o === 'user') {
        if (value !== 'default') return errorReply(`No such user '${cString(value)}'`);
        user = value;
      } else if (o === 'skipme') {
        const yn = opt(value);
        if (yn === 'yes') skipMe = true;
        else if (yn === 'no') skipMe = false;
        else return SYNTAX_ERROR;
      } else {
        return SYNTAX_ERROR;
      }
    }
  }
  let killed = 0;
  let closeSelf = false;
  for (const other of [...c.server.clients.values()]) {
    if (addr !== null && other.address.addr !== cString(addr)) continue;
    if (laddr !== null && other.address.laddr !== cString(laddr)) continue;
    if (type !== null && clientType(other) !== type) continue;
    if (id !== 0 && other.id !== id) continue;
    if (user !== null && other.user !== user) continue;
    if (other === c && skipMe) continue;
    if (other === c) closeSelf = true;
    else c.server.kill(other);
    killed++;
  }
  // The caller is closed only after its reply is written.
  if (closeSelf) c.closeAfterReply = true;
  if (argv.length === 3) return killed === 0 ? errorReply('No such client') : OK;
  return killed;
}

/**
 * CLIENT REPLY ON|OFF|SKIP: OFF drops every reply from now on, SKIP the
 * next command's; pushes (pub/sub messages) still arrive. The dispatcher
 * does the dropping; OFF and SKIP are themselves not answered.
 */
function clientReply(c: Client, argv: string[]): Reply {
  const mode = opt(argv[2]!);
  if (mode === 'on') {
    c.replyOff = false;
    c.replySkip = false;
    return OK;
  }
  if (mode === 'off') c.replyOff = true;
  else if (mode === 'skip') c.replySkipNext ||= !c.replyOff;
  else return SYNTAX_ERROR;
  return NO_REPLY;
}

const NO_REPLY = new FramesReply([]);

function clientGetredir(): Reply {
  return -1;
}

function clientTrackinginfo(): Reply {
  return new MapReply(['flags', new SetReply(['off']), 'redirect', -1, 'prefixes', []]);
}

function clientCaching(): Reply {
  return errorReply('CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled');
}

function clientHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, [
    'GETNAME',
    '    Return the name of this connection, or nil.',
    'ID',
    '    Return the ID of this connection.',
    'INFO',
    '    Describe this connection, in the format of CLIENT LIST.',
    'KILL <ip:port>',
    '    Close the connection coming from <ip:port>.',
    'KILL <filter> <value> [<filter> <value> ...]',
    '    Close every connection that matches all the filters:',
    '    * ID <client-id>',
    '    * ADDR <ip:port>        the address the client connects from',
    '    * LADDR <ip:port>       the address of the server it connects to',
    '    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)',
    '    * USER <username>',
    '    * SKIPME (YES|NO)       whether this connection is spared (yes by default)',
    'LIST [TYPE (NORMAL|MASTER|REPLICA|PUBSUB)] [ID <client-id> ...]',
    '    Describe every connection, or only those of a type or with given IDs.',
    'NO-EVICT (ON|OFF)',
    '    Spare this connection, or not, when client memory is over its limit.',
    'REPLY (ON|OFF|SKIP)',
    '    Turn replies to this connection on or off, or leave out the next one.',
    'SETNAME <name>',
    '    Name this connection (no spaces or special characters).',
    'GETREDIR',
    '    Return the ID invalidation messages are redirected to, or -1.',
    'TRACKINGINFO',
    '    Describe the client-side caching state of this connection.',
    'CACHING (YES|NO)',
    '    Choose whether the next command\'s keys are tracked (OPTIN/OPTOUT tracking only).',
  ]);
}

/**
 * CLIENT PAUSE timeout [WRITE|ALL]: holds back every command, or those
 * that may write, for `timeout` milliseconds (src/networking.c).
 */
function clientPause(c: Client, argv: string[]): Reply {
  if (argv.length > 4) return subcommandSyntaxError(argv);
  let type: 'write' | 'all' = 'all';
  if (argv.length === 4) {
    const mode = opt(argv[3]!);
    if (mode === 'write') type = 'write';
    else if (mode !== 'all') return errorReply('CLIENT PAUSE mode must be WRITE or ALL');
  }
  const t = parseInt64(argv[2]!);
  if (t === null) return errorReply('timeout is not an integer or out of range');
  if (t < 0n) return errorReply('timeout is negative');
  c.server.pause.pause('client-command', t > 0n ? pauseEndMs(t, c.server.nowMs) : 0, type);
  return OK;
}

/**
 * The pause's end, now + timeout as getTimeoutFromObjectOrReply adds them
 * in a long long: past its range the sum wraps to a time long gone, so the
 * pause ends as it starts (though its kind still joins a pause under way).
 */
function pauseEndMs(timeoutMs: Int64, nowMs: number): number {
  return Number(BigInt.asIntN(64, BigInt(timeoutMs) + BigInt(nowMs)));
}

/** CLIENT UNPAUSE. */
function clientUnpause(c: Client): Reply {
  c.server.pause.unpause('client-command');
  return OK;
}

export const clientCommands: Record<string, Handler> = {
  'client|pause': clientPause,
  'client|unpause': clientUnpause,
  'client|id': clientId,
  'client|info': clientInfo,
  'client|list': clientList,
  'client|setname': clientSetname,
  'client|getname': clientGetname,
  'client|no-evict': clientNoEvict,
  'client|kill': clientKill,
  'client|reply': clientReply,
  'client|help': clientHelp,
  'client|getredir': clientGetredir,
  'client|trackinginfo': clientTrackinginfo,
  'client|caching': clientCaching,
  'client|unblock': clientUnblock,
};
