import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ServerConnection } from '../../../emulator/server/connection.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { encodeCommand } from '../../../emulator/resp/encode.js';
import { RawPeer } from './raw-peer.js';

/**
 * A primary on host A; an application on a LAN next to it; a replica
 * (a raw peer) on host R behind the given link.
 */
function setup(config: Record<string, string> = {}, replicaLink: 'lan' | 'vpn' = 'lan', primary: 'metal' | 'core2duo' = 'metal') {
  // DEBUG POPULATE's values compress well: without compression the file is as big as the data.
  config = { rdbcompression: 'no', ...config };
  const world = new World({ seed: 5 });
  world.addHost('A', primary);
  world.addHost('app', 'metal');
  world.addHost('R', 'metal');
  world.link('app', 'A', 'lan');
  world.link('R', 'A', replicaLink);
  const proc = world.startRedis('A', { config: { save: '', 'enable-debug-command': 'yes', ...config } });
  const r = world.connect({ from: 'app', to: 'A:6379' });
  const log = (): string[] => world.trace.find('log', 'A').map((e) => e.text);
  const infoField = async (section: string, field: string): Promise<string | undefined> => {
    const text = (await world.settle(r.info(section))) as string;
    return new RegExp(`^${field}:(.*)\\r$`, 'm').exec(text)?.[1];
  };
  return { world, proc, r, log, infoField, peer: () => new RawPeer(world, 'R', 'A') };
}

/** "$<len>\r\n<rdb>" after any keep-alive newlines: the RDB and the rest, or null while incomplete. */
function splitBulk(bytes: string): { rdb: string; rest: string } | null {
  const m = /^\n*\$(\d+)\r\n/.exec(bytes);
  if (m === null) return null;
  const end = m[0].length + Number(m[1]);
  return bytes.length < end ? null : { rdb: bytes.slice(m[0].length, end), rest: bytes.slice(end) };
}

