import { describe, expect, it } from 'vitest';
import { World } from '../../emulator/world/world.js';
import { ReplyError } from '../../emulator/client-library/reply-error.js';

function vpnWorld(seed = 1) {
  const world = new World({ seed });
  world.addHost('A', 'core2duo');
  world.addHost('app', 'core2duo');
  world.link('app', 'A', 'vpn');
  world.startRedis('A');
  return world;
}

describe('recorded clients (World.openClient / clientSend / closeClient)', () => {
  it('a command, a pipeline and a transaction go through the action log', async () => {
    const world = vpnWorld();
    world.openClient('c', { from: 'app', to: 'A:6379', client: 'python' });
    expect(await world.settle(world.clientSend('c', [['SET', 'k', '1']]))).toBe('OK');
    expect(await world.settle(world.clientSend('c', [['INCR', 'k'], ['GET', 'k']], 'pipeline'))).toEqual([
      [null, 2],
      [null, '2'],
    ]);
    const tx = (await world.settle(world.clientSend('c', [['INCR', 'k'], ['LPUSH', 'k', 'x']], 'multi'))) as Array<[Error | null, unknown]>;
    expect(tx[0]).toEqual([null, 3]);
    expect(tx[1]![0]).toBeInstanceOf(ReplyError);
    const err = await world.settle(world.clientSend('c', [['NOSUCH']]).catch((e: unknown) => e));
    expect((err as Error).message).toMatch(/^ERR unknown command 'NOSUCH'/);
    world.closeClient('c');
    const cp = world.checkpoint();
    expect(cp.complete).toBe(true);
    expect(cp.actions.map((a) => a.action.kind).filter((k) => k.endsWith('Client') || k === 'clientSend')).toEqual([
      'openClient',
      'clientSend',
      'clientSend',
      'clientSend',
      'clientSend',
      'closeClient',
    ]);
  });

  it('a restored world replays what its clients did, to the same trace', async () => {
    const world = vpnWorld(3);
    world.openClient('c', { from: 'app', to: 'A:6379' });
    for (let i = 0; i < 5; i++) await world.settle(world.clientSend('c', [['RPUSH', 'list', String(i)]]));
    await world.settle(world.clientSend('c', [['SET', 'a', 'x'], ['EXPIRE', 'a', '100']], 'multi'));
    world.advance(50);
    const copy = World.restore(world.checkpoint());
    expect(copy.trace.hash()).toBe(world.trace.hash());
    expect(copy.redis('A')!.server.dbs[0]!.size).toBe(2);
    // And both go on the same way.
    await world.settle(world.clientSend('c', [['LPOP', 'list']]));
    await copy.settle(copy.clientSend('c', [['LPOP', 'list']]));
    expect(copy.trace.hash()).toBe(world.trace.hash());
  });

  it('a pipeline of five commands takes one round trip; five commands one by one take five', async () => {
    const world = vpnWorld();
    world.openClient('c', { from: 'app', to: 'A:6379', client: 'python' });
    await world.settle(world.clientSend('c', [['PING']]));
    const t0 = world.kernel.now;
    for (let i = 0; i < 5; i++) await world.settle(world.clientSend('c', [['INCR', 'n']]));
    const plainUs = world.kernel.now - t0;
    const t1 = world.kernel.now;
    await world.settle(world.clientSend('c', [['INCR', 'n'], ['INCR', 'n'], ['INCR', 'n'], ['INCR', 'n'], ['INCR', 'n']], 'pipeline'));
    const pipelinedUs = world.kernel.now - t1;
    expect(plainUs).toBeGreaterThan(5 * 48_000);
    expect(pipelinedUs).toBeGreaterThan(48_000);
    expect(pipelinedUs).toBeLessThan(2 * 48_000);
  });

  it('a client that cannot connect fails its commands with the network error', async () => {
    const world = vpnWorld();
    world.openClient('c', { from: 'app', to: 'A:7000' });
    const err = await world.settle(world.clientSend('c', [['PING']]).catch((e: unknown) => e));
    expect((err as Error).message).toMatch(/refused/i);
  });

  it('unknown hosts and clients are refused when the client is opened', () => {
    const world = vpnWorld();
    expect(() => world.openClient('c', { from: 'nowhere', to: 'A:6379' })).toThrow(/no host named nowhere/);
    expect(() => world.openClient('d', { from: 'app', to: 'A:6379', client: 'cobol' as 'node' })).toThrow(/unknown client profile/);
    expect(world.clients.size).toBe(0);
  });
});
