/**
 * A master that requires a password: the sentinel's links authenticate
 * with the master's auth-pass (sentinelSendAuthIfNeeded), set in
 * sentinel.conf or by SENTINEL SET, which drops the links so that new
 * ones authenticate; the password is kept in the file, not in the log.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';

/** A sentinel on S1 watching A, which requires the password "secret"; `extra` is added to sentinel.conf. */
function setup(seed: number, extra = ''): { world: World; log: () => string } {
  const world = new World({ seed });
  registerSentinel(world);
  for (const h of ['A', 'S1']) world.addHost(h);
  world.startRedis('A', { config: { save: '', requirepass: 'secret' } });
  world.host('S1').disk.writeFile('/sentinel.conf', bytesToArray(`logfile "/s.log"\nsentinel monitor mymaster 10.0.0.2 6379 1\nsentinel down-after-milliseconds mymaster 3000\n${extra}`));
  world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
  return { world, log: () => bytesFromArray(world.host('S1').disk.readFile('/s.log')) };
}

describe('sentinel and a master with a password', () => {
  it('is refused until SENTINEL SET gives it auth-pass, then sees the master up and writes the password to its file', async () => {
    const { world, log } = setup(5);
    // -NOAUTH is no valid reply to PING.
    world.advance(5000);
    expect(log()).toContain('# +sdown master mymaster 10.0.0.2 6379\n');
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(await world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'auth-pass', 'secret'))).toBe('OK');
    for (let t = 0; t < 10_000 && !log().includes('-sdown'); t += 500) world.advance(500);
    expect(log()).toContain('# -sdown master mymaster 10.0.0.2 6379\n');
    expect(log()).toContain('# +set master mymaster 10.0.0.2 6379 auth-pass ******\n');
    expect(log()).not.toContain('secret');
    world.advance(1000);
    expect(bytesFromArray(world.host('S1').disk.readFile('/sentinel.conf'))).toContain('sentinel auth-pass mymaster secret\n');
    // INFO, which the master answers only to an authenticated client, gave the sentinel its run id.
    const master = (await world.settle(c.call('SENTINEL', 'MASTER', 'mymaster'))) as string[];
    expect(master[master.indexOf('runid') + 1]).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reads auth-pass from sentinel.conf', () => {
    const { world, log: read } = setup(6, 'sentinel auth-pass mymaster secret\n');
    world.advance(8000);
    const log = read();
    expect(log).toContain('+monitor master mymaster');
    expect(log).not.toContain('+sdown');
  });
});
