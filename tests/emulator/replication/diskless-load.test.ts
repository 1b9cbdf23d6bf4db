import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

/**
 * repl-diskless-load swapdb: Redis parses the RDB as it comes off the
 * socket (readSyncBulkPayload, src/replication.c), so the replica is
 * loading for the whole transfer, not only once the file is in; Redis's
 * replication unit watches INFO for it ("Diskless load swapdb").
 */
describe('a diskless load while the RDB crosses the link', () => {
  const persistence = async (run: (h: string, ...a: string[]) => Promise<unknown>, name: string) =>
    new RegExp(`^${name}:(.*)\\r$`, 'm').exec((await run('B', 'INFO', 'persistence')) as string)?.[1];

  it('from another history: loading from the header on, the old data back when the primary drops the link', async () => {
    const { run, log, until, server } = setup({ link: 'vpn', config: { 'repl-diskless-load': 'swapdb', 'repl-diskless-sync-delay': '0', rdbcompression: 'no' } });
    await run('A', 'DEBUG', 'POPULATE', '3000', 'key', '1000');
    await run('B', 'DEBUG', 'POPULATE', '20', 'mine', '10');
    await run('B', 'SET', 'mykey', 'myvalue');
    await run('B', 'REPLICAOF', 'A', '6379');
    const r = server('B').replication.replica;
    until(() => r.state === 'transfer' && (r.transfer?.read ?? 0) > 0);
    expect(await persistence(run, 'loading')).toBe('1');
    expect(await persistence(run, 'async_loading')).toBe('0');
    expect(await run('B', 'GET', 'mykey')).toBe('LOADING Redis is loading the dataset in memory');
    expect(await run('B', 'CONFIG', 'SET', 'appendonly', 'no')).toBe('LOADING Redis is loading the dataset in memory');
    expect(log('B')).toContain('MASTER <-> REPLICA sync: Loading DB in memory');
    expect(log('B')).not.toContain('MASTER <-> REPLICA sync: Flushing old data');

    await run('A', 'CONFIG', 'SET', 'repl-diskless-sync-delay', '5');
    expect(await run('A', 'CLIENT', 'KILL', 'TYPE', 'replica')).toBe(1);
    until(() => server('B').stats.persistence.loading === false);
    expect(await persistence(run, 'loading')).toBe('0');
    expect(await run('B', 'GET', 'mykey')).toBe('myvalue');
    expect(await run('B', 'DBSIZE')).toBe(21);
    const lines = log('B');
    const failed = lines.findIndex((l) => l.startsWith('Failed trying to load the MASTER synchronization DB from socket: '));
    expect(failed).toBeGreaterThan(0);
    const reconnecting = lines.indexOf('Reconnecting to MASTER A:6379 after failure', failed);
    const discarding = lines.indexOf('MASTER <-> REPLICA sync: Discarding temporary DB in background', failed);
    expect(reconnecting).toBeGreaterThan(failed);
    expect(discarding).toBeGreaterThan(reconnecting);
  });

  it('from the same history: async_loading, serving the old data, refusing REPLICAOF, then the new data', async () => {
    const { run, until, server, linkUp } = setup({
      link: 'vpn',
      config: { 'repl-diskless-load': 'swapdb', 'repl-diskless-sync-delay': '0', rdbcompression: 'no', 'replica-read-only': 'no' },
    });
    await run('A', 'DEBUG', 'POPULATE', '3000', 'key', '1000');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(await run('B', 'DBSIZE')).toBe(3000);
    await run('B', 'SET', 'mykey', 'myvalue');
    // A backlog too small for what follows: the replica's next sync is a full one, from the same history.
    await run('A', 'CONFIG', 'SET', 'repl-backlog-size', '16384');
    await run('A', 'CLIENT', 'KILL', 'TYPE', 'replica');
    for (let i = 0; i < 10; i++) await run('A', 'SET', `big${i}`, 'A'.repeat(16384));
    const r = server('B').replication.replica;
    until(() => r.state === 'transfer' && (r.transfer?.read ?? 0) > 0);
    expect(await persistence(run, 'async_loading')).toBe('1');
    expect(await persistence(run, 'loading')).toBe('0');
    expect(await run('B', 'GET', 'mykey')).toBe('myvalue');
    expect(await run('B', 'REPLICAOF', 'NO', 'ONE')).toBe('LOADING Redis is loading the dataset in memory');
    expect(await run('B', 'CONFIG', 'SET', 'appendonly', 'no')).toBe('LOADING Redis is loading the dataset in memory');
    until(() => linkUp('B'));
    expect(await persistence(run, 'async_loading')).toBe('0');
    expect(await run('B', 'GET', 'mykey')).toBeNull();
    expect(await run('B', 'DBSIZE')).toBe(3010);
  });
});