describe('full resynchronization', () => {
  it('INFO shows wait_bgsave while the BGSAVE runs, send_bulk while the file travels the link, then online', async () => {
    const { world, r, infoField, peer } = setup({}, 'vpn');
    await world.settle(r.call('DEBUG', 'POPULATE', '3000', 'key', '100'));
    const p = peer();
    p.command('SYNC');
    const states: string[] = [];
    for (let i = 0; i < 400 && !states.includes('online'); i++) {
      const line = await infoField('replication', 'slave0');
      const state = /state=(\w+)/.exec(line ?? '')?.[1];
      if (state !== undefined && states.at(-1) !== state) states.push(state);
      await world.advanceAsync(10);
    }
    expect(states).toEqual(['wait_bgsave', 'send_bulk', 'online']);
    // Online once the last byte is in the socket; it is on the replica a little later.
    p.waitFor((b) => splitBulk(b) !== null);
    expect(splitBulk(p.received)).not.toBeNull();
  });

  it('sends the RDB at the bandwidth of the replica\'s link', () => {
    const { world, r, peer } = setup({}, 'vpn');
    void r.call('DEBUG', 'POPULATE', '3000', 'key', '100');
    world.advance(50);
    const p = peer();
    p.command('SYNC');
    p.waitFor((b) => b.length > 0);
    const first = world.kernel.now;
    p.waitFor((b) => splitBulk(b) !== null, 20_000);
    const seconds = (world.kernel.now - first) / 1e6;
    const bytes = splitBulk(p.received)!.rdb.length;
    // 1.8 megabit: about 225 KB a second.
    expect(bytes).toBeGreaterThan(200_000);
    expect(seconds).toBeGreaterThan((bytes * 8) / 1.8e6 - 0.1);
    expect(seconds).toBeLessThan((bytes * 8) / 1.8e6 + 0.5);
  });

  it('writes made during the sync reach the replica after the RDB, which holds the dataset at the fork', async () => {
    const { world, r, peer } = setup({}, 'vpn');
    await world.settle(r.call('DEBUG', 'POPULATE', '1000', 'key', '100'));
    const p = peer();
    p.command('PSYNC', '?', '-1');
    p.waitFor((b) => b.startsWith('+FULLRESYNC'));
    await world.settle(r.set('during', '1'));
    await world.settle(r.call('SELECT', '2'));
    await world.settle(r.set('other-db', '2'));
    p.waitFor((b) => splitBulk(b.slice(b.indexOf('\r\n') + 2))?.rest.includes('other-db') === true, 20_000);
    const { rdb, rest } = splitBulk(p.received.slice(p.received.indexOf('\r\n') + 2))!;
    expect(rdb).not.toContain('during');
    expect(rest).toBe(
      '*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nset\r\n$6\r\nduring\r\n$1\r\n1\r\n' +
        '*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*3\r\n$3\r\nset\r\n$8\r\nother-db\r\n$1\r\n2\r\n',
    );
  });

  it('a full sync\'s steps are in the trace, BGSAVE included', () => {
    const { world, log, peer } = setup();
    const p = peer();
    p.command('SYNC');
    p.waitFor((b) => splitBulk(b) !== null);
    world.advance(200);
    const lines = log();
    const from = lines.findIndex((l) => l.endsWith('asks for synchronization'));
    expect(lines.slice(from)).toEqual([
      'Replica 10.0.0.4:<unknown-replica-port> asks for synchronization',
      expect.stringMatching(/^Replication backlog created, my new replication IDs are '[0-9a-f]{40}' and '0{40}'$/),
      'Starting BGSAVE for SYNC with target: disk',
      expect.stringMatching(/^Background saving started by pid \d+$/),
      'DB saved on disk',
      'Background saving terminated with success',
      'Synchronization with replica 10.0.0.4:<unknown-replica-port> succeeded',
    ]);
  });

  it('a replica that goes away stops the BGSAVE made only for it, which is no failed save', async () => {
    const { world, r, log, infoField, peer } = setup({}, 'lan', 'core2duo');
    await world.settle(r.call('DEBUG', 'POPULATE', '20000', 'key', '100'));
    const p = peer();
    p.command('SYNC');
    world.runUntil(() => log().some((l) => l.startsWith('Background saving started')), { maxMs: 1000 });
    p.close();
    world.advance(500);
    expect(log()).toContain('Connection with replica 10.0.0.4:<unknown-replica-port> lost.');
    expect(log()).toContain('Background saving terminated by signal 10');
    expect(await infoField('persistence', 'rdb_last_bgsave_status')).toBe('ok');
    expect(await infoField('replication', 'connected_slaves')).toBe('0');
  });

  it('with save rules the BGSAVE goes on when its replica goes away', async () => {
    const { world, r, log, peer } = setup({ save: '3600 1' }, 'lan', 'core2duo');
    await world.settle(r.call('DEBUG', 'POPULATE', '20000', 'key', '100'));
    const p = peer();
    p.command('SYNC');
    world.runUntil(() => log().some((l) => l.startsWith('Background saving started')), { maxMs: 1000 });
    p.close();
    world.advance(2000);
    expect(log()).toContain('Connection with replica 10.0.0.4:<unknown-replica-port> lost.');
    expect(log()).not.toContain('Background saving terminated by signal 10');
    expect(log()).toContain('Background saving terminated with success');
  });

  it('a failed BGSAVE drops the replicas waiting for it', async () => {
    const { world, r, log, infoField, peer } = setup();
    await world.settle(r.set('k', 'v'));
    world.host('A').disk.setFull(true);
    const p = peer();
    p.command('SYNC');
    world.advance(500);
    expect(log()).toContain('SYNC failed. BGSAVE child returned an error');
    expect(p.closed).toBe(true);
    expect(await infoField('replication', 'connected_slaves')).toBe('0');
  });
});

