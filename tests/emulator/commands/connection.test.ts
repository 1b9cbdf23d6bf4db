import { describe, expect, it } from 'vitest';
import type { RedisServer } from '../../../emulator/server/server.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ServerConnection } from '../../../emulator/server/connection.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { encodeCommand } from '../../../emulator/resp/encode.js';
import { ErrorReply, MapReply, StatusReply, VerbatimReply, type Reply } from '../../../emulator/resp/reply.js';

function setup(config: Record<string, string> = {}) {
  const clock = new ManualClock(1_767_225_600_000_000);
  const server = createServer({ clock, config });
  const c = server.connect();
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { clock, server, c, run };
}

/** A byte-level connection, as the TCP server and the differential harness use. */
function connection(server: RedisServer) {
  const out: string[] = [];
  let closed = false;
  const conn = new ServerConnection(server, (b) => out.push(b), () => (closed = true));
  return {
    conn,
    send(...argv: string[]): string {
      conn.receive(new Uint8Array(Buffer.from(encodeCommand(argv), 'latin1')));
      const r = out.join('');
      out.length = 0;
      return r;
    },
    get closed() {
      return closed;
    },
  };
}

function text(r: Reply): string {
  if (r instanceof StatusReply) return r.text;
  if (r instanceof ErrorReply) return '-' + r.message;
  if (r instanceof VerbatimReply) return r.text;
  return String(r);
}

describe('connection basics', () => {
  it('a fresh server numbers its first connection 3', () => {
    const { run } = setup();
    expect(run('CLIENT', 'ID')).toBe(3);
  });

  it('PING in RESP2 subscriber mode answers an array', () => {
    const { c, run } = setup();
    c.channels.add('news');
    expect(run('PING')).toEqual(['pong', '']);
    expect(run('PING', 'x')).toEqual(['pong', 'x']);
    c.resp = 3;
    expect(text(run('PING'))).toBe('PONG');
  });

  it('SELECT accepts only existing databases', () => {
    const { c, run } = setup({ databases: '4' });
    expect(text(run('SELECT', '3'))).toBe('OK');
    expect(c.db.id).toBe(3);
    expect(text(run('SELECT', '4'))).toBe('-ERR DB index is out of range');
    expect(text(run('SELECT', '2147483648'))).toBe('-ERR value is out of range, value must between -2147483648 and 2147483647');
  });

  it('QUIT replies OK, then the connection closes', () => {
    const { server } = setup();
    const a = connection(server);
    expect(a.send('QUIT')).toBe('+OK\r\n');
    expect(a.closed).toBe(true);
  });
});

describe('HELLO, AUTH, RESET', () => {
  it('HELLO switches the protocol and describes the server', () => {
    const { c, run } = setup();
    const r = run('HELLO', '3') as MapReply;
    expect(c.resp).toBe(3);
    expect(r.flat).toEqual(['server', 'redis', 'version', '7.0.15', 'proto', 3, 'id', c.id, 'mode', 'standalone', 'role', 'master', 'modules', []]);
    expect(text(run('HELLO', '4'))).toBe('-NOPROTO unsupported protocol version');
    expect(c.resp).toBe(3);
  });

  it('AUTH without a password configured', () => {
    const { run } = setup();
    expect(text(run('AUTH', 'x'))).toMatch(/^-ERR AUTH <password> called without any password configured/);
    expect(text(run('AUTH', 'default', 'anything'))).toBe('OK');
    expect(text(run('AUTH', 'someone', 'x'))).toBe('-WRONGPASS invalid username-password pair or user is disabled.');
  });

  it('requirepass: new connections must authenticate first', () => {
    const { server, run } = setup();
    run('CONFIG', 'SET', 'requirepass', 'pw');
    const other = server.connect();
    expect(text(server.execute(other, ['GET', 'k']))).toBe('-NOAUTH Authentication required.');
    expect(text(server.execute(other, ['AUTH', 'pw']))).toBe('OK');
    expect(server.execute(other, ['GET', 'k'])).toBeNull();
  });

  it('RESET forgets the database, protocol, name and transaction', () => {
    const { c, run } = setup();
    run('SELECT', '2');
    run('HELLO', '3', 'SETNAME', 'me');
    run('MULTI');
    expect(text(run('RESET'))).toBe('RESET');
    expect([c.db.id, c.resp, c.name, c.inMulti]).toEqual([0, 2, '', false]);
  });
});

