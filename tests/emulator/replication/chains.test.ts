import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

describe('chains', () => {
  it('a replica of a replica gets the top primary\'s stream verbatim: the same ID, offsets and data', async () => {
    const { run, until, server, linkUp } = setup({ hosts: ['A', 'B', 'C'] });
    await run('A', 'SET', 'a', '1');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    await run('C', 'REPLICAOF', 'B', '6379');
    until(() => linkUp('C'));
    for (let i = 0; i < 30; i++) await run('A', 'HSET', 'h', `f${i}`, String(i));
    await run('A', 'SELECT', '2');
    until(() => server('C').replication.masterReplOffset === server('A').replication.masterReplOffset);
    expect(server('C').replication.replId).toBe(server('A').replication.replId);
    expect(server('B').replication.masterReplOffset).toBe(server('A').replication.masterReplOffset);
    expect(await run('C', 'DEBUG', 'DIGEST')).toBe(await run('A', 'DEBUG', 'DIGEST'));
    expect(await run('C', 'ROLE')).toEqual(['slave', 'B', 6379, 'connected', server('A').replication.masterReplOffset]);
  });

  it('a sub-replica cannot sync while its primary has no link, and is dropped when its primary resyncs fully', async () => {
    const { run, until, server, linkUp, log } = setup({ hosts: ['A', 'B', 'C'] });
    await run('B', 'REPLICAOF', 'A', '7777');
    await run('C', 'REPLICAOF', 'B', '6379');
    until(() => log('C').some((l) => l === "Master is currently unable to PSYNC but should be in the future: -NOMASTERLINK Can't SYNC while not connected with my master"));
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B') && linkUp('C'));
    // B's full resync with a new primary history drops C, which resyncs too.
    await run('A', 'DEBUG', 'CHANGE-REPL-ID');
    await run('B', 'CLIENT', 'KILL', 'TYPE', 'master');
    until(() => log('C').filter((l) => l === 'Connection with master lost.').length === 1);
    until(() => linkUp('B') && linkUp('C'));
    await run('A', 'SET', 'after', '1');
    until(() => server('C').dbs[0]!.dict.has('after'));
  });
});

describe('two primaries made replicas of each other', () => {
  it('neither can sync: each answers the other that it has no link to its own primary', async () => {
    const { world, run, log, field } = setup();
    await run('A', 'SET', 'only-on-a', '1');
    await run('A', 'REPLICAOF', 'B', '6379');
    await run('B', 'REPLICAOF', 'A', '6379');
    world.advance(3000);
    expect(log('A').some((l) => l.includes("-NOMASTERLINK Can't SYNC while not connected with my master"))).toBe(true);
    expect(log('B').some((l) => l.includes("-NOMASTERLINK Can't SYNC while not connected with my master"))).toBe(true);
    expect(await field('A', 'master_link_status')).toBe('down');
    expect(await field('B', 'master_link_status')).toBe('down');
    expect(await run('A', 'GET', 'only-on-a')).toBe('1');
  });
});