describe('diskless transfer', () => {
  it('sends $EOF:<mark>, the RDB and the mark; the stream starts with the first REPLCONF ACK', async () => {
    const { world, r, log, peer } = setup({ 'repl-diskless-sync-delay': '0' });
    await world.settle(r.set('k', 'v'));
    const p = peer();
    p.command('REPLCONF', 'capa', 'eof');
    p.waitFor((b) => b === '+OK\r\n');
    p.take();
    p.command('PSYNC', '?', '-1');
    p.waitFor((b) => /\$EOF:([0-9a-f]{40})\r\n[^]*\1$/.test(b));
    world.advance(300);
    await world.settle(r.set('after', '1'));
    world.advance(50);
    const m = /^\+FULLRESYNC [0-9a-f]{40} 0\r\n\$EOF:([0-9a-f]{40})\r\n(REDIS0010[^]*)\1$/.exec(p.received);
    expect(m).not.toBeNull();
    expect(log()).toContain('Starting BGSAVE for SYNC with target: replicas sockets');
    expect(log()).toContain(
      'Streamed RDB transfer with replica 10.0.0.4:<unknown-replica-port> succeeded (socket). Waiting for REPLCONF ACK from slave to enable streaming',
    );
    p.take();
    p.command('REPLCONF', 'ACK', '0');
    p.waitFor((b) => b.includes('after'));
    expect(p.received).toBe('*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nset\r\n$5\r\nafter\r\n$1\r\n1\r\n');
  });

  it('waits repl-diskless-sync-delay for more replicas, sending newlines meanwhile', () => {
    const { world, log, peer } = setup({ 'repl-diskless-sync-delay': '3' });
    const p = peer();
    p.command('REPLCONF', 'capa', 'eof');
    p.waitFor((b) => b === '+OK\r\n');
    p.take();
    p.command('SYNC');
    world.advance(2500);
    expect(log()).toContain('Delay next BGSAVE for diskless SYNC');
    expect(p.received).toMatch(/^\n\n$/);
    world.advance(2000);
    expect(p.received).toMatch(/^\n+\$EOF:/);
  });
});

