import { describe, expect, it, vi } from 'vitest';
import { World } from '../../../emulator/world/world.js';

/**
 * A connection's bytes travel one link for its whole life: it finds that
 * link once, not by the hosts' names for every chunk it sends and every
 * chunk that arrives (a busy simulated benchmark sends millions).
 */
function connectedPair(unix = false) {
  const world = new World({ seed: 5 });
  world.addHost('a', 'metal');
  world.addHost('b', 'metal');
  world.link('a', 'b', 'lan');
  const to = unix ? 'a' : 'b';
  const received: number[] = [];
  world.host(to).listen(unix ? '/tmp/s.sock' : 7000, (s) => {
    s.onData = (d) => received.push(d.length);
  });
  const s = world.network.connect(world.host('a'), to, unix ? '/tmp/s.sock' : 7000);
  world.runUntil(() => s.state === 'open');
  return { world, s, received };
}

describe('a connection and its link', () => {
  it('looks its link up once, however many chunks it sends', () => {
    const { world, s, received } = connectedPair();
    const link = vi.spyOn(world.network, 'link');
    for (let i = 0; i < 200; i++) s.write('x'.repeat(10));
    world.runUntil(() => received.length === 200);
    expect(received.reduce((a, b) => a + b, 0)).toBe(2000);
    expect(link.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it('still holds its bytes back while the hosts are partitioned, and sends them after the heal', () => {
    const { world, s, received } = connectedPair();
    s.write('before');
    world.runUntil(() => received.length === 1);
    world.network.partition('a', 'b');
    s.write('during');
    world.advance(1000);
    expect(received).toEqual([6]);
    world.network.heal();
    world.runUntil(() => received.length === 2);
    expect(received).toEqual([6, 6]);
  });

  it('a Unix socket keeps its own path and its own profile', () => {
    const { world, s, received } = connectedPair(true);
    const start = world.kernel.now;
    s.write('ping');
    world.runUntil(() => received.length === 1);
    const unixUs = world.kernel.now - start;
    expect(unixUs).toBeLessThan(world.network.link('a', 'b').profile.rttUs / 2);
  });
});
