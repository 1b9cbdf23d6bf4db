import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';

function twoHosts(link: 'lan' | 'vpn' = 'lan') {
  const world = new World({ seed: 3 });
  world.addHost('A', 'metal');
  world.addHost('app', 'metal');
  world.link('app', 'A', link);
  const server = world.startRedis('A', { config: { 'proto-max-bulk-len': '1gb' } });
  return { world, server };
}

describe('faults never escape the world', () => {
  it('a 10 MB value over 1 gigabit takes its transmission time', async () => {
    const { world } = twoHosts();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.ping());
    const value = 'x'.repeat(10 * 1024 * 1024);
    const t0 = world.kernel.now;
    await world.settle(r.set('big', value));
    const up = world.kernel.now - t0;
    // 10 MiB at 1 Gbit/s is 84 ms on the wire, plus a round trip.
    expect(up).toBeGreaterThanOrEqual(83_000);
    expect(up).toBeLessThan(100_000);
    const t1 = world.kernel.now;
    expect(((await world.settle(r.get('big'))) as string).length).toBe(value.length);
    expect(world.kernel.now - t1).toBeGreaterThanOrEqual(83_000);
  });

  it('a partition during a long transfer holds the bytes until it heals', async () => {
    const { world } = twoHosts();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.set('big', 'y'.repeat(10 * 1024 * 1024)));
    const reading = r.get('big');
    await world.advanceAsync(30);
    world.network.partition('app', 'A');
    await world.advanceAsync(5000);
    let done = false;
    void reading.then(() => (done = true));
    await world.advanceAsync(1);
    expect(done).toBe(false);
    world.network.heal();
    const v = (await world.settle(reading)) as string;
    expect(v.length).toBe(10 * 1024 * 1024);
    expect(world.trace.find('partition').length).toBe(1);
    expect(world.trace.find('heal').length).toBe(1);
  });

  it('power loss on the server: clients hear nothing until it is back, then a reset', async () => {
    const { world } = twoHosts();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.set('k', 'v'));
    const pending = r.set('k2', 'v2');
    world.host('A').powerOff();
    let settled = false;
    void pending.catch(() => (settled = true));
    await world.advanceAsync(5000);
    expect(settled).toBe(false);
    world.host('A').powerOn();
    const late = r.get('k').catch((e: Error) => e.message);
    expect(await world.settle(late)).toBe('Connection reset by peer');
    expect(settled).toBe(true);
    expect(world.trace.find('power-loss', 'A').map((e) => e.text)).toContain('power cut');
    // Nothing listens after the reboot.
    const again = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(again.ping().catch((e: Error) => e.message))).toBe('Connection refused');
  });

  it("power loss on a terminal's own machine ends its connection, and nothing connects from it until it is back", async () => {
    const { world } = twoHosts();
    const session = world.openSession('t1', 'app', 'A:6379');
    world.send('t1', ['PING']);
    await world.advanceAsync(10);
    expect(session.replies()).toHaveLength(1);
    world.host('app').powerOff();
    expect(session.events.at(-1)).toMatchObject({ kind: 'closed', error: 'Connection lost: the machine lost power' });
    const from = world.openSession('t2', 'app', 'A:6379');
    await world.advanceAsync(1);
    expect(from.events).toMatchObject([{ kind: 'closed', error: 'Network is down' }]);
    world.host('app').powerOn();
    const after = world.openSession('t3', 'app', 'A:6379');
    world.send('t3', ['PING']);
    await world.advanceAsync(10);
    expect(after.replies()).toHaveLength(1);
  });

  it('a client vanishing mid-pipeline leaves the server serving others', async () => {
    const { world, server } = twoHosts();
    world.addHost('app2', 'metal');
    const r = world.connect({ from: 'app', to: 'A:6379' });
    const other = world.connect({ from: 'app2', to: 'A:6379' });
    await world.settle(Promise.all([r.ping(), other.ping()]));
    const p = r.pipeline();
    for (let i = 0; i < 1000; i++) p.set(`k${i}`, 'v');
    const result = p.exec();
    void result.catch(() => {});
    await world.advanceAsync(0.2);
    world.host('app').powerOff();
    await world.advanceAsync(100);
    expect(await world.settle(other.dbsize())).toBe(1000);
    expect(server.alive).toBe(true);
    expect(world.trace.find('fault')).toEqual([]);
  });

  it('a process killed mid-command: its peer sees the connection close', async () => {
    const { world, server } = twoHosts();
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.ping());
    const blocked = r.blpop('q', '0').catch((e: Error) => e.message);
    await world.advanceAsync(10);
    server.signal('KILL');
    expect(await world.settle(blocked)).toBe('Connection is closed.');
  });

  it('an exception inside an event is recorded and the world goes on', () => {
    const world = new World({ seed: 1 });
    let later = false;
    world.kernel.after(10, () => {
      throw new Error('boom');
    });
    world.kernel.after(20, () => (later = true));
    world.advance(1);
    expect(later).toBe(true);
    expect(world.trace.find('fault')[0]!.text).toBe('Error: boom');
  });

  it('ephemeral ports run out when every command opens a connection', async () => {
    const world = new World({ seed: 1 });
    world.addHost('A', 'metal');
    world.startRedis('A');
    world.trace.commands = false;
    let error = '';
    let n = 0;
    const loop = (async () => {
      for (;;) {
        const r = world.connect({ from: 'A', to: 'A:6379' });
        try {
          await r.ping();
        } catch (e) {
          error = (e as Error).message;
          return;
        }
        n++;
        r.disconnect();
      }
    })();
    await world.settle(loop, { maxMs: 120_000 });
    expect(error).toBe('Cannot assign requested address');
    expect(n).toBe(60999 - 32768 + 1);
    // A minute later the ports are free again.
    await world.advanceAsync(61_000);
    const r = world.connect({ from: 'A', to: 'A:6379' });
    expect(await world.settle(r.ping())).toBe('PONG');
  });
});
