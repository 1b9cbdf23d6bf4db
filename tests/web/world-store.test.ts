import { describe, expect, it } from 'vitest';
import { storeHarness } from './store-harness.js';
import { buildSandboxWorld } from '../../src/web/world-setup.js';
import { CLOCK_REFRESH_MS } from '../../src/web/world-store.js';

describe('the workbook world store', () => {
  it('runs redis-cli on a session of the world, printing exactly what redis-cli prints', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    h.store.sendLine(t.id, 'SET a 1');
    h.store.sendLine(t.id, 'GET a');
    h.store.sendLine(t.id, 'LPUSH l x y');
    h.store.sendLine(t.id, 'LRANGE l 0 -1');
    h.store.sendLine(t.id, 'GET nosuchkey');
    h.store.sendLine(t.id, 'INCR l');
    await h.run(200);
    expect(t.lines()).toEqual([
      'redis:6379> SET a 1',
      'OK',
      'redis:6379> GET a',
      '"1"',
      'redis:6379> LPUSH l x y',
      '(integer) 2',
      'redis:6379> LRANGE l 0 -1',
      '1) "y"',
      '2) "x"',
      'redis:6379> GET nosuchkey',
      '(nil)',
      'redis:6379> INCR l',
      '(error) WRONGTYPE Operation against a key holding the wrong kind of value',
      'redis:6379>',
    ]);
    expect(t.session.history()).toEqual(['SET a 1', 'GET a', 'LPUSH l x y', 'LRANGE l 0 -1', 'GET nosuchkey', 'INCR l']);
  });

  it('runs a pasted block line by line, each at its own prompt', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    t.session.input('SET a 1\rINCR a\rINCR a\r');
    await h.run(200);
    expect(t.lines()).toEqual(['redis:6379> SET a 1', 'OK', 'redis:6379> INCR a', '(integer) 2', 'redis:6379> INCR a', '(integer) 3', 'redis:6379>']);
  });

  it('shows (TX) in the prompt inside MULTI, and the database after SELECT', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    for (const line of ['SELECT 2', 'MULTI', 'SET k v', 'EXEC']) h.store.sendLine(t.id, line);
    await h.run(200);
    expect(t.lines()).toEqual([
      'redis:6379> SELECT 2',
      'OK',
      'redis:6379[2]> MULTI',
      'OK',
      'redis:6379[2](TX)> SET k v',
      'QUEUED',
      'redis:6379[2](TX)> EXEC',
      '1) OK',
      'redis:6379[2]>',
    ]);
  });

  it('BLPOP waits in virtual time, then redis-cli prints (nil) and how long it took', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    const k = h.store.world.kernel;
    const start = k.now;
    h.store.sendLine(t.id, 'BLPOP q 1');
    await h.run(600);
    expect(t.lines()).toEqual(['redis:6379> BLPOP q 1']);
    await h.run(600);
    const lines = t.lines();
    expect(lines).toHaveLength(4);
    expect(lines.slice(0, 2)).toEqual(['redis:6379> BLPOP q 1', '(nil)']);
    // The timeout fires on the server's clock, which is checked between events.
    expect(lines[2]).toMatch(/^\(1\.0\ds\)$/);
    expect(lines[3]).toBe('redis:6379>');
    expect(k.now - start).toBeGreaterThanOrEqual(1_000_000);
  });

  it('Ctrl-C during a blocking command ends redis-cli; Enter starts it again', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    h.store.sendLine(t.id, 'BLPOP q 0');
    await h.run(100);
    t.session.input('\x03');
    await h.run(50);
    // As in a real terminal, the ^C is echoed on the line after the command.
    expect(t.lines().slice(-3)).toEqual(['redis:6379> BLPOP q 0', '^C', '[redis-cli has ended: press Enter to start it again]']);
    t.session.input('\r');
    await h.run(50);
    h.store.sendLine(t.id, 'PING');
    await h.run(50);
    expect(t.lines().slice(-3)).toEqual(['redis:6379> PING', 'PONG', 'redis:6379>']);
    // The server let the first connection go.
    const clients = h.store.getSnapshot().cluster.hosts.find((x) => x.name === 'redis')!.servers[0]!.clients;
    expect(clients).toBe(1);
  });

  it('Ctrl-C at the prompt drops the line and shows a new prompt', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    t.session.input('GET a\x03');
    await h.run(20);
    expect(t.lines()).toEqual(['redis:6379> GET a^C', 'redis:6379>']);
  });

  it("shows redis-cli's help in its colours, and a value's escape sequences inert", async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    h.store.sendLine(t.id, 'help get');
    h.store.sendLine(t.id, 'SET v "\\x1b[1mbold"');
    h.store.sendLine(t.id, 'GET v');
    await h.run(200);
    expect(t.lines()).toEqual([
      'redis:6379> help get',
      '',
      '  GET key',
      '  summary: Reads the string stored at a key.',
      '  since: 1.0.0',
      '  group: string',
      '',
      'redis:6379> SET v "\\x1b[1mbold"',
      'OK',
      'redis:6379> GET v',
      '"\\x1b[1mbold"',
      'redis:6379>',
    ]);
    // The help's bold name and grey arguments are drawn as such: the escapes reached the screen.
    expect(t.raw).toContain('\x1b[1mGET\x1b[0m \x1b[90mkey\x1b[0m');
  });

  it('runs a root shell on a host, with data shown inert', async () => {
    const h = storeHarness();
    const t = h.open({ kind: 'shell', host: 'redis' });
    await h.run(50);
    h.store.sendLine(t.id, "echo -e '\\e[31mred\\e[0m'");
    h.store.sendLine(t.id, 'ls /etc/redis');
    await h.run(100);
    expect(t.lines()).toEqual(["root@redis:~# echo -e '\\e[31mred\\e[0m'", '^[[31mred^[[0m', 'root@redis:~# ls /etc/redis', 'redis.conf', 'root@redis:~#']);
  });

  it('runs an interactive redis-cli from the shell and comes back on quit', async () => {
    const h = storeHarness();
    const t = h.open({ kind: 'shell', host: 'app' });
    await h.run(50);
    for (const line of ['redis-cli -h redis', 'SET k v', 'quit', 'redis-cli -h redis --raw GET k']) h.store.sendLine(t.id, line);
    await h.run(300);
    expect(t.lines()).toEqual(['root@app:/# redis-cli -h redis', 'redis:6379> SET k v', 'OK', 'redis:6379> quit', 'root@app:/# redis-cli -h redis --raw GET k', 'v', 'root@app:/#']);
  });

  it('publishes at most one snapshot per frame and keeps unchanged parts', async () => {
    const h = storeHarness();
    await h.run(16);
    const before = h.published;
    const snap = h.store.getSnapshot();
    h.store.setSpeed(2);
    h.store.setSpeed(5);
    h.store.pause();
    expect(h.published).toBe(before);
    await h.run(16);
    expect(h.published).toBe(before + 1);
    const next = h.store.getSnapshot();
    expect(next.clock).toMatchObject({ speed: 5, paused: true });
    expect(next.terminals).toBe(snap.terminals);
  });

  it('moves the clock it shows on at most every CLOCK_REFRESH_MS while time runs on its own, and at once after an action or a pause', async () => {
    const h = storeHarness();
    await h.run(200);
    const k = h.store.world.kernel;
    // While nothing happens but time, the clock is published about every CLOCK_REFRESH_MS, not every frame.
    const shown = new Set<number>();
    const off = h.store.subscribe(() => shown.add(h.store.getSnapshot().clock.nowUs));
    const before = h.published;
    await h.run(1000);
    off();
    expect(shown.size).toBeGreaterThanOrEqual(1000 / CLOCK_REFRESH_MS - 1);
    expect(shown.size).toBeLessThanOrEqual(1000 / CLOCK_REFRESH_MS + 1);
    expect(h.published - before).toBe(shown.size);
    expect(k.now - h.store.getSnapshot().clock.nowUs).toBeLessThan(CLOCK_REFRESH_MS * 1000);
    // A command typed is an action: the frame after it shows the clock as it is.
    const t = h.open();
    await h.run(50);
    h.store.sendLine(t.id, 'SET a 1');
    await h.run(16);
    expect(h.store.getSnapshot().clock.nowUs).toBe(k.now);
    h.store.pause();
    await h.run(16);
    expect(h.store.getSnapshot().clock).toMatchObject({ nowUs: k.now, paused: true });
  });

  it('pause stops virtual time; step moves it on', async () => {
    const h = storeHarness();
    await h.run(100);
    h.store.pause();
    await h.run(16);
    const k = h.store.world.kernel;
    const at = k.now;
    await h.run(500);
    expect(k.now).toBe(at);
    h.store.step(250);
    await h.run(16);
    expect(k.now).toBe(at + 250_000);
    expect(h.store.getSnapshot().clock.nowUs).toBe(at + 250_000);
    h.store.resume();
    await h.run(100);
    expect(k.now).toBeGreaterThan(at + 250_000);
  });

  it('runs virtual time at the chosen speed', async () => {
    const h = storeHarness();
    await h.run(16);
    const k = h.store.world.kernel;
    h.store.setSpeed(10);
    const at = k.now;
    await h.run(160);
    expect((k.now - at) / 1000).toBeGreaterThanOrEqual(1500);
    expect((k.now - at) / 1000).toBeLessThanOrEqual(1700);
  });

  it('closes a terminal and picks the next tab', async () => {
    const h = storeHarness();
    const a = h.open();
    const b = h.open({ kind: 'shell', host: 'redis' });
    await h.run(32);
    expect(h.store.getSnapshot().activeTerminal).toBe(b.id);
    expect(h.store.getSnapshot().terminals.map((t) => t.title)).toEqual(['redis-cli redis:6379', 'root@redis']);
    h.store.closeTerminal(b.id);
    await h.run(16);
    expect(h.store.getSnapshot().activeTerminal).toBe(a.id);
    expect(h.store.terminal(b.id)).toBeUndefined();
  });
});

describe('replacing the world', () => {
  it('closes the old terminals and runs the new world from its own start', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    h.store.sendLine(t.id, 'SET a 1');
    await h.run(100);
    const next = buildSandboxWorld(2);
    h.store.replaceWorld(next);
    expect(h.store.world).toBe(next);
    await h.run(20);
    expect(h.store.getSnapshot().terminals).toEqual([]);
    const u = h.open();
    await h.run(100);
    h.store.sendLine(u.id, 'GET a');
    await h.run(100);
    expect(u.lines()).toEqual(['redis:6379> GET a', '(nil)', 'redis:6379>']);
    expect(h.store.getSnapshot().clock.startUs).toBe(next.kernel.startUs);
  });
});
