/**
 * A sentinel PINGs the master it monitors every second over its own link
 * and judges it subjectively down (+sdown) once no valid reply came for
 * down-after-milliseconds; -sdown when it answers again.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';

describe('sentinel monitoring', () => {
  it('sees the master go down and come back', () => {
    const world = new World({ seed: 3 });
    registerSentinel(world);
    world.addHost('A');
    world.addHost('S1');
    expect(world.host('A').ip).toBe('10.0.0.2');
    const a = world.startRedis('A');
    world.host('S1').disk.writeFile('/sentinel.conf', bytesToArray('logfile "s.log"\nsentinel monitor mymaster 10.0.0.2 6379 1\nsentinel down-after-milliseconds mymaster 3000\n'));
    world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
    const log = (): string => bytesFromArray(world.host('S1').disk.readFile('/s.log'));
    world.advance(5000);
    expect(log()).not.toContain('+sdown');
    expect(a.server.stats.totalCommandsProcessed).toBeGreaterThanOrEqual(4);
    a.signal('KILL');
    world.advance(2000);
    expect(log()).not.toContain('+sdown');
    world.advance(2500);
    expect(log()).toContain('# +sdown master mymaster 10.0.0.2 6379\n');
    world.startRedis('A');
    world.advance(3000);
    expect(log()).toContain('# -sdown master mymaster 10.0.0.2 6379\n');
  });

  it('sees the master come back after its host lost power, over new links', () => {
    const world = new World({ seed: 3 });
    registerSentinel(world);
    world.addHost('A');
    world.addHost('S1');
    world.startRedis('A');
    world.host('S1').disk.writeFile('/sentinel.conf', bytesToArray('logfile "s.log"\nsentinel monitor mymaster 10.0.0.2 6379 1\nsentinel down-after-milliseconds mymaster 3000\n'));
    world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
    const log = (): string => bytesFromArray(world.host('S1').disk.readFile('/s.log'));
    // Both links have been open longer than min-link-reconnect-period when the power goes.
    world.advance(20_000);
    // A host without power closes nothing: the sentinel's two connections stay open on its side, and nothing comes back on them.
    world.powerOff('A');
    world.advance(5000);
    expect(log()).toContain('# +sdown master mymaster 10.0.0.2 6379\n');
    world.powerOn('A');
    const a = world.startRedis('A');
    // The stale command link is closed after half of down-after without a reply, the silent pub/sub link after three
    // publish periods; the new ones reach the restarted server.
    for (let t = 0; t < 30_000 && !log().includes('-sdown'); t += 1000) world.advance(1000);
    expect(log()).toContain('# -sdown master mymaster 10.0.0.2 6379\n');
    world.advance(10_000);
    // The restarted server has the sentinel's two clients, one of each kind: both links were opened again.
    const kinds = [...a.server.clients.values()].map((c) => /^sentinel-[0-9a-f]{8}-(cmd|pubsub)$/.exec(c.name)?.[1]).filter((k) => k !== undefined);
    expect(kinds.sort()).toEqual(['cmd', 'pubsub']);
  });
});
