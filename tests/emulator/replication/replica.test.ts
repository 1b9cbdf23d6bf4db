import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import type { LinkProfileName } from '../../../emulator/sim/links.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

/**
 * Two servers on hosts A and B (and C for chains), an application host
 * next to them; B is made a replica of A in each test.
 */
function setup(opts: { config?: Record<string, string>; link?: LinkProfileName; hosts?: string[] } = {}) {
  const world = new World({ seed: 7 });
  const hosts = opts.hosts ?? ['A', 'B'];
  world.addHost('app', 'metal');
  for (const h of hosts) {
    world.addHost(h, 'metal');
    world.link('app', h, 'lan');
  }
  for (let i = 0; i < hosts.length; i++) for (let j = i + 1; j < hosts.length; j++) world.link(hosts[i]!, hosts[j]!, opts.link ?? 'lan');
  const procs = new Map<string, RedisProcess>();
  for (const h of hosts) procs.set(h, world.startRedis(h, { config: { save: '', 'enable-debug-command': 'yes', ...opts.config } }));
  const client = (h: string) => world.connect({ from: 'app', to: `${h}:6379` });
  const clients = new Map(hosts.map((h) => [h, client(h)]));
  const run = async (h: string, command: string, ...args: string[]): Promise<unknown> => {
    try {
      return await world.settle(clients.get(h)!.call(command, ...args));
    } catch (e) {
      return (e as Error).message;
    }
  };
  const log = (h: string): string[] => world.trace.find('log', h).map((e) => e.text);
  const field = async (h: string, name: string): Promise<string | undefined> => {
    const text = (await run(h, 'INFO', 'replication')) as string;
    return new RegExp(`^${name}:(.*)\\r$`, 'm').exec(text)?.[1];
  };
  const until = (done: () => boolean, maxMs = 30_000): void => {
    if (!world.runUntil(done, { maxMs })) throw new Error('condition not reached in time');
  };
  const linkUp = (h: string): boolean => procs.get(h)!.server.replication.replica.state === 'connected';
  return { world, procs, run, log, field, until, linkUp, server: (h: string) => procs.get(h)!.server };
}

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

describe('the stream on a replica', () => {
  it('a read-only replica refuses writes; the primary\'s writes go through', async () => {
    const { run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(await run('B', 'SET', 'x', '1')).toBe("READONLY You can't write against a read only replica.");
    await run('B', 'CONFIG', 'SET', 'replica-read-only', 'no');
    expect(await run('B', 'SET', 'x', '1')).toBe('OK');
    await run('A', 'INCR', 'n');
    until(() => server('B').dbs[0]!.dict.has('n'));
  });

  it('counts every byte applied into its offset, equal to the primary\'s', async () => {
    const { run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    for (let i = 0; i < 50; i++) await run('A', 'SET', `k${i}`, 'x'.repeat(i));
    await run('A', 'SELECT', '3');
    await run('A', 'MULTI');
    until(() => server('B').replication.masterReplOffset === server('A').replication.masterReplOffset);
    expect(server('B').replication.replId).toBe(server('A').replication.replId);
  });

  it('keeps an expired key until the primary\'s DEL, but does not show it', async () => {
    const { world, run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    await run('A', 'DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    await run('A', 'SET', 'e', 'v', 'PX', '300');
    until(() => server('B').dbs[0]!.dict.has('e'));
    world.advance(500);
    expect(await run('B', 'GET', 'e')).toBe(null);
    expect(await run('B', 'EXISTS', 'e')).toBe(0);
    expect(server('B').dbs[0]!.dict.has('e')).toBe(true);
    expect(await run('A', 'GET', 'e')).toBe(null);
    until(() => !server('B').dbs[0]!.dict.has('e'), 1000);
  });

  it('MONITOR on a replica shows the commands that arrive from the primary', async () => {
    const { world, run, until, linkUp } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    const s = world.openSession('mon', 'app', 'B:6379');
    world.send('mon', ['MONITOR']);
    world.advance(50);
    await run('A', 'SET', 'seen', '1');
    world.advance(50);
    const lines = s.replies().map((r) => (r as { text: string }).text);
    expect(lines.some((l) => /^\d+\.\d{6} \[0 10\.0\.0\.3:6379\] "SET" "seen" "1"$/.test(l))).toBe(true);
  });

  it('MASTERDOWN when the link is down and replica-serve-stale-data is off', async () => {
    const { run } = setup({ config: { 'replica-serve-stale-data': 'no' } });
    await run('B', 'REPLICAOF', 'A', '7777');
    expect(await run('B', 'GET', 'k')).toBe("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
    expect(await run('B', 'PING')).toBe("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
    expect(await run('B', 'INFO', 'replication')).toMatch(/master_link_status:down/);
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