describe('replicas once online', () => {
  it('REPLCONF ACK moves offset= and lag= in INFO, and ROLE lists the replica', async () => {
    const { world, r, infoField, peer } = setup();
    const p = peer();
    p.command('REPLCONF', 'listening-port', '6380');
    p.waitFor((b) => b === '+OK\r\n');
    p.command('PSYNC', '?', '-1');
    p.waitFor((b) => splitBulk(b.slice(b.indexOf('\r\n', 5) + 2)) !== null);
    await world.settle(r.set('k', 'v'));
    p.command('REPLCONF', 'ACK', '50');
    world.advance(3200);
    expect(await infoField('replication', 'slave0')).toBe('ip=10.0.0.4,port=6380,state=online,offset=50,lag=3');
    expect(await world.settle(r.call('ROLE'))).toEqual(['master', 50, [['10.0.0.4', '6380', '50']]]);
  });

  it('a PSYNC replica that never ACKs is dropped after repl-timeout; an old SYNC one is not', async () => {
    const { world, log, infoField, peer } = setup({ 'repl-timeout': '5' });
    const sync = peer();
    sync.command('SYNC');
    const psync = peer();
    psync.command('PSYNC', '?', '-1');
    world.advance(8000);
    expect(psync.closed).toBe(true);
    expect(sync.closed).toBe(false);
    expect(log()).toContain('Disconnecting timedout replica (streaming sync): 10.0.0.4:<unknown-replica-port>');
    expect(await infoField('replication', 'connected_slaves')).toBe('1');
  });

  it('a replica\'s bare newlines keep it from timing out, as a replica loading a big RDB sends them', () => {
    const { world, log, peer } = setup({ 'repl-timeout': '3' });
    const p = peer();
    p.command('PSYNC', '?', '-1');
    for (let i = 0; i < 8; i++) {
      world.advance(1000);
      p.send('\n');
    }
    expect(p.closed).toBe(false);
    expect(log().some((l) => l.startsWith('Disconnecting timedout replica'))).toBe(false);
  });

  it('is not closed by the idle client timeout, which closes a normal client', async () => {
    const { world, r, peer } = setup({ timeout: '2' });
    const p = peer();
    p.command('SYNC');
    world.advance(6000);
    expect(p.closed).toBe(false);
    expect(await world.settle(r.ping().catch((e: Error) => e.message))).toBe('Connection is closed.');
  });

  it('CLIENT KILL TYPE replica drops it', async () => {
    const { world, r, infoField, peer } = setup();
    const p = peer();
    p.command('SYNC');
    p.waitFor((b) => splitBulk(b) !== null);
    expect(await world.settle(r.call('CLIENT', 'KILL', 'TYPE', 'replica'))).toBe(1);
    world.advance(50);
    expect(p.closed).toBe(true);
    expect(await infoField('replication', 'connected_slaves')).toBe('0');
  });

  it('without replicas the backlog is freed after repl-backlog-ttl, under a new replication ID', async () => {
    const { world, r, log, infoField, peer } = setup({ 'repl-backlog-ttl': '3' });
    const p = peer();
    p.command('SYNC');
    p.waitFor((b) => splitBulk(b) !== null);
    await world.settle(r.set('k', 'v'));
    const id = await infoField('replication', 'master_replid');
    p.close();
    world.advance(5000);
    expect(log()).toContain('Replication backlog freed after 3 seconds without connected replicas.');
    expect(await infoField('replication', 'repl_backlog_active')).toBe('0');
    expect(await infoField('replication', 'master_replid')).not.toBe(id);
    // The offset stays where the stream left it.
    expect(await infoField('replication', 'master_repl_offset')).toBe('50');
  });

  it('min-replicas-to-write shows how many replicas are within min-replicas-max-lag', async () => {
    const { world, r, infoField, peer } = setup({ 'min-replicas-to-write': '1', 'min-replicas-max-lag': '2' });
    const p = peer();
    p.command('PSYNC', '?', '-1');
    world.advance(1500);
    expect(await infoField('replication', 'min_slaves_good_slaves')).toBe('1');
    world.advance(3000);
    expect(await infoField('replication', 'min_slaves_good_slaves')).toBe('0');
    void r;
  });
});

