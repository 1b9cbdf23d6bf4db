import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { ReplyError } from '../../../emulator/client-library/reply-error.js';

function lanWorld(seed = 1) {
  const world = new World({ seed });
  world.addHost('A', 'core2duo');
  world.addHost('app', 'core2duo');
  world.link('app', 'A', 'lan');
  const server = world.startRedis('A', { config: { 'enable-debug-command': 'yes' } });
  return { world, server };
}

describe('a client and a server across the simulated network', () => {
  it('commands travel the wire and cost virtual time', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    const t0 = world.kernel.now;
    expect(await world.settle(r.set('k', 'v'))).toBe('OK');
    const t1 = world.kernel.now;
    // Connection handshake plus one command: at least two round trips of 271 us.
    expect(t1 - t0).toBeGreaterThanOrEqual(2 * 271);
    expect(await world.settle(r.get('k'))).toBe('v');
    expect(world.kernel.now - t1).toBeGreaterThanOrEqual(271);
    expect(world.kernel.now - t1).toBeLessThan(400);
  });

  it('errors reject with the exact message', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.call('HSET', 'h', 'f', 'v'));
    const err = await world.settle(r.get('h').catch((e: unknown) => e));
    expect(err).toBeInstanceOf(ReplyError);
    expect((err as Error).message).toBe('WRONGTYPE Operation against a key holding the wrong kind of value');
  });

  it('a pipeline is one flight; a plain loop is one trip per command', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.ping());
    const t0 = world.kernel.now;
    const res = await world.settle(r.pipeline().incr('n').incr('n').get('n').exec());
    expect(res).toEqual([[null, 1], [null, 2], [null, '2']]);
    const piped = world.kernel.now - t0;
    const t1 = world.kernel.now;
    await world.settle((async () => {
      await r.incr('n');
      await r.incr('n');
      await r.get('n');
    })());
    const plain = world.kernel.now - t1;
    expect(piped).toBeLessThan(400);
    expect(plain).toBeGreaterThan(3 * 271);
  });

  it("a pipeline resolves each command's [error, value] pair, and every pair fails once the connection is closed", async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.set('s', 'text'));
    const res = await world.settle(r.pipeline().incr('s').get('s').call('NOSUCH').exec());
    expect(res!.map(([e, v]) => [e?.message ?? null, v])).toEqual([
      ['ERR value is not an integer or out of range', null],
      [null, 'text'],
      ["ERR unknown command 'NOSUCH', with args beginning with: ", null],
    ]);
    expect(res![0]![0]).toBeInstanceOf(ReplyError);
    expect(await world.settle(r.pipeline().exec())).toEqual([]);
    r.disconnect();
    const closed = await world.settle(r.pipeline().get('s').get('s').exec());
    expect(closed!.map(([e, v]) => [e?.message, v])).toEqual([
      ['Connection is closed.', null],
      ['Connection is closed.', null],
    ]);
  });

  it('multi resolves null when a WATCHed key changed', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    const other = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.watch('k'));
    await world.settle(other.set('k', 'changed'));
    expect(await world.settle(r.multi().set('k', 'mine').exec())).toBeNull();
    expect(await world.settle(r.get('k'))).toBe('changed');
    expect(await world.settle(r.multi().set('k', 'mine').get('k').exec())).toEqual([[null, 'OK'], [null, 'mine']]);
  });

  it('EXECABORT rejects with the queued errors', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    const err = await world.settle(r.multi().set('k').get('k').exec().catch((e: unknown) => e));
    expect((err as Error).message).toBe('EXECABORT Transaction discarded because of previous errors.');
  });

  it('connecting to a closed port is refused', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6380' });
    const err = await world.settle(r.ping().catch((e: unknown) => e));
    expect((err as Error).message).toBe('Connection refused');
  });

  it('DEBUG SLEEP blocks the server in virtual time, and others wait', async () => {
    const { world } = lanWorld();
    const a = world.connect({ from: 'app', to: 'A:6379' });
    const b = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(Promise.all([a.ping(), b.ping()]));
    const t0 = world.kernel.now;
    const sleeping = a.debug('SLEEP', '0.5');
    const ping = b.ping();
    await world.settle(ping);
    expect(world.kernel.now - t0).toBeGreaterThanOrEqual(500_000);
    await world.settle(sleeping);
  });

  it('a blocked BLPOP times out in virtual time', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.ping());
    const t0 = world.kernel.now;
    expect(await world.settle(r.blpop('q', '2'))).toBeNull();
    const waited = world.kernel.now - t0;
    expect(waited).toBeGreaterThanOrEqual(2_000_000);
    expect(waited).toBeLessThan(2_200_000);
  });

  it('BLPOP is served by a push from another client', async () => {
    const { world } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    const w = world.connect({ from: 'app', to: 'A:6379' });
    const popped = r.blpop('q', '0');
    await world.advanceAsync(100);
    await world.settle(w.rpush('q', 'x'));
    expect(await world.settle(popped)).toEqual(['q', 'x']);
  });

  it('active expiry runs from serverCron in virtual time', async () => {
    const { world, server } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    for (let i = 0; i < 50; i++) r.set(`k${i}`, 'v', 'PX', '100');
    await world.settle(r.dbsize());
    expect(server.server.dbs[0]!.size).toBe(50);
    world.advance(1000);
    expect(server.server.dbs[0]!.size).toBe(0);
  });
});

