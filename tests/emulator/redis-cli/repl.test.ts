import { describe, expect, it } from 'vitest';
import { ManualClock, createServer } from '../../../emulator/index.js';
import { RedisCliRepl, type RedisCliReplOptions } from '../../../emulator/redis-cli/repl.js';
import { CLOSED, InProcessLink, type CliLink } from '../../../emulator/redis-cli/link.js';
import { PushReply, StatusReply, type Reply } from '../../../emulator/resp/reply.js';

/** A link that answers from a script, to show what the emulator cannot send yet. */
function scriptedLink(replies: Reply[]): CliLink {
  return {
    closed: false,
    send() {},
    read: () => Promise.resolve(replies.length !== 0 ? replies.shift()! : CLOSED),
    close() {},
  };
}

function setup(opts: Partial<RedisCliReplOptions> = {}) {
  const server = createServer({ clock: new ManualClock() });
  const out: string[] = [];
  const err: string[] = [];
  const links: InProcessLink[] = [];
  const session = new RedisCliRepl({
    connect: () => {
      const l = new InProcessLink(server);
      links.push(l);
      return l;
    },
    write: (s) => out.push(s),
    writeError: (s) => err.push(s),
    ...opts,
  });
  const run = async (line: string) => {
    out.length = 0;
    err.length = 0;
    const r = await session.runLine(line);
    return { ...r, out: out.join(''), err: err.join('') };
  };
  return { server, session, run, links };
}

describe('redis-cli session', () => {
  it('shows the address, then [db] after SELECT', async () => {
    const { session, run } = setup();
    await session.connect();
    expect(session.prompt).toBe('127.0.0.1:6379> ');
    expect((await run('SELECT 2')).out).toBe('OK\n');
    expect(session.prompt).toBe('127.0.0.1:6379[2]> ');
    await run('SELECT 99');
    expect(session.prompt).toBe('127.0.0.1:6379[2]> ');
    await run('select 0');
    expect(session.prompt).toBe('127.0.0.1:6379> ');
  });

  it('shows (TX) inside MULTI, and follows a SELECT queued in it', async () => {
    const { session, run } = setup();
    await session.connect();
    await run('MULTI');
    expect(session.prompt).toBe('127.0.0.1:6379(TX)> ');
    expect((await run('SELECT 3')).out).toBe('QUEUED\n');
    expect(session.prompt).toBe('127.0.0.1:6379[3](TX)> ');
    expect((await run('EXEC')).out).toBe('1) OK\n');
    expect(session.prompt).toBe('127.0.0.1:6379[3]> ');
  });

  it('forgets a SELECT queued in a discarded or failed transaction', async () => {
    const { session, run } = setup();
    await session.connect();
    await run('SELECT 1');
    await run('MULTI');
    await run('SELECT 5');
    await run('DISCARD');
    expect(session.prompt).toBe('127.0.0.1:6379[1]> ');
    await run('MULTI');
    await run('SELECT 5');
    await run('NOSUCHCOMMAND');
    expect((await run('EXEC')).out).toBe('(error) EXECABORT Transaction discarded because of previous errors.\n');
    expect(session.prompt).toBe('127.0.0.1:6379[1]> ');
  });

  it('selects the database of -n when it connects, and brackets an IPv6 host', async () => {
    const { session } = setup({ db: 4, host: '::1', port: 7000 });
    await session.connect();
    expect(session.prompt).toBe('[::1]:7000[4]> ');
  });

  it('quit and exit end the session; AUTH stays out of the history', async () => {
    const { session, run } = setup();
    await session.connect();
    expect((await run('quit')).exit).toBe(0);
    expect((await run('EXIT now')).exit).toBe(0);
    expect((await run('AUTH secret')).history).toBe(false);
    expect((await run('GET a')).history).toBe(true);
  });

  it('answers bad quoting and bad repeat counts itself', async () => {
    const { session, run } = setup();
    await session.connect();
    expect((await run('SET "a b')).out).toBe('Invalid argument(s)\n');
    expect((await run("SET 'a'b c")).out).toBe('Invalid argument(s)\n');
    expect((await run('0 PING')).out).toBe('Invalid redis-cli repeat command option value.\n');
    expect((await run('3 PING')).out).toBe('PONG\nPONG\nPONG\n');
  });

  it('prints raw replies in --raw mode', async () => {
    const { session, run } = setup({ output: 'raw' });
    await session.connect();
    await run('RPUSH l a b');
    expect((await run('LRANGE l 0 -1')).out).toBe('a\nb\n');
    expect((await run('GET nokey')).out).toBe('\n');
  });

  it('reports a connection the server closed, then connects again', async () => {
    const { server, session, run, links } = setup();
    await session.connect();
    await run('SELECT 2');
    server.kill(links[0]!.client);
    const lost = await run('PING');
    expect(lost.out).toBe('');
    expect(lost.err).toBe('Error: Server closed the connection\n');
    expect(session.prompt).toBe('not connected> ');
    expect((await run('PING')).out).toBe('PONG\n');
    expect(links.length).toBe(2);
    // Like redis-cli 7.0, the prompt keeps the database number while the
    // new connection is in database 0: it selects only when they differ.
    expect(session.prompt).toBe('127.0.0.1:6379[2]> ');
  });

  it('says nothing when SHUTDOWN closes the connection, and nothing for any closed connection after that', async () => {
    const { server, session, run, links } = setup();
    await session.connect();
    // A server without a shutdown hook refuses; the client closing is what redis-cli sees either way.
    server.kill(links[0]!.client);
    const shut = await run('SHUTDOWN NOSAVE');
    expect([shut.out, shut.err]).toEqual(['', '']);
    expect(session.prompt).toBe('not connected> ');
    expect((await run('PING')).out).toBe('PONG\n');
    server.kill(links[1]!.client);
    // redis-cli's config.shutdown stays set: a later closed connection is dropped silently too.
    const later = await run('PING');
    expect([later.out, later.err]).toEqual(['', '']);
    expect(session.prompt).toBe('not connected> ');
  });

  it('speaks RESP3 when asked, and prints maps and doubles', async () => {
    const { session, run } = setup({ resp3: true });
    await session.connect();
    await run('HSET h f v');
    expect((await run('HGETALL h')).out).toBe('1# "f" => "v"\n');
    await run('ZADD z 1.5 m');
    expect((await run('ZSCORE z m')).out).toBe('(double) 1.5\n');
  });

  it('prints pushes that come before a reply, and still waits for the reply', async () => {
    const replies: Reply[] = [new PushReply(['invalidate', ['k', 'a\x00b']]), new PushReply(['invalidate', null]), new StatusReply('PONG')];
    const out: string[] = [];
    const session = new RedisCliRepl({ connect: () => scriptedLink(replies), write: (t) => out.push(t), writeError: () => {} });
    await session.runLine('PING');
    expect(out.join('')).toBe("-> invalidate: 'k', 'a'\n1) \"invalidate\"\n2) (nil)\nPONG\n");
  });

  it('drops pushes when told not to show them', async () => {
    const replies: Reply[] = [new PushReply(['invalidate', ['k']]), new StatusReply('PONG')];
    const out: string[] = [];
    const session = new RedisCliRepl({ connect: () => scriptedLink(replies), showPushes: false, write: (t) => out.push(t), writeError: () => {} });
    await session.runLine('PING');
    expect(out.join('')).toBe('PONG\n');
  });
});