describe('output buffer limits', () => {
  it('a replica whose unsent stream reaches the hard limit is dropped', async () => {
    const { world, r, log, infoField, peer } = setup({ 'client-output-buffer-limit': 'slave 1048576 0 0' }, 'vpn');
    await world.settle(r.call('DEBUG', 'POPULATE', '3000', 'key', '100'));
    const p = peer();
    p.command('SYNC');
    world.runUntil(() => log().some((l) => l.startsWith('Synchronization') || l === 'Background saving terminated with success'), { maxMs: 5000 });
    // The replica takes the RDB slowly; meanwhile 2 MB of writes pile up for it.
    for (let i = 0; i < 20; i++) void r.set(`big${i}`, 'x'.repeat(100_000));
    await world.settle(r.ping());
    world.advance(100);
    expect(log().some((l) => /^Client id=\d+ .* flags=S .* scheduled to be closed ASAP for overcoming of output buffer limits\.$/.test(l))).toBe(true);
    expect(log()).toContain('Connection with replica 10.0.0.4:<unknown-replica-port> lost.');
    expect(await infoField('replication', 'connected_slaves')).toBe('0');
  });

  it('an online replica on a slow link holds the stream its socket cannot take, until the limit drops it', async () => {
    const { world, r, log, infoField, peer } = setup({ 'client-output-buffer-limit': 'slave 1048576 0 0' }, 'vpn');
    const p = peer();
    p.command('PSYNC', '?', '-1');
    world.runUntil(() => log().some((l) => l.startsWith('Synchronization with replica')), { maxMs: 5000 });
    for (let i = 0; i < 5; i++) void r.set(`v${i}`, 'x'.repeat(100_000));
    await world.settle(r.ping());
    // Half a megabyte: held for it, under the limit.
    expect(await infoField('replication', 'connected_slaves')).toBe('1');
    expect(await infoField('memory', 'mem_total_replication_buffers')).not.toBe('0');
    for (let i = 0; i < 10; i++) void r.set(`w${i}`, 'x'.repeat(100_000));
    await world.settle(r.ping());
    world.advance(10);
    expect(log().some((l) => l.endsWith('scheduled to be closed ASAP for overcoming of output buffer limits.'))).toBe(true);
    expect(await infoField('replication', 'connected_slaves')).toBe('0');
  });

  it('over the soft limit for longer than its seconds, serverCron drops it', async () => {
    const { world, r, log, infoField, peer } = setup({ 'client-output-buffer-limit': 'slave 0 65536 1' }, 'vpn');
    await world.settle(r.call('DEBUG', 'POPULATE', '3000', 'key', '100'));
    const p = peer();
    p.command('SYNC');
    world.runUntil(() => log().includes('Background saving terminated with success'), { maxMs: 5000 });
    await world.settle(r.set('big', 'x'.repeat(100_000)));
    world.advance(3000);
    expect(log().some((l) => /^Client id=\d+ .* closed for overcoming of output buffer limits\.$/.test(l))).toBe(true);
    expect(await infoField('replication', 'connected_slaves')).toBe('0');
  });
});

