import { describe, expect, it } from 'vitest';
import { shellWorld } from './shell-harness.js';

/**
 * Listing 4.4 of Redis in Action: the primary on machine A is gone; on
 * machine B, a replica, save a snapshot, copy it to machine C, start Redis
 * there, and make B a replica of C. C starts from B's snapshot, which
 * carries the old primary's history, so B continues with a partial resync.
 * The other way the book gives: promote B itself with REPLICAOF NO ONE.
 * Either way the data survives and the roles are checked.
 */
/**
 * Where the listing starts: machine A's primary holds 100 keys, machine B
 * replicates them, then A's redis-server is killed. The shell stands on
 * machine B, the first host.
 */
function primaryLost(hosts: string[]) {
  const { world, run } = shellWorld({ hosts });
  const a = world.startRedis('machine-a', { config: { dir: '/var/lib/redis', save: '' } });
  const b = world.startRedis('machine-b', { config: { dir: '/var/lib/redis', save: '', replicaof: 'machine-a 6379' } });
  world.runUntil(() => b.server.replication.replica.state === 'connected', { maxMs: 20_000 });
  for (let i = 0; i < 100; i++) a.server.execute(a.server.connect(), ['SET', `k${i}`, String(i)]);
  world.runUntil(() => b.server.dbs[0]!.dict.size === 100, { maxMs: 5000 });
  world.signal('machine-a', a.pid, 'KILL');
  world.advance(100);
  return { world, run, b };
}

describe('listing 4.4: replacing a failed primary from the host shell', () => {
  it('SAVE, scp dump.rdb, start Redis on the new host, SLAVEOF it', () => {
    const { world, run, b } = primaryLost(['machine-b', 'machine-a', 'machine-c']);

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
     // The data survives on both, and the roles are as the listing leaves them.
    expect(run('redis-cli GET k99')).toBe('"99"\n');
    expect(run('redis-cli ROLE')).toMatch(/^1\) "slave"\n2\) "machine-c"\n3\) \(integer\) 6379\n4\) "connected"\n/);
    run('sim ssh machine-c');
    expect(run('redis-cli ROLE')).toMatch(/^1\) "master"\n/);
    expect(run('redis-cli INFO replication')).toMatch(/connected_slaves:1\r?\nslave0:ip=[\d.]+,port=6379,state=online/);
  });

  it('or promotes the replica in place with REPLICAOF NO ONE', () => {
    const { world, run } = primaryLost(['machine-b', 'machine-a']);

    expect(run('redis-cli SET k100 100')).toBe('(error) READONLY You can\'t write against a read only replica.\n');
    expect(run('redis-cli REPLICAOF NO ONE')).toBe('OK\n');
    expect(run('redis-cli ROLE')).toMatch(/^1\) "master"\n/);
    expect(run('redis-cli SET k100 100')).toBe('OK\n');
    expect(run('redis-cli DBSIZE')).toBe('(integer) 101\n');
    expect(run('redis-cli GET k0')).toBe('"0"\n');
    const log = world.trace.find('log', 'machine-b').map((e) => e.text);
    // replication.c's replicaofCommand logs who asked, with the client's CLIENT LIST line.
    expect(log.some((l) => /^MASTER MODE enabled \(user request from 'id=\d+ addr=.* cmd=replicaof .*'\)$/.test(l))).toBe(true);
  });
});
