/**
 * SENTINEL FAILOVER with the master up: the sentinel asked starts a new
 * epoch and goes on without an election (SRI_FORCE_FAILOVER), promotes a
 * replica and switches the master; a second request meanwhile is refused
 * with -INPROG. SENTINEL SIMULATE-FAILURE crash-after-election makes the
 * sentinel exit with 99 right after it would have led the failover.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';
import type { SimProcess } from '../../../emulator/sim/host.js';

function setup(seed: number, replicas: boolean): { world: World; log: () => string; sentinel: SimProcess } {
  const world = new World({ seed });
  registerSentinel(world);
  for (const h of ['A', 'B', 'C', 'S1']) world.addHost(h);
  world.startRedis('A', { config: { save: '' } });
  if (replicas) {
    world.startRedis('B', { config: { save: '', replicaof: '10.0.0.2 6379' } });
    world.startRedis('C', { config: { save: '', replicaof: '10.0.0.2 6379' } });
  }
  world.host('S1').disk.writeFile(
    '/sentinel.conf',
    bytesToArray('logfile "/sentinel.log"\nsentinel monitor mymaster 10.0.0.2 6379 2\nsentinel down-after-milliseconds mymaster 5000\nsentinel failover-timeout mymaster 60000\n'),
  );
  const sentinel = world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
  return { world, sentinel, log: () => bytesFromArray(world.host('S1').disk.readFile('/sentinel.log')) };
}

function advanceUntil(world: World, done: () => boolean, limitMs: number): void {
  for (let t = 0; t < limitMs && !done(); t += 1000) world.advance(1000);
  expect(done()).toBe(true);
}

/** The event names of a log, in order. */
function names(log: string): string[] {
  return log
    .split('\n')
    .map((l) => /^\d+:X .+? [#*-] ([+-][a-z-]+) /.exec(l)?.[1])
    .filter((e): e is string => e !== undefined);
}

describe('SENTINEL FAILOVER', () => {
  it('fails over a master that is up, without an election, and refuses a second request meanwhile', async () => {
    const { world, log } = setup(5, true);
    advanceUntil(world, () => log().match(/\+slave slave/g)?.length === 2, 30_000);
    // Wait for the replicas' own INFO (their offsets and links) so that one may be chosen.
    world.advance(11_000);
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(String(await world.settle(c.call('SENTINEL', 'FAILOVER', 'mymaster')))).toBe('OK');
    const again = await world.settle(c.call('SENTINEL', 'FAILOVER', 'mymaster')).catch((e: Error) => e);
    expect((again as Error).message).toBe('INPROG Failover already in progress');
    const flags = (await world.settle(c.call('SENTINEL', 'MASTER', 'mymaster'))) as string[];
    expect(flags[flags.indexOf('flags') + 1]).toBe('master,failover_in_progress,force_failover');
    advanceUntil(world, () => log().includes('+switch-master'), 60_000);
    expect(log()).toContain("# Executing user requested FAILOVER of 'mymaster'\n");
    const seq = names(log()).filter((n) => !['+slave', '+monitor', '+sdown', '-sdown', '+role-change', '-role-change'].includes(n));
    // Alone, it votes for itself (sentinelGetLeader), one vote short of a majority, and goes on because forced.
    expect(seq).toEqual([
      '+new-epoch', '+try-failover', '+vote-for-leader', '+elected-leader', '+failover-state-select-slave', '+selected-slave',
      '+failover-state-send-slaveof-noone', '+failover-state-wait-promotion', '+promoted-slave',
      '+failover-state-reconf-slaves', '+slave-reconf-sent', '+slave-reconf-inprog', '+slave-reconf-done',
      '+failover-end', '+switch-master',
    ]);
    // The old master, still up, is a replica of the promoted one at the end.
    const addr = (await world.settle(c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'))) as string[];
    expect(addr[0]).not.toBe('10.0.0.2');
    // Sentinel's reconfiguration ends with CLIENT KILL TYPE normal: connect to A after it.
    advanceUntil(world, () => log().includes('+convert-to-slave slave 10.0.0.2:6379'), 30_000);
    world.advance(2000);
    const toA = world.connect({ from: 'S1', to: 'A:6379' });
    expect(String(await world.settle(toA.call('INFO', 'replication')))).toContain(`role:slave\r\nmaster_host:${addr[0]}\r\n`);
  });

  it('answers -NOGOODSLAVE when no replica can be promoted, and starts nothing', async () => {
    const { world, log } = setup(6, false);
    advanceUntil(world, () => log().includes('+monitor'), 5000);
    world.advance(2000);
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    const r = await world.settle(c.call('SENTINEL', 'FAILOVER', 'mymaster')).catch((e: Error) => e);
    expect((r as Error).message).toBe('NOGOODSLAVE No suitable replica to promote');
    world.advance(5000);
    expect(names(log())).not.toContain('+try-failover');
  });

  it('crashes with exit status 99 after being elected when SIMULATE-FAILURE asked for it', async () => {
    const { world, log, sentinel: proc } = setup(7, true);
    advanceUntil(world, () => log().match(/\+slave slave/g)?.length === 2, 30_000);
    world.advance(11_000);
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(String(await world.settle(c.call('SENTINEL', 'SIMULATE-FAILURE', 'crash-after-election')))).toBe('OK');
    const info = String(await world.settle(c.call('INFO', 'sentinel')));
    expect(info).toContain('sentinel_simulate_failure_flags:1\r\n');
    expect(String(await world.settle(c.call('SENTINEL', 'FAILOVER', 'mymaster')))).toBe('OK');
    advanceUntil(world, () => !proc.alive, 10_000);
    expect(proc.exitCode).toBe(99);
    expect(log()).toMatch(/# \+elected-leader master mymaster 10\.0\.0\.2 6379\n.*# Sentinel CRASH because of SENTINEL simulate-failure\n$/);
    expect(names(log())).not.toContain('+failover-state-select-slave');
  });
});
