import { discardTransaction } from '../server/transaction.js';
import { MapReply, OK, StatusReply, errorReply, type Reply } from '../resp/reply.js';
import { clientResetHooks, type Client } from '../server/client.js';
import { REDIS_VERSION } from '../server/info.js';
import { parseInt64 } from '../numbers/int64.js';
import { opt } from './args.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import { setClientName } from './client.js';
import type { Handler } from '../server/command-table.js';

/**
 * HELLO, AUTH and RESET (src/networking.c, src/acl.c): the handshake and
 * identity of a connection. The only user is "default"; it needs no
 * password unless requirepass is set.
 */

const WRONGPASS = '-WRONGPASS invalid username-password pair or user is disabled.';

/** ACLAuthenticateUser for the single "default" user. */
function authenticate(c: Client, user: string, password: string): boolean {
  if (user !== 'default') return false;
  const required = c.server.config.get('requirepass');
  if (required !== '' && password !== required) return false;
  c.user = 'default';
  c.authenticated = true;
  return true;
}

function auth(c: Client, argv: string[]): Reply {
  if (argv.length > 3) return SYNTAX_ERROR;
  // Passwords never reach the slow log or MONITOR; nor does a user name given with one.
  c.redact(1);
  if (argv.length === 3) c.redact(2);
  if (argv.length === 2) {
    if (c.server.config.get('requirepass') === '') {
      return errorReply(
        'AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?',
      );
    }
    return authenticate(c, 'default', argv[1]!) ? OK : errorReply(WRONGPASS);
  }
  return authenticate(c, argv[1]!, argv[2]!) ? OK : errorReply(WRONGPASS);
}

function hello(c: Client, argv: string[]): Reply {
  let version = 0;
  let next = 1;
  if (argv.length >= 2) {
    const v = parseInt64(argv[next++]!);
    if (v === null) return errorReply('Protocol version is not an integer or out of range');
    if (v < 2 || v > 3) return errorReply('-NOPROTO unsupported protocol version');
    version = Number(v);
  }
  for (let j = next; j < argv.length; j++) {
    const moreArgs = argv.length - 1 - j;
    const o = opt(argv[j]!);
    if (o === 'auth' && moreArgs >= 2) {
      c.redact(j + 1);
      c.redact(j + 2);
      if (!authenticate(c, argv[j + 1]!, argv[j + 2]!)) return errorReply(WRONGPASS);
      j += 2;
    } else if (o === 'setname' && moreArgs >= 1) {
      const err = setClientName(c, argv[j + 1]!);
      if (err) return err;
      j++;
    } else {
      const nul = argv[j]!.indexOf('\0');
      return errorReply(`Syntax error in HELLO option '${nul < 0 ? argv[j] : argv[j]!.slice(0, nul)}'`);
    }
  }
  if (!c.authenticated) {
    return errorReply(
      '-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time',
    );
  }
  if (version) c.resp = version as 2 | 3;
  return new MapReply([
    'server', 'redis',
    'version', REDIS_VERSION,
    'proto', c.resp,
    'id', c.id,
    'mode', c.server.config.getBool('cluster-enabled') ? 'cluster' : 'standalone',
    // helloCommand: a server following a primary says so.
    'role', c.server.replication.masterHost !== null ? 'replica' : 'master',
    'modules', [],
  ]);
}

/** RESET: the connection becomes like a fresh one (clearClientConnectionState). */
function reset(c: Client): Reply {
  if (c.role === 'replica' || c.role === 'master') return errorReply('can only reset normal client connections');
  if (c.role === 'monitor') c.role = 'normal';
  for (const hook of clientResetHooks) hook(c);
  c.db = c.server.dbs[0]!;
  c.resp = 2;
  c.user = 'default';
  c.authenticated = c.server.config.get('requirepass') === '';
  discardTransaction(c);
  c.server.pubsub.forget(c);
  c.replyOff = false;
  c.replySkipNext = false;
  c.name = '';
  c.readonlyMode = false;
  return new StatusReply('RESET');
}

export const helloCommands: Record<string, Handler> = { auth, hello, reset };
