import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { readRdb } from '../../../emulator/persistence/rdb/file-reader.js';
import { RdbError } from '../../../emulator/persistence/rdb/errors.js';

function setup(config: Record<string, string> = {}) {
  const world = new World({ seed: 11 });
  world.addHost('A', 'core2duo');
  world.addHost('app', 'metal');
  world.link('app', 'A', 'lan');
  const server = world.startRedis('A', { config });
  const r = world.connect({ from: 'app', to: 'A:6379' });
  const disk = world.host('A').disk;
  return { world, server, r, disk };
}

function keysIn(bytes: Uint8Array): string[] {
  const c = readRdb(bytes, {
    hashMaxListpackEntries: 128, hashMaxListpackValue: 64, setMaxIntsetEntries: 512,
    zsetMaxListpackEntries: 128, zsetMaxListpackValue: 64, deepSanitize: false,
    databases: 16, verifyChecksum: true, nowMs: 0, dropExpired: false, allowDuplicates: false,
  });
  if (c instanceof RdbError) throw new Error(c.message);
  return [...(c.databases.get(0)?.keys() ?? [])].sort();
}

describe('SAVE', () => {
  it('writes dump.rdb, synced, and holds every client until the disk is done', async () => {
    const { world, r, disk } = setup({ save: '' });
    const other = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(Promise.all([r.set('a', '1'), other.ping()]));
    const t0 = world.kernel.now;
    const saving = r.call('SAVE');
    await world.advanceAsync(0.3);
    const ping = other.ping();
    expect(await world.settle(saving)).toBe('OK');
    // A spinning disk's fsync: about 5 ms.
    expect(world.kernel.now - t0).toBeGreaterThan(5000);
    await world.settle(ping);
    const st = disk.stat('/var/lib/redis/dump.rdb');
    expect(st.durableSize).toBe(st.size);
    expect(keysIn(disk.readFile('/var/lib/redis/dump.rdb'))).toEqual(['a']);
    const info = (await world.settle(r.info('persistence'))) as string;
    expect(info).toContain('rdb_changes_since_last_save:0\r\n');
    expect(info).toContain('rdb_saves:1\r\n');
    expect(disk.readdir('/var/lib/redis')).toEqual(['dump.rdb']);
  });

  it('fails with -ERR on a full disk and leaves no temp file', async () => {
    const { world, r, disk } = setup({ save: '' });
    await world.settle(r.set('a', '1'));
    disk.setFull(true);
    const err = await world.settle(r.call('SAVE').catch((e: Error) => e.message));
    expect(err).toBe('ERR');
    expect(disk.readdir('/var/lib/redis')).toEqual([]);
    expect(world.trace.find('log', 'A').map((e) => e.text)).toContain('Write error saving DB on disk(rdbSaveRio): No space left on device');
  });
});

