/**
 * A master whose commands go by other names: SENTINEL SET ... rename-command
 * and `sentinel rename-command` in sentinel.conf give the name Sentinel
 * sends each command by to the master, its replicas and the other
 * sentinels (sentinelInstanceMapCommand), kept in the file as the
 * rewrite writes it (runtest-sentinel's 07-down-conditions renames PING).
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';

/** A sentinel on S1 watching A; `extra` is added to sentinel.conf. */
function setup(seed: number, extra = ''): { world: World; log: () => string; conf: () => string } {
  const world = new World({ seed });
  registerSentinel(world);
  for (const h of ['A', 'S1']) world.addHost(h);
  world.startRedis('A', { config: { save: '' } });
  world.host('S1').disk.writeFile('/sentinel.conf', bytesToArray(`logfile "/s.log"\nsentinel monitor mymaster 10.0.0.2 6379 1\nsentinel down-after-milliseconds mymaster 3000\n${extra}`));
  world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
  return {
    world,
    log: () => bytesFromArray(world.host('S1').disk.readFile('/s.log')),
    conf: () => bytesFromArray(world.host('S1').disk.readFile('/sentinel.conf')),
  };
}

function advanceUntil(world: World, done: () => boolean, limitMs: number): boolean {
  for (let t = 0; t < limitMs && !done(); t += 500) world.advance(500);
  return done();
}

describe('sentinel and renamed commands', () => {
  it('sends PING as PONG once SENTINEL SET renames it, sees the master down for it, and up again when PING is PING once more', async () => {
    const { world, log, conf } = setup(7);
    world.advance(4000);
    expect(log()).not.toContain('+sdown');
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(await world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'rename-command', 'PING', 'PONG'))).toBe('OK');
    expect(log()).toContain('# +set master mymaster 10.0.0.2 6379 rename-command PING PONG\n');
    // The master answers PONG with an unknown-command error, which is no valid reply to a ping.
    expect(advanceUntil(world, () => log().includes('+sdown master mymaster'), 10_000)).toBe(true);
    world.advance(1000);
    expect(conf()).toContain('sentinel rename-command mymaster PING PONG\n');

    // Renamed to itself, in any case, it is no renaming: the entry goes, from the file too.
    expect(await world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'rename-command', 'PING', 'ping'))).toBe('OK');
    expect(advanceUntil(world, () => log().includes('-sdown master mymaster'), 10_000)).toBe(true);
    world.advance(1000);
    expect(conf()).not.toContain('rename-command');
    await expect(world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'rename-command', 'PING', ''))).rejects.toThrow("ERR Invalid argument '' for SENTINEL SET 'rename-command'");
  });

  it('reads rename-command from sentinel.conf and sends INFO by the name it gives, and refuses a command renamed twice', async () => {
    const runId = async (extra: string): Promise<string> => {
      const { world, log } = setup(8, extra);
      world.advance(12_000);
      expect(log()).toContain('+monitor master mymaster');
      expect(log()).not.toContain('+sdown');
      const master = (await world.settle(world.connect({ from: 'S1', to: 'S1:26379' }).call('SENTINEL', 'MASTER', 'mymaster'))) as string[];
      return master[master.indexOf('runid') + 1]!;
    };
    // INFO is where the sentinel learns the master's run id: sent as a name the master does not know, it learns none (PING still works).
    expect(await runId('')).toMatch(/^[0-9a-f]{40}$/);
    expect(await runId('sentinel rename-command mymaster INFO SECRETINFO\n')).toBe('');

    expect(() => setup(9, 'sentinel rename-command mymaster INFO A\nsentinel rename-command mymaster info B\n')).toThrow(/Same command renamed multiple times with rename-command/);
  });
});