describe('shutting down', () => {
  it('waits up to shutdown-timeout for lagging replicas, asking them for an ACK, then reports them', async () => {
    const { world, r, log, peer, proc } = setup({ 'shutdown-timeout': '2' });
    const p = peer();
    p.command('PSYNC', '?', '-1');
    p.waitFor((b) => splitBulk(b.slice(b.indexOf('\r\n') + 2)) !== null);
    await world.settle(r.set('b', '2'));
    const other = world.connect({ from: 'app', to: 'A:6379' });
    const shutdown = r.call('SHUTDOWN').catch((e: Error) => e.message);
    world.advance(1000);
    expect(proc.alive).toBe(true);
    expect(log()).toContain('Waiting for replicas before shutting down.');
    expect(p.received).toContain('*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n');
    world.advance(1500);
    expect(proc.alive).toBe(false);
    const lines = log();
    expect(lines).toContain('Lagging replica 10.0.0.4:<unknown-replica-port> reported offset 87 behind master, lag=2, state=online.');
    expect(lines).toContain('0 of 1 replicas are in sync when shutting down.');
    expect(await world.settle(shutdown)).toBe('Connection is closed.');
    void other;
  });

  it('goes at once when the replicas have acknowledged everything, or with NOW', () => {
    for (const args of [['SHUTDOWN'], ['SHUTDOWN', 'NOW']]) {
      const { world, r, log, peer, proc } = setup();
      const p = peer();
      p.command('PSYNC', '?', '-1');
      p.waitFor((b) => splitBulk(b.slice(b.indexOf('\r\n') + 2)) !== null);
      if (args.length === 1) {
        p.command('REPLCONF', 'ACK', '0');
      } else {
        void r.set('b', '2');
      }
      world.advance(50);
      void r.call(...(args as [string, ...string[]])).catch(() => {});
      world.advance(50);
      expect(proc.alive).toBe(false);
      expect(log()).not.toContain('Waiting for replicas before shutting down.');
    }
  });

  it('a shutdown that fails after the wait tells every client blocked on SHUTDOWN', async () => {
    const { world, r, log, peer, proc } = setup({ 'shutdown-timeout': '2' });
    const p = peer();
    p.command('PSYNC', '?', '-1');
    p.waitFor((b) => splitBulk(b.slice(b.indexOf('\r\n') + 2)) !== null);
    await world.settle(r.set('b', '2'));
    const other = world.connect({ from: 'app', to: 'A:6379' });
    const admin = world.connect({ from: 'app', to: 'A:6379' });
    const first = r.call('SHUTDOWN').catch((e: Error) => e.message);
    world.advance(100);
    const second = other.call('SHUTDOWN').catch((e: Error) => e.message);
    world.advance(100);
    // A slow initial AOF rewrite keeps the server from exiting.
    await world.settle(admin.call('CONFIG', 'SET', 'rdb-key-save-delay', '30000000'));
    await world.settle(admin.call('CONFIG', 'SET', 'appendonly', 'yes'));
    world.advance(3000);
    expect(log()).toContain("Writing initial AOF, can't exit.");
    expect(proc.alive).toBe(true);
    expect(await world.settle(first)).toBe('ERR Errors trying to SHUTDOWN. Check logs.');
    expect(await world.settle(second)).toBe('ERR Errors trying to SHUTDOWN. Check logs.');
  });

  it('SHUTDOWN ABORT ends the wait and the server goes on', async () => {
    const { world, r, log, peer, proc } = setup({ 'shutdown-timeout': '5' });
    const p = peer();
    p.command('PSYNC', '?', '-1');
    p.waitFor((b) => splitBulk(b.slice(b.indexOf('\r\n') + 2)) !== null);
    await world.settle(r.set('b', '2'));
    const other = world.connect({ from: 'app', to: 'A:6379' });
    const shutdown = r.call('SHUTDOWN').catch((e: Error) => e.message);
    world.advance(500);
    const waiting = String(await world.settle(other.call('INFO', 'server')));
    expect(Number(/shutdown_in_milliseconds:(\d+)\r\n/.exec(waiting)?.[1])).toBe(4500);
    expect(String(await world.settle(other.call('INFO', 'clients')))).toContain('blocked_clients:1\r\n');
    expect(await world.settle(other.call('SHUTDOWN', 'ABORT'))).toBe('OK');
    expect(String(await world.settle(other.call('INFO', 'server')))).not.toContain('shutdown_in_milliseconds');
    expect(await world.settle(shutdown)).toBe('ERR Errors trying to SHUTDOWN. Check logs.');
    expect(log()).toContain('Shutdown manually aborted.');
    world.advance(6000);
    expect(proc.alive).toBe(true);
    expect(await world.settle(other.call('SHUTDOWN', 'ABORT').catch((e: Error) => e.message))).toBe('ERR No shutdown in progress.');
  });
});

describe('rdb-del-sync-files', () => {
  it('a server with no persistence removes the RDB it made for its replicas', () => {
    const { world, log, peer } = setup({ 'rdb-del-sync-files': 'yes' });
    const p = peer();
    p.command('SYNC');
    p.waitFor((b) => splitBulk(b) !== null);
    world.advance(1500);
    expect(log()).toContain('Removing the RDB file used to feed replicas in a persistence-less instance');
    expect(world.host('A').disk.exists('/var/lib/redis/dump.rdb')).toBe(false);
  });
});

describe('a server without a process', () => {
  it('serves SYNC at once from memory', () => {
    const server = createServer({ clock: new ManualClock(1_700_000_000_000_000) });
    const out: string[] = [];
    const conn = new ServerConnection(server, (b) => out.push(b), () => {});
    const writer = server.connect();
    server.execute(writer, ['SET', 'k', 'v']);
    conn.receive(Uint8Array.from(encodeCommand(['SYNC']), (c) => c.charCodeAt(0)));
    server.execute(writer, ['SET', 'k2', 'v2']);
    const all = out.join('');
    const bulk = splitBulk(all)!;
    expect(bulk.rdb.startsWith('REDIS0010')).toBe(true);
    expect(bulk.rest).toBe('*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$2\r\nk2\r\n$2\r\nv2\r\n');
  });
});
