import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

/**
 * A diskless transfer goes at the pace of its slowest replica: the child
 * writes the next piece of the pipe only once every replica took the last.
 * A replica that stops taking it (its host cut off, its process stopped)
 * is dropped once repl-timeout has passed since the write it could not
 * take whole (replicationCron, src/replication.c), and the others finish.
 */
describe('a diskless transfer to a replica that stops reading', () => {
  it('drops that replica after repl-timeout and finishes the transfer to the others', async () => {
    const { run, log, until, linkUp, world, server } = setup({
      hosts: ['A', 'B', 'C'],
      config: { 'repl-diskless-sync': 'yes', 'repl-diskless-sync-delay': '1', 'repl-diskless-sync-max-replicas': '2', rdbcompression: 'no' },
    });
    await run('A', 'DEBUG', 'POPULATE', '1000', 'key', '10000');
    await run('A', 'CONFIG', 'SET', 'repl-timeout', '2');
    await run('B', 'REPLICAOF', 'A', '6379');
    await run('C', 'REPLICAOF', 'A', '6379');
    const b = server('B').replication.replica;
    until(() => b.state === 'transfer' && (b.transfer?.read ?? 0) > 0);
    world.partition('A', 'B');
    until(() => log('A').includes('Diskless rdb transfer, done reading from pipe, 1 replicas still up.'));
    until(() => linkUp('C'));
    expect(await run('C', 'DBSIZE')).toBe(1000);
    const dropped = log('A').filter((l) => l.startsWith('Disconnecting timedout replica'));
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatch(/^Disconnecting timedout replica \(full sync\): /);
    expect(log('A').indexOf(dropped[0]!)).toBeLessThan(log('A').indexOf('Diskless rdb transfer, done reading from pipe, 1 replicas still up.'));
  });
});
