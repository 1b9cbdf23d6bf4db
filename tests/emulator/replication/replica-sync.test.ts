import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { setup } from './cluster.js';

describe('REPLICAOF and the full synchronization', () => {
  it('a replica loads the primary\'s data and then applies its writes, with the log lines of Redis', async () => {
    const { run, log, until, linkUp, server } = setup({ config: { 'repl-diskless-sync': 'no' } });
    await run('A', 'SET', 'k', 'v');
    await run('A', 'RPUSH', 'l', 'a', 'b');
    expect(await run('B', 'REPLICAOF', 'A', '6379')).toBe('OK');
    until(() => linkUp('B'));
    expect(await run('B', 'GET', 'k')).toBe('v');
    expect(await run('B', 'LRANGE', 'l', '0', '-1')).toEqual(['a', 'b']);
    await run('A', 'SET', 'k2', 'v2');
    await run('A', 'DEL', 'k');
    until(() => server('B').dbs[0]!.dict.has('k2') && !server('B').dbs[0]!.dict.has('k'));
    expect(await run('B', 'DEBUG', 'DIGEST')).toBe(await run('A', 'DEBUG', 'DIGEST'));
    const lines = log('B');
    const at = (text: string | RegExp) => lines.findIndex((l) => (typeof text === 'string' ? l === text : text.test(l)));
    const expected = [
      'Connecting to MASTER A:6379',
      'MASTER <-> REPLICA sync started',
      /^REPLICAOF A:6379 enabled \(user request from 'id=\d+ addr=/,
      'Non blocking connect for SYNC fired the event.',
      'Master replied to PING, replication can continue...',
      /^Trying a partial resynchronization \(request [0-9a-f]{40}:1\)\.$/,
      /^Full resync from master: [0-9a-f]{40}:0$/,
      /^MASTER <-> REPLICA sync: receiving \d+ bytes from master to disk$/,
      'MASTER <-> REPLICA sync: Flushing old data',
      'MASTER <-> REPLICA sync: Loading DB in memory',
      'Done loading RDB, keys loaded: 2, keys expired: 0.',
      'MASTER <-> REPLICA sync: Finished with success',
    ];
    const positions = expected.map(at);
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
  });

  it('drops its own function libraries with its data before loading the primary\'s, as emptyData does', async () => {
    const { run, until, linkUp } = setup({ config: { 'repl-diskless-sync': 'no' } });
    const lib = (name: string) => `#!lua name=${name}\nredis.register_function('f_${name}', function() return 1 end)`;
    expect(await run('A', 'FUNCTION', 'LOAD', lib('shared'))).toBe('shared');
    expect(await run('B', 'FUNCTION', 'LOAD', lib('shared'))).toBe('shared');
    expect(await run('B', 'FUNCTION', 'LOAD', lib('mine'))).toBe('mine');
    await run('A', 'SET', 'k', 'v');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(await run('B', 'GET', 'k')).toBe('v');
    const names = (list: unknown) => (list as unknown[][]).map((l) => l[1]);
    expect(names(await run('B', 'FUNCTION', 'LIST'))).toEqual(['shared']);
  });

  it('takes a diskless transfer (EOF mark) and answers with an ACK, which puts it online at once', async () => {
    const { run, log, until, linkUp, field } = setup({ config: { 'repl-diskless-sync-delay': '0' } });
    await run('A', 'SET', 'k', 'v');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(log('B')).toContain('MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk');
    until(() => log('A').includes('Synchronization with replica 10.0.0.4:6379 succeeded'), 1000);
    expect(await field('A', 'slave0')).toMatch(/^ip=10\.0\.0\.4,port=6379,state=online,offset=0,lag=\d$/);
    expect(await run('B', 'GET', 'k')).toBe('v');
  });

  it('loads straight from the socket with repl-diskless-load on-empty-db when it has no key', async () => {
    const { run, log, until, linkUp, procs } = setup({ config: { 'repl-diskless-load': 'on-empty-db', 'repl-diskless-sync': 'no' } });
    await run('A', 'SET', 'k', 'v');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(log('B').some((l) => /^MASTER <-> REPLICA sync: receiving \d+ bytes from master to parser$/.test(l))).toBe(true);
    expect(await run('B', 'GET', 'k')).toBe('v');
    expect(procs.get('B')!.host.disk.exists('/var/lib/redis/dump.rdb')).toBe(false);
  });

  it('shows the transfer in INFO while the file crosses a slow link', async () => {
    const { world, run, until, field, server } = setup({ link: 'vpn', config: { 'repl-diskless-sync': 'no', rdbcompression: 'no' } });
    await run('A', 'DEBUG', 'POPULATE', '3000', 'key', '100');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => server('B').replication.replica.state === 'transfer' && (server('B').replication.replica.transfer?.read ?? 0) > 0);
    expect(await field('B', 'master_link_status')).toBe('down');
    expect(await field('B', 'master_sync_in_progress')).toBe('1');
    const total = Number(await field('B', 'master_sync_total_bytes'));
    const left = Number(await field('B', 'master_sync_left_bytes'));
    expect(total).toBeGreaterThan(300_000);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(total);
    expect(await field('B', 'master_link_down_since_seconds')).toBe('-1');
    world.advance(500);
    expect(Number(await field('B', 'master_sync_left_bytes'))).toBeLessThan(left);
    until(() => server('B').replication.replica.state === 'connected');
    expect(await field('B', 'master_link_status')).toBe('up');
    expect(await field('B', 'master_sync_left_bytes')).toBeUndefined();
    expect(await run('B', 'DBSIZE')).toBe(3000);
  });

  it('REPLICAOF to the primary it follows changes nothing; bad ports are refused', async () => {
    const { run, until, linkUp } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(await run('B', 'REPLICAOF', 'a', '6379')).toBe('OK Already connected to specified master');
    expect(await run('B', 'REPLICAOF', 'A', '65536')).toBe('ERR Invalid master port');
    expect(await run('B', 'SLAVEOF', 'A', 'x')).toBe('ERR Invalid master port');
    expect(await run('B', 'ROLE')).toEqual(['slave', 'A', 6379, 'connected', expect.any(Number)]);
  });

  it('keeps trying a primary that does not answer, and says why', async () => {
    const { world, run, log, field } = setup();
    await run('B', 'REPLICAOF', 'A', '7777');
    world.advance(2500);
    expect(log('B').filter((l) => l === 'Error condition on socket for SYNC: Connection refused').length).toBeGreaterThanOrEqual(2);
    expect(await field('B', 'master_link_status')).toBe('down');
    expect(await run('B', 'ROLE')).toEqual(['slave', 'A', 7777, 'connect', -1]);
  });

  it('starts as a replica with replicaof in its configuration, after loading its own data', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'metal');
    world.addHost('B', 'metal');
    world.link('A', 'B', 'lan');
    world.startRedis('A', { config: { save: '' } });
    const b = world.startRedis('B', { config: { save: '', replicaof: 'A 6379' } });
    expect(b.server.replication.masterHost).toBe('A');
    expect(world.runUntil(() => b.server.replication.replica.state === 'connected', { maxMs: 20_000 })).toBe(true);
    expect(b.server.config.get('replicaof')).toBe('A 6379');
  });
});

