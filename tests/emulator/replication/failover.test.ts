import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

describe('promotion and handover', () => {
  it('REPLICAOF NO ONE keeps the old history as replid2, so a sibling continues with PSYNC', async () => {
    const { run, until, server, linkUp, log, field } = setup({ hosts: ['A', 'B', 'C'] });
    await run('B', 'REPLICAOF', 'A', '6379');
    await run('C', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B') && linkUp('C'));
    await run('A', 'SET', 'k', 'v');
    until(() => server('B').replication.masterReplOffset === server('A').replication.masterReplOffset && server('C').replication.masterReplOffset === server('A').replication.masterReplOffset);
    const oldId = server('B').replication.replId;
    const offset = server('B').replication.masterReplOffset;
    expect(await run('B', 'REPLICAOF', 'NO', 'ONE')).toBe('OK');
    expect(await field('B', 'role')).toBe('master');
    expect(await field('B', 'master_replid2')).toBe(oldId);
    expect(await field('B', 'second_repl_offset')).toBe(String(offset + 1));
    expect(log('B').some((l) => l.startsWith("MASTER MODE enabled (user request from 'id="))).toBe(true);
    expect(await run('B', 'SET', 'written', 'on B')).toBe('OK');
    await run('C', 'REPLICAOF', 'B', '6379');
    until(() => linkUp('C') && server('C').dbs[0]!.dict.has('written'));
    expect(log('C')).toContain('Successful partial resynchronization with master.');
    expect(log('C')).toContain(`Master replication ID changed to ${server('B').replication.replId}`);
    expect(log('B').some((l) => /^Partial resynchronization request from 10\.0\.0\.5:6379 accepted/.test(l))).toBe(true);
  });

  it('FAILOVER pauses writes, waits for the replica, and swaps the roles without a full sync', async () => {
    const { world, run, until, server, linkUp, log, field } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    // The replica cannot acknowledge the last write yet: the handover waits, and so do writes.
    world.partition('A', 'B');
    await run('A', 'SET', 'k', 'v');
    expect(await run('A', 'FAILOVER')).toBe('OK');
    expect(await field('A', 'master_failover_state')).toBe('waiting-for-sync');
    const w = world.openSession('w', 'app', 'A:6379');
    world.send('w', ['SET', 'held', '1']);
    world.advance(200);
    expect(w.replies()).toEqual([]);
    world.heal('A', 'B');
    until(() => server('A').replication.masterHost === '10.0.0.4' && linkUp('A'), 5000);
    // The held write is processed again after the handover: A is a replica now.
    until(() => w.replies().length === 1);
    expect(w.replies()).toEqual([expect.objectContaining({ message: "READONLY You can't write against a read only replica." })]);
    expect(server('B').replication.masterHost).toBe(null);
    expect(await field('A', 'master_failover_state')).toBe('no-failover');
    expect(log('A')).toContain('FAILOVER requested to any replica.');
    expect(log('A').some((l) => /^Failover target 10\.0\.0\.4:6379 is synced, failing over\.$/.test(l))).toBe(true);
    expect(log('B').some((l) => l.startsWith('Failover request received for replid '))).toBe(true);
    expect(log('A')).toContain('Successful partial resynchronization with master.');
    expect(await run('B', 'SET', 'k', 'new')).toBe('OK');
    until(() => server('A').dbs[0]!.dict.get('k') !== undefined && world.kernel.now > 0 && linkUp('A'));
    expect(await run('A', 'FAILOVER')).toBe('ERR FAILOVER is not valid when server is a replica.');
  });

  it('FAILOVER errors and ABORT', async () => {
    const { run, until, linkUp } = setup();
    expect(await run('A', 'FAILOVER')).toBe('ERR FAILOVER requires connected replicas.');
    expect(await run('A', 'FAILOVER', 'ABORT')).toBe('ERR No failover in progress.');
    expect(await run('A', 'FAILOVER', 'TIMEOUT', '0')).toBe('ERR FAILOVER timeout must be greater than 0');
    expect(await run('A', 'FAILOVER', 'FORCE', 'FORCE')).toBe('ERR syntax error');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(await run('A', 'FAILOVER', 'TO', 'B', '6379')).toBe('ERR FAILOVER target HOST and PORT is not a replica.');
    expect(await run('A', 'FAILOVER', 'TO', '10.0.0.4', '6379', 'FORCE')).toBe('ERR FAILOVER with force option requires both a timeout and target HOST and IP.');
  });

  it('CLIENT PAUSE WRITE holds writes until it ends, and reads go on', async () => {
    const { world, run, server } = setup();
    const s = world.openSession('w', 'app', 'A:6379');
    expect(await run('A', 'CLIENT', 'PAUSE', '500', 'WRITE')).toBe('OK');
    world.send('w', ['SET', 'k', 'v']);
    world.advance(100);
    expect(s.replies()).toEqual([]);
    expect(await run('A', 'GET', 'k')).toBe(null);
    world.advance(600);
    expect(s.replies()).toEqual([{ text: 'OK' }]);
    expect(server('A').dbs[0]!.dict.has('k')).toBe(true);
    expect(await run('A', 'CLIENT', 'PAUSE', '10000')).toBe('OK');
    world.send('w', ['GET', 'k']);
    world.advance(100);
    expect(s.replies().length).toBe(1);
    expect(await run('A', 'CLIENT', 'PAUSE', 'x')).toBe('ERR timeout is not an integer or out of range');
  });
});