describe('SHUTDOWN and signals', () => {
  it('SHUTDOWN stops the process: no reply, connection closed, port free', async () => {
    const { world, server } = lanWorld();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    const other = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(Promise.all([r.ping(), other.ping()]));
    expect(await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch((e: Error) => e.message))).toBe('Connection is closed.');
    expect(server.alive).toBe(false);
    expect(await world.settle(other.ping().catch((e: Error) => e.message))).toBe('Connection is closed.');
    const again = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(again.ping().catch((e: Error) => e.message))).toBe('Connection refused');
    expect(world.trace.find('log', 'A').map((e) => e.text)).toContain('User requested shutdown...');
  });

  it('SIGTERM shuts down cleanly; a new server can take the port', async () => {
    const { world, server } = lanWorld();
    server.signal('TERM');
    // With the default save rules it saves a final snapshot first: a spinning disk's fsync.
    world.advance(100);
    expect(server.alive).toBe(false);
    expect(world.host('A').disk.exists('/var/lib/redis/dump.rdb')).toBe(true);
    const next = world.startRedis('A');
    const r = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r.ping())).toBe('PONG');
    expect(next.pid).toBeGreaterThan(server.pid);
  });
});

describe('MONITOR', () => {
  it('streams every command but admin ones, in redis-server 7.0.15 format', async () => {
    const world = new World({ seed: 5 });
    world.addHost('A', 'metal');
    world.startRedis('A', { unixSocket: '/tmp/redis.sock' });
    const watcher = world.network.connect(world.host('A'), 'A', 6379);
    let seen = '';
    watcher.onData = (d) => {
      for (const b of d) seen += String.fromCharCode(b);
    };
    watcher.onConnect = () => watcher.write('*1\r\n$7\r\nMONITOR\r\n*1\r\n$7\r\nMONITOR\r\n');
    world.advance(1);
    const r = world.connect({ from: 'A', to: 'A:6379' });
    const u = world.connect({ from: 'A', to: 'A:/tmp/redis.sock' });
    await world.settle(r.set('a b', 'x"y'));
    await world.settle(r.config('GET', 'hz'));
    await world.settle(u.select(2));
    await world.settle(u.incr('n'));
    world.advance(1);
    const lines = seen.split('\r\n');
    // The second MONITOR gets no reply at all.
    expect(lines[0]).toBe('+OK');
    expect(lines[1]).toMatch(/^\+\d{10}\.\d{6} \[0 127\.0\.0\.1:\d+\] "set" "a b" "x\\"y"$/);
    expect(lines[2]).toMatch(/^\+\d{10}\.\d{6} \[2 unix:\/tmp\/redis\.sock\] "select" "2"$/);
    expect(lines[3]).toMatch(/^\+\d{10}\.\d{6} \[2 unix:\/tmp\/redis\.sock\] "incr" "n"$/);
    expect(lines.length).toBe(5);
  });
});

describe('clients as the server sees them', () => {
  it('CLIENT LIST shows each connection by IP address, Unix socket clients by path', async () => {
    const world = new World({ seed: 5 });
    world.addHost('A', 'metal');
    world.addHost('app', 'metal');
    world.startRedis('A', { unixSocket: '/tmp/redis.sock' });
    const remote = world.connect({ from: 'app', to: 'A:6379' });
    const local = world.connect({ from: 'A', to: 'A:6379' });
    const unix = world.connect({ from: 'A', to: 'A:/tmp/redis.sock' });
    await world.settle(Promise.all([remote.client('SETNAME', 'remote'), local.client('SETNAME', 'local'), unix.client('SETNAME', 'unix')]));
    const list = (await world.settle(remote.client('LIST'))) as string;
    const line = (name: string) => list.split('\n').find((l) => l.includes(` name=${name} `))!;
    expect(line('remote')).toMatch(/ addr=10\.0\.0\.3:\d+ laddr=10\.0\.0\.2:6379 /);
    expect(line('local')).toMatch(/ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:6379 /);
    expect(line('unix')).toMatch(/ addr=\/tmp\/redis\.sock:0 laddr=\/tmp\/redis\.sock:0 .* flags=U /);
    // CLIENT KILL closes that connection only.
    await world.settle(remote.client('KILL', 'SKIPME', 'yes', 'LADDR', '127.0.0.1:6379'));
    expect(await world.settle(local.ping().catch((e: Error) => e.message))).toBe('Connection is closed.');
    expect(await world.settle(unix.ping())).toBe('PONG');
  });
});

describe('the server log', () => {
  it('with a logfile, each line at or above loglevel is appended to it in redis-server\'s format', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'metal');
    world.host('A').disk.mkdir('/var/log/redis', { recursive: true });
    const p = world.startRedis('A', { config: { save: '', logfile: '/var/log/redis/redis-server.log', loglevel: 'notice' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    await world.settle(r.call('SAVE'));
    const text = new TextDecoder().decode(world.host('A').disk.readFile('/var/log/redis/redis-server.log'));
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines[0]).toMatch(new RegExp(`^${p.pid}:M \\d\\d [A-Z][a-z]{2} \\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{3} # Server initialized$`));
    expect(lines.map((l) => l.slice(l.indexOf(' ', l.indexOf(':M ') + 25) + 1))).toEqual([
      '# Server initialized',
      '* Ready to accept connections',
      '* DB saved on disk',
    ]);
  });

  it('marks the lines the BGSAVE child writes with its own pid and C, as the fork child of redis-server does', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'metal');
    world.host('A').disk.mkdir('/var/log/redis', { recursive: true });
    const p = world.startRedis('A', { config: { save: '', logfile: '/var/log/redis/redis-server.log', loglevel: 'notice' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    await world.settle(r.call('SET', 'k', 'v'));
    await world.settle(r.call('BGSAVE'));
    world.advance(5_000);
    const lines = new TextDecoder().decode(world.host('A').disk.readFile('/var/log/redis/redis-server.log')).split('\n');
    const started = lines.find((l) => l.includes('Background saving started by pid'));
    const childPid = Number(/pid (\d+)$/.exec(started ?? '')?.[1]);
    expect(started).toMatch(new RegExp(`^${p.pid}:M `));
    expect(childPid).not.toBe(p.pid);
    expect(lines.find((l) => l.endsWith('DB saved on disk'))).toMatch(new RegExp(`^${childPid}:C \\d\\d [A-Z][a-z]{2} \\d{4} [\\d:.]+ \\* DB saved on disk$`));
    expect(lines.find((l) => l.includes('Background saving terminated with success'))).toMatch(new RegExp(`^${p.pid}:M `));
  });
});
