/**
 * Three sentinels on their own hosts watch A, replicated to B and C. When A
 * dies they agree it is down, elect a leader for a new epoch, and the
 * leader promotes one replica, points the other at it and switches the
 * master; all three then name the new master, and A, when it comes back,
 * is turned into a replica of it.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

const SENTINELS = ['S1', 'S2', 'S3'];
const ADDRESS = { A: '10.0.0.2', B: '10.0.0.3', C: '10.0.0.4' } as const;

function setup(seed: number): { world: World; a: RedisProcess; log: (host: string) => string } {
  const world = new World({ seed });
  registerSentinel(world);
  for (const h of ['A', 'B', 'C', ...SENTINELS]) world.addHost(h);
  const a = world.startRedis('A', { config: { save: '' } });
  world.startRedis('B', { config: { save: '', replicaof: '10.0.0.2 6379' } });
  world.startRedis('C', { config: { save: '', replicaof: '10.0.0.2 6379' } });
  for (const s of SENTINELS) {
    world.host(s).disk.writeFile(
      '/sentinel.conf',
      bytesToArray('logfile "/sentinel.log"\nsentinel monitor mymaster 10.0.0.2 6379 2\nsentinel down-after-milliseconds mymaster 5000\nsentinel failover-timeout mymaster 60000\n'),
    );
    world.spawn(s, 'redis-sentinel', { config: '/sentinel.conf' });
  }
  return { world, a, log: (host) => bytesFromArray(world.host(host).disk.readFile('/sentinel.log')) };
}

/** Advances the world a second at a time until `done` holds, for at most `limitMs`. */
function advanceUntil(world: World, done: () => boolean, limitMs: number): void {
  for (let t = 0; t < limitMs && !done(); t += 1000) world.advance(1000);
  expect(done()).toBe(true);
}

/** The events of a log, without the time stamps: "+sdown master mymaster ...". */
function events(log: string): string[] {
  return log
    .split('\n')
    .map((l) => /^\d+:X .+? [#*-] ([+-][a-z-]+ .*)$/.exec(l)?.[1])
    .filter((e): e is string => e !== undefined);
}

function failover(seed: number): { world: World; log: (host: string) => string; leader: string; promoted: 'B' | 'C'; other: 'B' | 'C' } {
  const { world, log, a } = setup(seed);
  advanceUntil(world, () => SENTINELS.every((s) => log(s).match(/\+sentinel sentinel/g)?.length === 2 && log(s).match(/\+slave slave/g)?.length === 2), 30_000);
  a.signal('KILL');
  advanceUntil(world, () => SENTINELS.every((s) => log(s).includes('+switch-master')), 90_000);
  const leader = SENTINELS.find((s) => log(s).includes('+elected-leader'))!;
  const promoted = /\+promoted-slave slave 10\.0\.0\.(\d):6379/.exec(log(leader))![1] === '3' ? 'B' : 'C';
  return { world, log, leader, promoted, other: promoted === 'B' ? 'C' : 'B' };
}

describe('sentinel failover', () => {
  it('promotes a replica when the master dies, and turns the old master into a replica', async () => {
    const { world, log, leader, promoted, other } = failover(21);
    const p = ADDRESS[promoted];
    const o = ADDRESS[other];
    expect(SENTINELS.filter((s) => log(s).includes('+elected-leader'))).toEqual([leader]);
    const seq = events(log(leader)).filter((e) => !e.startsWith('+slave ') && !e.startsWith('+sentinel ') && !e.startsWith('+monitor') && !/^[+-]sdown (slave|sentinel)/.test(e));
    const m = 'master mymaster 10.0.0.2 6379';
    const at = (host: string): string => `slave ${host}:6379 ${host} 6379 @ mymaster 10.0.0.2 6379`;
    expect(seq.slice(0, 3)).toEqual([`+sdown ${m}`, `+odown ${m} #quorum ${seq[1]!.endsWith('3/2') ? 3 : 2}/2`, '+new-epoch 1']);
    // -odown may come before the end: the others stop reporting the old master down once they switched.
    const rest = seq.slice(3).filter((e) => !e.startsWith('+vote-for-leader') && !e.startsWith('+new-epoch') && !e.startsWith('-odown') && !e.startsWith('+sdown slave 10.0.0.2:'));
    expect(rest).toEqual([
      `+try-failover ${m}`,
      `+elected-leader ${m}`,
      `+failover-state-select-slave ${m}`,
      `+selected-slave ${at(p)}`,
      `+failover-state-send-slaveof-noone ${at(p)}`,
      `+failover-state-wait-promotion ${at(p)}`,
      `+promoted-slave ${at(p)}`,
      `+failover-state-reconf-slaves ${m}`,
      `+slave-reconf-sent ${at(o)}`,
      `+slave-reconf-inprog ${at(o)}`,
      `+slave-reconf-done ${at(o)}`,
      `+failover-end ${m}`,
      `+switch-master mymaster 10.0.0.2 6379 ${p} 6379`,
    ]);
    expect(log(leader)).toContain(`* +slave slave 10.0.0.2:6379 10.0.0.2 6379 @ mymaster ${p} 6379\n`);
    // The others learned the new master from the leader's hellos.
    for (const s of SENTINELS.filter((x) => x !== leader)) {
      expect(log(s)).toContain(`+config-update-from sentinel `);
      expect(log(s)).toContain(`# +switch-master mymaster 10.0.0.2 6379 ${p} 6379\n`);
      expect(log(s)).toContain(`# +vote-for-leader `);
      // Having voted for another, a sentinel waits twice the failover timeout before trying itself.
      expect(log(s)).toMatch(/# Next failover delay: I will not start a failover before Thu Jan {2}1 00:02:\d\d 2026\n/);
    }
    for (const s of SENTINELS) {
      const c = world.connect({ from: s, to: `${s}:26379` });
      expect(await world.settle(c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'))).toEqual([p, '6379']);
      expect(bytesFromArray(world.host(s).disk.readFile('/sentinel.conf'))).toContain(`sentinel monitor mymaster ${p} 6379 2\n`);
    }
    const toPromoted = world.connect({ from: 'S1', to: `${promoted}:6379` });
    expect(((await world.settle(toPromoted.call('ROLE'))) as unknown[])[0]).toBe('master');
    const toOther = world.connect({ from: 'S1', to: `${other}:6379` });
    expect(String(await world.settle(toOther.call('INFO', 'replication')))).toContain(`master_host:${p}\r\nmaster_port:6379\r\nmaster_link_status:up\r\n`);

    world.startRedis('A', { config: { save: '' } });
    advanceUntil(world, () => SENTINELS.some((s) => log(s).includes('+convert-to-slave slave 10.0.0.2:6379')), 60_000);
    const toA = world.connect({ from: 'S1', to: 'A:6379' });
    let info = '';
    for (let i = 0; i < 30 && !info.includes('master_link_status:up'); i++) {
      world.advance(1000);
      info = String(await world.settle(toA.call('INFO', 'replication')));
    }
    expect(info).toContain(`role:slave\r\nmaster_host:${p}\r\nmaster_port:6379\r\nmaster_link_status:up\r\n`);
  });

  it('same seed, same trace', () => {
    const one = failover(8);
    const two = failover(8);
    for (const s of SENTINELS) expect(two.log(s)).toBe(one.log(s));
  });
});
