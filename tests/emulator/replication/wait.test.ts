import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

describe('WAIT and min-replicas', () => {
  it('WAIT returns once the replicas acknowledged the client\'s last write, or at its timeout with those that did', async () => {
    const { world, run, until, linkUp, procs } = setup({ hosts: ['A', 'B', 'C'] });
    await run('B', 'REPLICAOF', 'A', '6379');
    await run('C', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B') && linkUp('C'));
    await run('A', 'SET', 'k', 'v');
    expect(await run('A', 'WAIT', '2', '1000')).toBe(2);
    world.partition('A', 'C');
    await run('A', 'SET', 'k', 'w');
    const started = world.kernel.now;
    expect(await run('A', 'WAIT', '2', '300')).toBe(1);
    expect(world.kernel.now - started).toBeGreaterThanOrEqual(300_000);
    expect(await run('A', 'WAIT', '0', '0')).toBe(1);
    expect(await run('B', 'WAIT', '1', '0')).toMatch(/^ERR WAIT cannot be used with replica instances/);
    expect(procs.get('A')!.server.blocking.count).toBe(0);
  });

  it('min-replicas-to-write refuses writes without enough replicas acknowledging within the lag', async () => {
    const { world, run, until, linkUp, field } = setup();
    await run('A', 'CONFIG', 'SET', 'min-replicas-to-write', '1');
    expect(await run('A', 'SET', 'k', 'v')).toBe('NOREPLICAS Not enough good replicas to write.');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    world.advance(1100);
    expect(await run('A', 'SET', 'k', 'v')).toBe('OK');
    expect(await field('A', 'min_slaves_good_slaves')).toBe('1');
    await run('A', 'CONFIG', 'SET', 'min-replicas-max-lag', '2');
    world.partition('A', 'B');
    world.advance(4000);
    expect(await run('A', 'SET', 'k', 'w')).toBe('NOREPLICAS Not enough good replicas to write.');
    expect(await run('A', 'GET', 'k')).toBe('v');
  });

  it('a write right after CONFIG SET min-replicas-to-write counts the replicas already online', async () => {
    const { world, run, until, linkUp } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    world.advance(1100);
    await run('A', 'CONFIG', 'SET', 'min-replicas-to-write', '1');
    expect(await run('A', 'SET', 'k', 'v')).toBe('OK');
    await run('A', 'CONFIG', 'SET', 'min-replicas-to-write', '2');
    expect(await run('A', 'SET', 'k', 'w')).toBe('NOREPLICAS Not enough good replicas to write.');
  });
});
