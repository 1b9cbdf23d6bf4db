/**
 * Two per-master options of Sentinel. rename-command (SENTINEL SET and
 * `sentinel rename-command` in sentinel.conf) gives the name Sentinel
 * sends each command by to the master, its replicas and the other
 * sentinels (sentinelInstanceMapCommand); runtest-sentinel's
 * 07-down-conditions renames PING. master-reboot-down-after-period judges
 * a master down that restarted and has not answered PONG for that long
 * (12-master-reboot). Both are kept in the file as the rewrite writes them.
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
  world.startRedis('A', { config: { save: '', 'enable-debug-command': 'yes' } });
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

describe('sentinel and a master that restarts', () => {
  /** A restarts with 20,000 keys to load at 1 ms a key: about 20 s of answering -LOADING, which counts as available. */
  async function restartWhileWatched(period: string | null): Promise<string> {
    const { world, log } = setup(11);
    const a = world.redis('A')!;
    const app = world.connect({ from: 'S1', to: 'A:6379' });
    await world.settle(app.call('DEBUG', 'POPULATE', '20000'));
    await world.settle(app.call('SAVE'));
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    if (period !== null) expect(await world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'master-reboot-down-after-period', period))).toBe('OK');
    world.advance(3000);
    a.signal('KILL');
    world.startRedis('A', { config: { 'key-load-delay': '1000' } });
    // Sentinel asks a master for INFO every 10 s: the new run id shows in the first answer after the restart.
    world.advance(12_000);
    return log();
  }

  it('judges a master down that restarted and has not answered PONG for master-reboot-down-after-period, though -LOADING counts as an answer', async () => {
    const without = await restartWhileWatched(null);
    expect(without).toContain('+reboot master mymaster');
    expect(without).not.toContain('+sdown');
    const watched = await restartWhileWatched('2000');
    expect(watched).toContain('# +set master mymaster 10.0.0.2 6379 master-reboot-down-after-period 2000\n');
    expect(watched).toContain('+reboot master mymaster');
    expect(watched).toContain('# +sdown master mymaster 10.0.0.2 6379\n');
  });
});
