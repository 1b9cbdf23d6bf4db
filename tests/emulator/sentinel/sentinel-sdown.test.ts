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
});