describe('CLIENT', () => {
  it('SETNAME refuses spaces and control characters, an empty name removes it', () => {
    const { run } = setup();
    expect(text(run('CLIENT', 'SETNAME', 'a b'))).toBe('-ERR Client names cannot contain spaces, newlines or special characters.');
    expect(text(run('CLIENT', 'SETNAME', 'ok~!'))).toBe('OK');
    expect(run('CLIENT', 'GETNAME')).toBe('ok~!');
    run('CLIENT', 'SETNAME', '');
    expect(run('CLIENT', 'GETNAME')).toBeNull();
  });

  it('CLIENT LIST has every 7.0 field, in order', () => {
    const { server } = setup();
    server.connect();
    const me = connection(server);
    me.send('CLIENT', 'SETNAME', 'me');
    const reply = me.send('CLIENT', 'LIST');
    const lines = reply.slice(reply.indexOf('\r\n') + 2, -2).split('\n');
    expect(lines.length).toBe(4);
    expect(lines[3]).toBe('');
    const fields = lines[0]!.split(' ').map((f) => f.slice(0, f.indexOf('=')));
    expect(fields).toEqual([
      'id', 'addr', 'laddr', 'fd', 'name', 'age', 'idle', 'flags', 'db', 'sub', 'psub', 'ssub', 'multi', 'qbuf', 'qbuf-free',
      'argv-mem', 'multi-mem', 'rbs', 'rbp', 'obl', 'oll', 'omem', 'tot-mem', 'events', 'cmd', 'user', 'redir', 'resp',
    ]);
    expect(lines[2]).toMatch(/ name=me age=0 idle=0 flags=N db=0 .* qbuf=26 qbuf-free=20448 argv-mem=10 .* tot-mem=37658 events=r cmd=client\|list user=default redir=-1 resp=2$/);
  });

  it('CLIENT LIST flags follow the connection state', () => {
    const { server, run } = setup();
    const other = server.connect();
    server.execute(other, ['CLIENT', 'NO-EVICT', 'ON']);
    server.execute(other, ['MULTI']);
    server.execute(other, ['SET', 'a', 'b']);
    const line = text(run('CLIENT', 'LIST', 'ID', String(other.id)));
    expect(line).toMatch(/ flags=xe .* multi=1 .* multi-mem=29 /);
  });

  it('CLIENT KILL of another connection closes it at once', () => {
    const { server, run } = setup();
    const b = connection(server);
    b.send('PING');
    expect(run('CLIENT', 'KILL', 'ID', String(b.conn.client.id))).toBe(1);
    expect(b.closed).toBe(true);
    expect(server.clients.has(b.conn.client.id)).toBe(false);
  });

  it('CLIENT KILL of the caller answers first, then closes', () => {
    const { server } = setup();
    const a = connection(server);
    expect(a.send('CLIENT', 'KILL', 'SKIPME', 'no', 'ID', String(a.conn.client.id))).toBe(':1\r\n');
    expect(a.closed).toBe(true);
  });

  it('CLIENT KILL errors', () => {
    const { run } = setup();
    expect(text(run('CLIENT', 'KILL', '1.2.3.4:5'))).toBe('-ERR No such client');
    expect(text(run('CLIENT', 'KILL', 'ID', '0'))).toBe('-ERR client-id should be greater than 0');
    expect(text(run('CLIENT', 'KILL', 'USER', 'x'))).toBe("-ERR No such user 'x'");
    expect(text(run('CLIENT', 'KILL', 'TYPE', 'x'))).toBe("-ERR Unknown client type 'x'");
    expect(text(run('CLIENT', 'KILL', 'ID', '1', 'SKIPME'))).toBe('-ERR syntax error');
  });
});
