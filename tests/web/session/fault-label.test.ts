import { describe, expect, it } from 'vitest';
import type { RecordedAction, WorldAction } from '../../../emulator/world/world.js';
import { faultLabel, shellLineFault } from '../../../src/web/session/fault-label.js';
import { PROGRAMS } from '../../../src/web/world-programs.js';
import { buildSandboxWorld } from '../../../src/web/world-setup.js';

const rec = (action: WorldAction): RecordedAction => ({ n: 0, t: 0, action });

describe('which actions are faults, and what their checkpoints are called', () => {
  const world = buildSandboxWorld(1);
  const pid = world.redis('redis')!.pid;

  it('names the world own fault actions (the cluster panel buttons)', () => {
    expect(faultLabel(world, rec({ kind: 'powerOff', host: 'redis' }))).toBe('before power loss on redis');
    expect(faultLabel(world, rec({ kind: 'signal', host: 'redis', pid, sig: 'KILL' }))).toBe('before kill -KILL of redis-server on redis');
    expect(faultLabel(world, rec({ kind: 'partition', a: 'app', b: 'redis', oneWay: false }))).toBe('before partition app ↔ redis');
    expect(faultLabel(world, rec({ kind: 'partition', a: 'app', b: 'redis', oneWay: true }))).toBe('before partition app → redis');
    expect(faultLabel(world, rec({ kind: 'program', name: PROGRAMS.diskFault, args: { host: 'redis', full: true } }))).toBe('before disk full on redis');
    expect(faultLabel(world, rec({ kind: 'program', name: PROGRAMS.diskFault, args: { host: 'redis', full: false } }))).toBeNull();
    expect(faultLabel(world, rec({ kind: 'program', name: PROGRAMS.diskFault, args: { host: 'redis', fail: 'fsync', count: 2 } }))).toBe("before fsync errors on redis's disk");
    expect(faultLabel(world, rec({ kind: 'powerOn', host: 'redis' }))).toBeNull();
    expect(faultLabel(world, rec({ kind: 'heal' }))).toBeNull();
  });

  it('reads faults in host shell lines: sim verbs, kill, poweroff, rm, redis-cli SHUTDOWN', () => {
    const cases: Array<[string, string | null]> = [
      ['sim power-loss redis', 'before power loss on redis'],
      ['sim partition app redis --one-way', 'before partition app → redis'],
      ['sim disk-full redis', 'before disk full on redis'],
      ['sim disk-full redis off', null],
      ['sim disk-error redis fsync 3', "before fsync errors on redis's disk"],
      ['sim flip-byte redis /var/lib/redis/dump.rdb 40', 'before a flipped byte in /var/lib/redis/dump.rdb at 40 on redis'],
      [`kill -9 ${pid}`, 'before kill -KILL of redis-server on redis'],
      [`kill ${pid}`, 'before kill -TERM of redis-server on redis'],
      [`kill -s INT ${pid}`, 'before kill -INT of redis-server on redis'],
      ['poweroff', 'before poweroff on redis'],
      ['rm -f dump.rdb', 'before rm dump.rdb on redis'],
      ['redis-cli -p 6379 shutdown nosave', 'before SHUTDOWN on redis'],
      ['redis-cli -h other debug segfault', 'before DEBUG SEGFAULT on other'],
      ['ls -l; sim power-loss app', 'before power loss on app'],
      ['sim advance 5s', null],
      ['redis-cli get shutdown', null],
      ['echo kill', null],
    ];
    for (const [line, label] of cases) expect([line, shellLineFault(world, line, 'redis')]).toEqual([line, label]);
  });

  it('finds the shell of a recorded line, and SHUTDOWN sent on a terminal session', () => {
    world.openSession('terminal-1', 'app', 'redis:6379');
    expect(faultLabel(world, rec({ kind: 'send', id: 'terminal-1', argv: ['SHUTDOWN', 'NOSAVE'] }))).toBe('before SHUTDOWN on redis');
    expect(faultLabel(world, rec({ kind: 'send', id: 'terminal-1', argv: ['SET', 'k', 'v'] }))).toBeNull();
    expect(faultLabel(world, rec({ kind: 'program', name: 'host-shell', args: { op: 'line', id: 'shell-9', line: 'sim power-loss redis' } }))).toBe('before power loss on redis');
    expect(faultLabel(world, rec({ kind: 'program', name: 'host-shell', args: { op: 'open', id: 'shell-9', host: 'redis', columns: 80 } }))).toBeNull();
  });
});