describe('BGSAVE', () => {
  it('forks, keeps serving, and a child writes the point-in-time dataset', async () => {
    const { world, r, disk } = setup({ save: '' });
    for (let i = 0; i < 100; i++) r.set(`k${i}`, 'v'.repeat(100));
    await world.settle(r.ping());
    expect(await world.settle(r.bgsave())).toBe('Background saving started');
    // Written after the fork: not in the file.
    await world.settle(r.set('late', '1'));
    expect(await world.settle(r.bgsave().catch((e: Error) => e.message))).toBe('ERR Background save already in progress');
    expect(await world.settle(r.bgsave('SCHEDULE').catch((e: Error) => e.message))).toBe('ERR Background save already in progress');
    const ps = [...world.host('A').processes.values()].map((p) => p.name);
    expect(ps).toContain('redis-rdb-bgsave');
    await world.advanceAsync(200);
    const keys = keysIn(disk.readFile('/var/lib/redis/dump.rdb'));
    expect(keys.length).toBeGreaterThanOrEqual(100);
    const info = (await world.settle(r.info())) as string;
    expect(info).toMatch(/latest_fork_usec:\d+\r\n/);
    expect(info).toContain('rdb_last_bgsave_status:ok\r\n');
    const log = world.trace.find('log', 'A').map((e) => e.text);
    expect(log.some((l) => /^Background saving started by pid \d+$/.test(l))).toBe(true);
    expect(log).toContain('Background saving terminated with success');
  });

  it('sleeps rdb-key-save-delay microseconds per key in the child, as configured at the fork', async () => {
    const { world, r } = setup({ save: '' });
    await world.settle(r.call('MSET', 'a', '1', 'b', '2', 'c', '3'));
    await world.settle(r.call('CONFIG', 'SET', 'rdb-key-save-delay', '2000000'));
    const t0 = world.kernel.now;
    expect(await world.settle(r.bgsave())).toBe('Background saving started');
    // A change after the fork does not reach the child.
    await world.settle(r.call('CONFIG', 'SET', 'rdb-key-save-delay', '0'));
    const running = async () => /rdb_bgsave_in_progress:1/.test((await world.settle(r.info('persistence'))) as string);
    await world.advanceAsync(5_500);
    expect(await running()).toBe(true);
    await world.advanceAsync(1_000);
    expect(await running()).toBe(false);
    // Three keys at two seconds each, and the disk's part.
    expect(world.kernel.now - t0).toBeGreaterThan(6_000_000);
  });

  it('FLUSHALL kills a running BGSAVE child: the save fails and the changes stay unsaved', async () => {
    const { world, r } = setup({ save: '' });
    await world.settle(r.call('MSET', 'a', '1', 'b', '2', 'c', '3'));
    await world.settle(r.call('CONFIG', 'SET', 'rdb-key-save-delay', '1000000'));
    expect(await world.settle(r.bgsave())).toBe('Background saving started');
    expect(await world.settle(r.call('FLUSHALL'))).toBe('OK');
    await world.advanceAsync(100);
    const info = (await world.settle(r.info('persistence'))) as string;
    expect(info).toContain('rdb_bgsave_in_progress:0\r\n');
    expect(info).toContain('rdb_last_bgsave_status:ok\r\n');
    expect(Number(/rdb_changes_since_last_save:(\d+)/.exec(info)![1])).toBeGreaterThanOrEqual(3);
    expect(await world.settle(r.call('SET', 'x', 'xx'))).toBe('OK');
  });

  it('FLUSHALL with save rules writes the empty dataset to dump.rdb at once', async () => {
    const { world, r, disk } = setup({ save: '3600 1' });
    await world.settle(r.call('MSET', 'a', '1', 'b', '2'));
    expect(await world.settle(r.call('FLUSHALL'))).toBe('OK');
    expect(keysIn(disk.readFile('/var/lib/redis/dump.rdb'))).toEqual([]);
    const info = (await world.settle(r.info('persistence'))) as string;
    expect(info).toContain('rdb_changes_since_last_save:0\r\n');
  });

  it('the fork stalls the parent by the host profile: Xen is much slower than KVM', async () => {
    const forkUs = async (profile: 'xen' | 'kvm') => {
      const world = new World({ seed: 1 });
      world.addHost('A', profile);
      world.startRedis('A', { config: { save: '', 'enable-debug-command': 'yes' } });
      const r = world.connect({ from: 'A', to: 'A:6379' });
      await world.settle(r.call('DEBUG', 'POPULATE', '200000', 'key', '100'));
      await world.settle(r.bgsave());
      const info = (await world.settle(r.info('stats'))) as string;
      return Number(/latest_fork_usec:(\d+)/.exec(info)![1]);
    };
    // About 40 MB of data: Xen's 250 ms per GB against KVM's 20 ms per GB.
    const xen = await forkUs('xen');
    const kvm = await forkUs('kvm');
    expect(xen).toBeGreaterThan(5 * kvm);
    expect(xen).toBeGreaterThan(5000);
  });

  it('a killed child leaves the old file alone and MISCONF stops writes', async () => {
    const { world, r, disk } = setup({ save: '3600 1' });
    await world.settle(r.set('a', '1'));
    await world.settle(r.call('SAVE'));
    const before = disk.readFile('/var/lib/redis/dump.rdb');
    await world.settle(r.set('b', '2'));
    await world.settle(r.bgsave());
    const child = [...world.host('A').processes.values()].find((p) => p.name === 'redis-rdb-bgsave')!;
    child.signal('KILL');
    await world.advanceAsync(300);
    expect(disk.readFile('/var/lib/redis/dump.rdb')).toEqual(before);
    const err = await world.settle(r.set('c', '3').catch((e: Error) => e.message));
    expect(err).toMatch(/^MISCONF Redis is configured to save RDB snapshots/);
    expect(await world.settle(r.get('a'))).toBe('1');
    expect(world.trace.find('log', 'A').map((e) => e.text)).toContain('Background saving terminated by signal 9');
  });

  it('save rules start a BGSAVE from serverCron', async () => {
    const { world, r, disk } = setup({ save: '1 2' });
    await world.settle(r.set('a', '1'));
    await world.settle(r.set('b', '2'));
    await world.advanceAsync(2500);
    expect(world.trace.find('log', 'A').map((e) => e.text)).toContain('2 changes in 1 seconds. Saving...');
    expect(keysIn(disk.readFile('/var/lib/redis/dump.rdb'))).toEqual(['a', 'b']);
  });
});