describe('partial resynchronization', () => {
  it('continues with +CONTINUE after the primary\'s connection is killed', async () => {
    const { run, until, linkUp, log, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    await run('A', 'SET', 'a', '1');
    until(() => server('B').dbs[0]!.dict.has('a'));
    expect(await run('B', 'CLIENT', 'KILL', 'TYPE', 'master')).toBe(1);
    await run('A', 'SET', 'b', '2');
    until(() => linkUp('B') && server('B').dbs[0]!.dict.has('b'));
    const lines = log('B');
    expect(lines).toContain('Connection with master lost.');
    expect(lines).toContain('Caching the disconnected master state.');
    expect(lines).toContain('Successful partial resynchronization with master.');
    expect(lines).toContain('MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.');
    expect(log('A').some((l) => /^Partial resynchronization request from 10\.0\.0\.4:6379 accepted\. Sending \d+ bytes of backlog starting from offset \d+\.$/.test(l))).toBe(true);
    expect(await run('B', 'DEBUG', 'DIGEST')).toBe(await run('A', 'DEBUG', 'DIGEST'));
  });

  it('keeps the id of the primary\'s client across a partial resync, as Redis reuses the cached client, and takes none for it', async () => {
    const { world, run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    const masterId = (): number | undefined => [...server('B').clients.values()].find((c) => c.role === 'master')?.id;
    const newClientId = async (): Promise<unknown> => world.settle(world.connect({ from: 'app', to: 'B:6379' }).call('CLIENT', 'ID'));
    const before = masterId();
    expect(before).toBeDefined();
    const probe = Number(await newClientId());
    expect(await run('B', 'CLIENT', 'KILL', 'TYPE', 'master')).toBe(1);
    await run('A', 'SET', 'b', '2');
    until(() => linkUp('B') && server('B').dbs[0]!.dict.has('b'));
    expect(masterId()).toBe(before);
    // replicationResurrectCachedMaster makes no client: the next connection takes the next id.
    expect(await newClientId()).toBe(probe + 1);
  });

  it('notices a silent link after repl-timeout, then continues partially once it heals', async () => {
    const { world, run, until, linkUp, log, server } = setup({ config: { 'repl-timeout': '5', 'repl-ping-replica-period': '1' } });
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    world.partition('A', 'B');
    await run('A', 'SET', 'during', '1');
    until(() => log('B').includes('MASTER timeout: no data nor PING received...'), 10_000);
    world.heal('A', 'B');
    until(() => linkUp('B') && server('B').dbs[0]!.dict.has('during'), 30_000);
    expect(log('B')).toContain('Successful partial resynchronization with master.');
    expect(await run('B', 'DEBUG', 'DIGEST')).toBe(await run('A', 'DEBUG', 'DIGEST'));
  });

  it('needs a full resync when the backlog no longer holds its offset', async () => {
    const { run, until, linkUp, log, server } = setup({ config: { 'repl-backlog-size': '16384' } });
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    // Following a primary that is not there keeps the cached state of A.
    await run('B', 'REPLICAOF', 'A', '7777');
    for (let i = 0; i < 100; i++) await run('A', 'SET', `big${i}`, 'x'.repeat(2000));
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B') && server('B').dbs[0]!.dict.size === 100, 30_000);
    expect(log('A').some((l) => /^Unable to partial resync with replica 10\.0\.0\.4:6379 for lack of backlog \(Replica request was: \d+\)\.$/.test(l))).toBe(true);
    expect(log('B').filter((l) => l.startsWith('Full resync from master')).length).toBe(2);
  });

  it('a replica restarted on its own dump.rdb continues where it was', async () => {
    const { world, run, until, log, procs } = setup();
    await run('B', 'CONFIG', 'SET', 'save', '3600 1');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => procs.get('B')!.server.replication.replica.state === 'connected');
    await run('A', 'SET', 'a', '1');
    until(() => procs.get('B')!.server.dbs[0]!.dict.has('a'));
    await run('B', 'SHUTDOWN');
    world.advance(100);
    await run('A', 'SET', 'b', '2');
    const b = world.startRedis('B', { config: { save: '', replicaof: 'A 6379' } });
    until(() => b.server.replication.replica.state === 'connected' && b.server.dbs[0]!.dict.has('b'));
    const lines = log('B');
    expect(lines.filter((l) => l === 'Successful partial resynchronization with master.').length).toBe(1);
    expect(b.server.dbs[0]!.dict.has('a')).toBe(true);
  });
});

describe('the steps of table 4.2 in the trace', () => {
  it('both sides record steps 1 to 5 of a full sync, in order, with writes made during the sync', async () => {
    const { world, run, until, linkUp } = setup({ link: 'vpn', config: { 'repl-diskless-sync': 'no', rdbcompression: 'no' } });
    await run('A', 'DEBUG', 'POPULATE', '2000', 'key', '100');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => world.trace.find('repl', 'A').some((e) => e.text.startsWith('step 3:')));
    await run('A', 'SET', 'during', '1');
    until(() => linkUp('B'));
    world.advance(1000);
    const steps = (h: string) => world.trace.find('repl', h).map((e) => /^step (\d):/.exec(e.text)?.[1]).filter((s) => s !== undefined);
    expect(steps('A')).toEqual(['1', '2', '3', '4', '5']);
    expect(steps('B')).toEqual(['1', '2', '3', '4', '5']);
    expect(world.trace.find('repl', 'B')[2]!.text).toMatch(/^step 3: snapshot received \(\d+ bytes\); old data discarded, loads it$/);
  });
});

describe('a replica with an append-only file', () => {
  it('stops its AOF for the full sync and starts it again from a rewrite, so a restart finds the primary\'s data', async () => {
    const { world, run, until, linkUp, log, procs } = setup({ config: { 'repl-diskless-sync-delay': '0' } });
    await run('A', 'SET', 'from-primary', '1');
    await run('B', 'CONFIG', 'SET', 'appendonly', 'yes');
    world.advance(500);
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    until(() => log('B').includes('Background AOF rewrite finished successfully'));
    await run('A', 'SET', 'after-sync', '2');
    world.advance(2000);
    const b = procs.get('B')!;
    world.signal('B', b.pid, 'KILL');
    const again = world.startRedis('B', { config: { save: '', appendonly: 'yes' } });
    world.advance(1000);
    expect(again.server.dbs[0]!.dict.has('from-primary')).toBe(true);
    expect(again.server.dbs[0]!.dict.has('after-sync')).toBe(true);
  });
});
