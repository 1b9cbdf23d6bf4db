import { describe, expect, it } from 'vitest';
import { shellWorld } from './shell-harness.js';

/**
 * Listing 4.4 of Redis in Action: the primary on machine A is gone; on
 * machine B, a replica, save a snapshot, copy it to machine C, start Redis
 * there, and make B a replica of C. C starts from B's snapshot, which
 * carries the old primary's history, so B continues with a partial resync.
 */
describe('listing 4.4: replacing a failed primary from the host shell', () => {
  it('SAVE, scp dump.rdb, start Redis on the new host, SLAVEOF it', () => {
    const { world, run } = shellWorld({ hosts: ['machine-b', 'machine-a', 'machine-c'] });
    const a = world.startRedis('machine-a', { config: { dir: '/var/lib/redis', save: '' } });
    const b = world.startRedis('machine-b', { config: { dir: '/var/lib/redis', save: '', replicaof: 'machine-a 6379' } });
    world.runUntil(() => b.server.replication.replica.state === 'connected', { maxMs: 20_000 });
    for (let i = 0; i < 100; i++) a.server.execute(a.server.connect(), ['SET', `k${i}`, String(i)]);
    world.runUntil(() => b.server.dbs[0]!.dict.size === 100, { maxMs: 5000 });
    world.signal('machine-a', a.pid, 'KILL');
    world.advance(100);

    expect(run('redis-cli SAVE')).toBe('OK\n');
    expect(run('scp /var/lib/redis/dump.rdb machine-c:/var/lib/redis/')).toMatch(/dump\.rdb +100%/);
    run('sim ssh machine-c');
    expect(run('redis-server --port 6379 --dir /var/lib/redis --save ""')).toBe('');
    world.advance(500);
    expect(run('redis-cli DBSIZE')).toBe('(integer) 100\n');
    run('sim ssh machine-b');
    expect(run('redis-cli SLAVEOF machine-c 6379')).toBe('OK\n');
    world.runUntil(() => b.server.replication.replica.state === 'connected', { maxMs: 20_000 });
    const log = world.trace.find('log', 'machine-b').map((e) => e.text);
    expect(log).toContain('Successful partial resynchronization with master.');
    expect(run('redis-cli INFO replication')).toMatch(/master_host:machine-c\r?\nmaster_port:6379\r?\nmaster_link_status:up/);
  });
});
