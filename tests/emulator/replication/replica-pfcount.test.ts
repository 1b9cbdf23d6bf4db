import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

describe('PFCOUNT on a replica', () => {
  it('writes the cardinality it computed into the HLL, though the replica is read-only', async () => {
    const { run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(await run('A', 'PFADD', 'h', ...'abcdefghijklmnopq')).toBe(1);
    const sent = await run('A', 'GET', 'h');
    until(() => server('B').dbs[0]!.dict.has('h'));
    expect(await run('B', 'GET', 'h')).toBe(sent);
    expect(await run('B', 'PFCOUNT', 'h')).toBe(17);
    const cached = await run('B', 'GET', 'h');
    expect(cached).not.toBe(sent);
    // The primary's own PFCOUNT writes the same cache, and replicates it.
    expect(await run('A', 'PFCOUNT', 'h')).toBe(17);
    expect(await run('A', 'GET', 'h')).toBe(cached);
    until(() => server('B').replication.masterReplOffset === server('A').replication.masterReplOffset);
    expect(await run('B', 'GET', 'h')).toBe(cached);
  });

  it('counts a logically expired HLL as empty and leaves it to the primary\'s DEL', async () => {
    const { world, run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    await run('A', 'DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    await run('A', 'PFADD', 'h', 'a', 'b', 'c');
    await run('A', 'PEXPIRE', 'h', '10');
    until(() => server('B').dbs[0]!.expires.has('h'));
    world.advance(50);
    expect(await run('B', 'PFCOUNT', 'h')).toBe(0);
    expect(await run('B', 'DBSIZE')).toBe(1);
  });
});