describe('restart', () => {
  it('a restarted server loads dump.rdb; SHUTDOWN saves first', async () => {
    const { world, r } = setup();
    await world.settle(r.set('kept', 'yes'));
    await world.settle(r.call('SHUTDOWN').catch(() => null));
    await world.advanceAsync(100);
    world.startRedis('A');
    const r2 = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r2.get('kept'))).toBe('yes');
  });

  it('power loss before an fsync loses the snapshot; the old file survives', async () => {
    const { world, r, disk } = setup({ save: '' });
    await world.settle(r.set('v', '1'));
    await world.settle(r.call('SAVE'));
    await world.settle(r.set('v', '2'));
    await world.settle(r.bgsave());
    world.host('A').powerOff();
    world.host('A').powerOn();
    const bytes = disk.readFile('/var/lib/redis/dump.rdb');
    expect(keysIn(bytes)).toEqual(['v']);
    world.startRedis('A');
    const r2 = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r2.get('v'))).toBe('1');
  });
});

describe('BGSAVE progress in INFO', () => {
  it('shows the child progress and the copy-on-write cost of the parent writes', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'core2duo');
    // Uncompressed, the 100,000 keys make a 12 MB file: about 150 ms of the child's work on this machine.
    world.startRedis('A', { config: { save: '', 'enable-debug-command': 'yes', rdbcompression: 'no' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    await world.settle(r.call('DEBUG', 'POPULATE', '100000', 'key', '100'));
    await world.settle(r.bgsave());
    for (let i = 0; i < 50; i++) await world.settle(r.set(`key:${i}`, 'changed'));
    // Look while it works, after serverCron's next report.
    await world.advanceAsync(100 - (world.kernel.elapsedMs % 100) + 1);
    const during = (await world.settle(r.info('persistence'))) as string;
    expect(during).toContain('rdb_bgsave_in_progress:1\r\n');
    expect(during).toContain('current_save_keys_total:100000\r\n');
    expect(Number(/current_cow_size:(\d+)/.exec(during)![1])).toBeGreaterThanOrEqual(50 * 4096);
    await world.advanceAsync(3000);
    const after = (await world.settle(r.info('persistence'))) as string;
    expect(after).toContain('rdb_bgsave_in_progress:0\r\n');
    expect(after).toContain('current_cow_size:0\r\n');
    expect(Number(/rdb_last_cow_size:(\d+)/.exec(after)![1])).toBeGreaterThanOrEqual(50 * 4096);
  });
});

describe('a foreign dump.rdb', () => {
  it('a PNG named dump.rdb stops the server with redis-server 7.0.15 lines', () => {
    const world = new World({ seed: 1 });
    world.addHost('A', 'metal');
    const disk = world.host('A').disk;
    disk.mkdir('/var/lib/redis', { recursive: true });
    disk.writeFile('/var/lib/redis/dump.rdb', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    const p = world.startRedis('A');
    world.advance(10);
    expect(p.alive).toBe(false);
    expect(p.exitCode).toBe(1);
    const log = world.trace.find('log', 'A').map((e) => e.text);
    // What the real server logged for the same file.
    expect(log.slice(-2)).toEqual(['Wrong signature trying to load DB from file', 'Fatal error loading the DB: Invalid argument. Exiting.']);
  });
});

describe('a damaged dump.rdb', () => {
  /** A dump.rdb saved by the server, damaged by `harm`, and a fresh start on it. */
  async function startOn(harm: (bytes: Uint8Array) => Uint8Array) {
    const { world, r, disk, server } = setup({ save: '' });
    await world.settle(r.set('a', '1'));
    await world.settle(r.call('RPUSH', 'l', 'x', 'y'));
    await world.settle(r.call('SAVE'));
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    world.advance(100);
    disk.writeFile('/var/lib/redis/dump.rdb', harm(disk.readFile('/var/lib/redis/dump.rdb')));
    const from = world.trace.find('log', 'A').length;
    const p = world.startRedis('A', { config: { save: '' } });
    world.advance(100);
    expect(server.alive).toBe(false);
    return {
      p,
      log: world.trace.find('log', 'A').slice(from).map((e) => e.text),
      stdout: world.trace.find('stdout', 'A').map((e) => e.text).join(''),
    };
  }

  it('a CRC mismatch is logged as Redis logs it, then redis-check-rdb runs and the server exits with its code', async () => {
    const { p, log, stdout } = await startOn((b) => {
      b[b.length - 3]! ^= 0xff;
      return b;
    });
    expect(p.alive).toBe(false);
    expect(p.exitCode).toBe(1);
    expect(log[0]).toBe('Server initialized');
    expect(log[1]).toBe('Loading RDB produced by version 7.0.15');
    expect(log[2]).toMatch(/^RDB age \d+ seconds$/);
    expect(log[3]).toMatch(/^RDB memory usage when created \d+\.\d\d Mb$/);
    expect(log[4]).toMatch(/^Wrong RDB checksum expected: \([0-9a-f]+\) but got \([0-9a-f]+\)\. Aborting now\.$/);
    expect(log[5]).toBe('Internal error in RDB reading offset 0, function at rdb.c:3225 -> RDB CRC error');
    expect(log).not.toContain('Ready to accept connections');
    expect(stdout).toMatch(/^\[offset 0\] Checking RDB file dump\.rdb\n/);
    expect(stdout).toContain('--- RDB ERROR DETECTED ---\n');
    expect(stdout).toContain('] RDB CRC error\n[additional info] While doing: check-sum\n');
    expect(stdout).toContain('[info] 2 keys read\n');
  });

  it('a file cut short is a short read, reported the same way', async () => {
    const { p, log, stdout } = await startOn((b) => b.slice(0, 60));
    expect(p.exitCode).toBe(1);
    expect(log.slice(-2)).toEqual([
      'Short read or OOM loading DB. Unrecoverable error, aborting now.',
      'Internal error in RDB reading offset 0, function at rdb.c:3249 -> Unexpected EOF reading RDB file',
    ]);
    expect(stdout).toContain('] Unexpected EOF reading RDB file\n[additional info] While doing: read-aux\n');
  });

  /** A world whose server saved 2000 keys (key:N = value:N) in dump.rdb and stopped. */
  async function stoppedWith2000Keys() {
    const { world, r } = setup({ save: '', 'enable-debug-command': 'yes' });
    await world.settle(r.call('DEBUG', 'POPULATE', '2000'));
    await world.settle(r.call('SAVE'));
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    world.advance(100);
    return world;
  }

  it('loads for key-load-delay after each key, answering -LOADING meanwhile and letting clients come and go', async () => {
    const world = await stoppedWith2000Keys();
    const proc = world.startRedis('A', { config: { save: '', 'key-load-delay': '1000' } });
    world.advance(1000);
    expect(proc.server.stats.persistence.loading).toBe(true);
    const visitor = world.connect({ from: 'app', to: 'A:6379' });
    await expect(world.settle(visitor.get('key:1'))).rejects.toThrow(/^LOADING /);
    const clients = proc.server.clients.size;
    visitor.disconnect();
    world.advance(10);
    expect(proc.server.clients.size).toBe(clients - 1);
    // 2000 keys at 1 ms each.
    world.advance(1000);
    expect(proc.server.stats.persistence.loading).toBe(false);
    const after = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(after.get('key:1'))).toBe('value:1');
  });

  it("under the machine's clock (npm run server), key-load-delay's window starts once the file has been read", async () => {
    const world = await stoppedWith2000Keys();
    // Reading the file took the machine 1.5 s while virtual time stood still.
    const readDoneUs = world.kernel.now + 1_500_000;
    world.kernel.outsideNowUs = () => readDoneUs;
    const proc = world.startRedis('A', { config: { save: '', 'key-load-delay': '1000' } });
    world.kernel.outsideNowUs = null;
    // 2000 keys at 1 ms each, counted from the end of the read.
    world.advance(3000);
    expect(proc.server.stats.persistence.loading).toBe(true);
    world.advance(600);
    expect(proc.server.stats.persistence.loading).toBe(false);
  });

  it('a sound file logs its aux fields, then loads, then says it is ready', async () => {
    const { world, r } = setup({ save: '' });
    await world.settle(r.set('a', '1'));
    await world.settle(r.call('SAVE'));
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    world.advance(100);
    const from = world.trace.find('log', 'A').length;
    world.startRedis('A', { config: { save: '' } });
    world.advance(100);
    const log = world.trace.find('log', 'A').slice(from).map((e) => e.text.replace(/\d+(\.\d+)?/g, 'N'));
    expect(log).toEqual([
      'Server initialized',
      'Loading RDB produced by version N.N',
      'RDB age N seconds',
      'RDB memory usage when created N Mb',
      'Done loading RDB, keys loaded: N, keys expired: N.',
      'DB loaded from disk: N seconds',
      'Ready to accept connections',
    ]);
  });
});
