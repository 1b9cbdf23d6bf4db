/**
 * The AOF engine inside the simulated redis-server: the files Redis 7.0
 * creates and when, what each appendfsync policy makes durable before a
 * reply leaves, rewrites, switching the AOF on and off at runtime, loading
 * at start (torn tails included) and write errors.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { Disk, type DiskProfile } from '../../../emulator/sim/disk.js';
import { aofRecord } from '../../../emulator/persistence/aof/records.js';
import { rewriteAof } from '../../../emulator/persistence/aof/rewrite.js';
import { snapshotDatabases } from '../../../emulator/persistence/rdb-dataset.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

const DIR = '/var/lib/redis/appendonlydir';
const INCR1 = `${DIR}/appendonly.aof.1.incr.aof`;
const MANIFEST = `${DIR}/appendonly.aof.manifest`;

function setup(config: Record<string, string> = {}, disk?: Partial<DiskProfile>) {
  const world = new World({ seed: 11 });
  world.addHost('A', 'core2duo');
  world.addHost('app', 'metal');
  world.link('app', 'A', 'lan');
  if (disk !== undefined) {
    world.host('A').disk = new Disk(world.kernel, 'A', { kind: 'hdd', fsyncUs: 5_000, writeBytesPerSec: 120_000_000, capacityBytes: 1e11, ...disk });
  }
  const full = { save: '', appendonly: 'yes', ...config };
  const server = world.startRedis('A', { config: full });
  const r = world.connect({ from: 'app', to: 'A:6379' });
  const restart = (extra: Record<string, string> = {}): RedisProcess => world.startRedis('A', { config: { ...full, ...extra } });
  return { world, server, r, disk: world.host('A').disk, restart };
}

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('latin1');
}

function logOf(world: World): string[] {
  return world.trace.find('log', 'A').map((e) => e.text);
}

/** The log lines after the first one equal to `from`. */
function logSince(world: World, from: string): string[] {
  const log = logOf(world);
  return log.slice(log.lastIndexOf(from) + 1);
}

async function infoField(world: World, r: ReturnType<World['connect']>, field: string): Promise<string> {
  const info = (await world.settle(r.info('persistence'))) as string;
  return new RegExp(`${field}:([^\\r]*)`).exec(info)![1]!;
}

describe('AOF files at start', () => {
  it('creates appendonlydir with a base, an incr file and the manifest, as 7.0 does on an empty dir', async () => {
    const { world, disk } = setup();
    await world.advanceAsync(100);
    expect(disk.readdir(DIR)).toEqual(['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest']);
    expect(text(disk.readFile(MANIFEST))).toBe('file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n');
    expect(text(disk.readFile(`${DIR}/appendonly.aof.1.base.rdb`)).startsWith('REDIS0010')).toBe(true);
    expect(disk.stat(INCR1).size).toBe(0);
    // Everything is durable before the first command runs.
    for (const name of disk.readdir(DIR)) expect(disk.stat(`${DIR}/${name}`).durableExists).toBe(true);
    expect(disk.readdir('/var/lib/redis')).toEqual(['appendonlydir']);
    expect(logSince(world, 'Server initialized')).toEqual([
      'Creating AOF base file appendonly.aof.1.base.rdb on server start',
      'Creating AOF incr file appendonly.aof.1.incr.aof on server start',
      'Ready to accept connections',
    ]);
  });

  it('ignores dump.rdb when appendonly is yes and there is no AOF yet, as 7.0 does', async () => {
    const { world, r, restart } = setup({ appendonly: 'no' });
    await world.settle(r.set('fromrdb', '1'));
    await world.settle(r.call('SAVE'));
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    restart({ appendonly: 'yes' });
    const r2 = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r2.call('DBSIZE'))).toBe(0);
    expect(world.host('A').disk.readdir('/var/lib/redis')).toEqual(['appendonlydir', 'dump.rdb']);
  });

  it('reopens the last incr file on restart and loads base + incr', async () => {
    const { world, r, restart, disk } = setup();
    await world.settle(r.set('a', '1'));
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    const size = disk.stat(INCR1).size;
    restart();
    const r2 = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r2.get('a'))).toBe('1');
    await world.settle(r2.set('b', '2'));
    expect(disk.readdir(DIR)).toEqual(['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest']);
    // A new client starts in db 0 but the file goes on from where it was: SELECT again, as Redis does.
    expect(text(disk.readFile(INCR1)).slice(size)).toBe(aofRecord(['SELECT', '0']) + aofRecord(['set', 'b', '2']));
    expect(logSince(world, 'Calling fsync() on the AOF file.')).toEqual(
      expect.arrayContaining([
        'Reading RDB base file on AOF loading...',
        'DB loaded from base file appendonly.aof.1.base.rdb: 0.000 seconds',
        'DB loaded from incr file appendonly.aof.1.incr.aof: 0.000 seconds',
        'Opening AOF incr file appendonly.aof.1.incr.aof on server start',
      ]),
    );
    expect(await infoField(world, r2, 'aof_current_size')).toBe(String(disk.stat(INCR1).size + disk.stat(`${DIR}/appendonly.aof.1.base.rdb`).size));
  });

  it('keeps a key given a past time while the AOF is read back, so later records still write to it, and expires it once loaded', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'core2duo');
    const disk = world.host('A').disk;
    disk.mkdir('/var/lib/redis', { recursive: true });
    const records = [['RPUSH', 'list', 'foo'], ['PEXPIREAT', 'list', '1000'], ['RPUSH', 'list', 'bar'], ['SET', 's', 'v', 'PXAT', '1000'], ['APPEND', 's', 'w']];
    disk.writeFile('/var/lib/redis/appendonly.aof', Buffer.from(records.map(aofRecord).join(''), 'latin1'));
    const proc = world.startRedis('A', { config: { save: '', appendonly: 'yes' } });
    const db = proc.server.dbs[0]!;
    // Both keys were loaded whole, with their past times (integration/aof's AOF+EXPIRE).
    expect([db.dict.size, db.expires.size]).toEqual([2, 2]);
    const r = world.connect({ from: 'A', to: 'A:6379' });
    expect(await world.settle(r.llen('list'))).toBe(0);
    expect(await world.settle(r.exists('s'))).toBe(0);
  });

  it('replays for key-load-delay after each command, loading meanwhile', () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'core2duo');
    const disk = world.host('A').disk;
    disk.mkdir('/var/lib/redis', { recursive: true });
    const records = Array.from({ length: 1000 }, (_, i) => aofRecord(['SET', `k${i}`, 'v']));
    disk.writeFile('/var/lib/redis/appendonly.aof', Buffer.from(records.join(''), 'latin1'));
    const proc = world.startRedis('A', { config: { save: '', appendonly: 'yes', 'key-load-delay': '1000' } });
    // 1000 commands at 1 ms each.
    world.advance(900);
    expect(proc.server.stats.persistence.loading).toBe(true);
    world.advance(200);
    expect(proc.server.stats.persistence.loading).toBe(false);
  });

  it('moves an old single appendonly.aof into the directory (the upgrade from 6.x)', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'core2duo');
    const disk = world.host('A').disk;
    disk.mkdir('/var/lib/redis', { recursive: true });
    disk.writeFile('/var/lib/redis/appendonly.aof', Buffer.from(aofRecord(['SELECT', '0']) + aofRecord(['SET', 'old', 'yes']), 'latin1'));
    world.startRedis('A', { config: { save: '', appendonly: 'yes' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    expect(await world.settle(r.get('old'))).toBe('yes');
    expect(disk.readdir('/var/lib/redis')).toEqual(['appendonlydir']);
    expect(disk.readdir(DIR)).toEqual(['appendonly.aof', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest']);
    expect(text(disk.readFile(MANIFEST))).toBe('file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n');
    expect(logSince(world, 'Server initialized').slice(0, 2)).toEqual([
      'Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).',
      'DB loaded from base file appendonly.aof: 0.000 seconds',
    ]);
  });
});

describe('appendfsync', () => {
  it('always: every reply leaves after its write is durable, and the thread waits for the disk', async () => {
    const { world, r, disk } = setup({ appendfsync: 'always' });
    const t0 = world.kernel.now;
    for (let i = 0; i < 20; i++) {
      await world.settle(r.set(`k${i}`, 'v'));
      const st = disk.stat(INCR1);
      expect(st.durableSize).toBe(st.size);
      expect(st.size).toBeGreaterThan(0);
    }
    // A spinning disk syncs about 200 times a second (Redis in Action 4.1.2).
    const perSecond = 20 / ((world.kernel.now - t0) / 1e6);
    expect(perSecond).toBeGreaterThan(150);
    expect(perSecond).toBeLessThan(220);
  });

  it('everysec: writes reach the page cache before the reply, and the disk within about a second', async () => {
    const { world, r, disk } = setup({ appendfsync: 'everysec' });
    await world.advanceAsync(1500);
    await world.settle(r.set('a', '1'));
    const st = disk.stat(INCR1);
    expect(st.size).toBe(aofRecord(['SELECT', '0']).length + aofRecord(['set', 'a', '1']).length);
    await world.advanceAsync(1200);
    expect(disk.stat(INCR1).durableSize).toBe(st.size);
    expect(await infoField(world, r, 'aof_pending_bio_fsync')).toBe('0');
  });

  it('no: only the kernel writes the data back, once it has been dirty for 30 s', async () => {
    const { world, r, disk } = setup({ appendfsync: 'no' });
    await world.settle(r.set('a', '1'));
    await world.advanceAsync(20_000);
    expect(disk.stat(INCR1).durableSize).toBe(0);
    await world.advanceAsync(16_000);
    expect(disk.stat(INCR1).durableSize).toBe(disk.stat(INCR1).size);
  });

  it('everysec on a slow disk: writes wait up to 2 s behind a background fsync, then go anyway', async () => {
    const { world, r } = setup({ appendfsync: 'everysec' }, { fsyncUs: 4_000_000 });
    await world.advanceAsync(15_000);
    // The first write starts a background fsync that takes 4 s; those after it wait.
    await world.settle(r.set('a', '1'));
    await world.advanceAsync(1100);
    for (let i = 0; i < 30; i++) {
      await world.settle(r.set('b', String(i)));
      await world.advanceAsync(100);
    }
    expect(logOf(world)).toContain(
      'Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.',
    );
    expect(Number(await infoField(world, r, 'aof_delayed_fsync'))).toBeGreaterThan(0);
  });

  it('INFO shows the buffer and the fsync in flight', async () => {
    const { world, r } = setup({ appendfsync: 'everysec' }, { fsyncUs: 3_000_000 });
    await world.advanceAsync(12_000);
    await world.settle(r.set('a', '1'));
    await world.advanceAsync(1100);
    await world.settle(r.set('a', '2'));
    expect(await infoField(world, r, 'aof_pending_bio_fsync')).toBe('1');
    // Postponed behind it: still in the buffer.
    await world.settle(r.set('a', '3'));
    expect(Number(await infoField(world, r, 'aof_buffer_length'))).toBeGreaterThan(0);
  });
});

describe('BGREWRITEAOF', () => {
  it('the child sleeps rdb-key-save-delay microseconds per key, as a BGSAVE child does', async () => {
    const { world, r } = setup({ 'rdb-key-save-delay': '1000000' });
    await world.settle(r.call('MSET', 'a', '1', 'b', '2', 'c', '3'));
    expect(await world.settle(r.call('BGREWRITEAOF'))).toBe('Background append only file rewriting started');
    await world.advanceAsync(2_500);
    expect(await infoField(world, r, 'aof_rewrite_in_progress')).toBe('1');
    await world.advanceAsync(1_500);
    expect(await infoField(world, r, 'aof_rewrite_in_progress')).toBe('0');
  });

  it('writes a new base, opens a new incr file, rewrites the manifest and deletes the old files', async () => {
    const { world, r, disk, restart } = setup();
    await world.settle(r.set('a', '1'));
    await world.settle(r.call('SELECT', '2'));
    await world.settle(r.set('b', '2'));
    expect(await world.settle(r.call('BGREWRITEAOF'))).toBe('Background append only file rewriting started');
    expect(await world.settle(r.call('BGREWRITEAOF').catch((e: Error) => e.message))).toBe('ERR Background append only file rewriting already in progress');
    expect(await infoField(world, r, 'aof_rewrite_in_progress')).toBe('1');
    await world.settle(r.set('c', '3'));
    await world.advanceAsync(500);
    expect(disk.readdir(DIR)).toEqual(['appendonly.aof.2.base.rdb', 'appendonly.aof.2.incr.aof', 'appendonly.aof.manifest']);
    expect(text(disk.readFile(MANIFEST))).toBe('file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n');
    // The new incr file starts with SELECT: Redis forgets the database at the fork.
    expect(text(disk.readFile(`${DIR}/appendonly.aof.2.incr.aof`))).toBe(aofRecord(['SELECT', '2']) + aofRecord(['set', 'c', '3']));
    expect(disk.readdir('/var/lib/redis')).toEqual(['appendonlydir']);
    const child = logOf(world).find((l) => l.startsWith('Background append only file rewriting started by pid'))!.split(' ').pop();
    expect(logSince(world, `Creating AOF incr file appendonly.aof.2.incr.aof on background rewrite`)).toEqual([
      `Background append only file rewriting started by pid ${child}`,
      `Successfully created the temporary AOF base file temp-rewriteaof-bg-${child}.aof`,
      'Background AOF rewrite terminated with success',
      `Successfully renamed the temporary AOF base file temp-rewriteaof-bg-${child}.aof into appendonly.aof.2.base.rdb`,
      'Removing the history file appendonly.aof.1.incr.aof in the background',
      'Removing the history file appendonly.aof.1.base.rdb in the background',
      'Background AOF rewrite finished successfully',
    ]);
    const base = disk.stat(`${DIR}/appendonly.aof.2.base.rdb`).size;
    expect(await infoField(world, r, 'aof_rewrites')).toBe('1');
    expect(await infoField(world, r, 'aof_last_bgrewrite_status')).toBe('ok');
    // Both count the incr file written during the rewrite, as Redis does.
    const incr = disk.stat(`${DIR}/appendonly.aof.2.incr.aof`).size;
    expect(await infoField(world, r, 'aof_base_size')).toBe(String(base + incr));
    expect(await infoField(world, r, 'aof_current_size')).toBe(String(base + incr));
    const stats = (await world.settle(r.info('stats'))) as string;
    expect(stats).toMatch(/total_forks:1\r\n/);
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    restart();
    const r2 = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r2.get('a'))).toBe('1');
    await world.settle(r2.call('SELECT', '2'));
    expect(await world.settle(r2.call('MGET', 'b', 'c'))).toEqual(['2', '3']);
  });

  it('with aof-use-rdb-preamble no the base is the commands that rebuild the dataset', async () => {
    const { world, r, server, disk } = setup({ 'aof-use-rdb-preamble': 'no' });
    await world.advanceAsync(100);
    expect(disk.readdir(DIR)).toContain('appendonly.aof.1.base.aof');
    expect(disk.stat(`${DIR}/appendonly.aof.1.base.aof`).size).toBe(0);
    await world.settle(r.call('RPUSH', 'l', 'x', 'y'));
    await world.settle(r.call('EXPIREAT', 'l', '4102444800'));
    await world.settle(r.call('BGREWRITEAOF'));
    const expected = rewriteAof(snapshotDatabases(server.server));
    await world.advanceAsync(500);
    expect(text(disk.readFile(`${DIR}/appendonly.aof.2.base.aof`))).toBe(expected);
    expect(expected).toBe(aofRecord(['SELECT', '0']) + aofRecord(['RPUSH', 'l', 'x', 'y']) + aofRecord(['PEXPIREAT', 'l', '4102444800000']));
  });

  it('without a preamble, a rewrite that cannot express a kept stream fails, and nothing is lost', async () => {
    const { world, r, disk, restart } = setup({ 'aof-use-rdb-preamble': 'no' });
    await world.advanceAsync(100);
    // redis-server 7.0.15's DUMP of a stream with one entry.
    const payload = Buffer.from('130110000000000000000100000000000000001c1c0000000a00010100010101816102000102010001000101010401ff0101000100000001000a0031f761e130b993e8', 'hex');
    expect(await world.settle(r.call('RESTORE', 's', '0', new Uint8Array(payload)))).toBe('OK');
    const base = text(disk.readFile(`${DIR}/appendonly.aof.1.base.aof`));
    await world.settle(r.call('BGREWRITEAOF'));
    await world.advanceAsync(500);
    expect(logOf(world)).toContain(
      "Can't rewrite the append only file as commands: key 's' in DB 0 holds a stream, kept as stored but with no commands to rebuild it here (aof-use-rdb-preamble yes writes it)",
    );
    expect(await infoField(world, r, 'aof_last_bgrewrite_status')).toBe('err');
    expect(text(disk.readFile(`${DIR}/appendonly.aof.1.base.aof`))).toBe(base);
    expect(disk.readdir(DIR).filter((f) => f.startsWith('temp-'))).toEqual([]);
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    restart();
    const again = world.connect({ from: 'app', to: 'A:6379' });
    await world.advanceAsync(100);
    expect(await world.settle(again.call('TYPE', 's'))).toBe('stream');
  });

  it('is scheduled while a BGSAVE runs, and BGSAVE next to a rewrite answers as 7.0.15 does', async () => {
    const { world, r } = setup();
    for (let i = 0; i < 50; i++) r.set(`k${i}`, 'v'.repeat(1000));
    await world.settle(r.bgsave());
    expect(await world.settle(r.call('BGREWRITEAOF'))).toBe('Background append only file rewriting scheduled');
    expect(await infoField(world, r, 'aof_rewrite_scheduled')).toBe('1');
    await world.advanceAsync(600);
    expect(await infoField(world, r, 'aof_rewrites')).toBe('1');
    expect(logOf(world)).toContain('Background AOF rewrite finished successfully');

    await world.settle(r.call('BGREWRITEAOF'));
    expect(await world.settle(r.bgsave().catch((e: Error) => e.message))).toBe(
      "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.",
    );
    expect(await world.settle(r.bgsave('SCHEDULE'))).toBe('Background saving scheduled');
    await world.advanceAsync(1000);
    expect(await infoField(world, r, 'rdb_saves')).toBe('2');
  });

  it('inside MULTI it is scheduled', async () => {
    const { world, r } = setup();
    await world.settle(r.call('MULTI'));
    await world.settle(r.call('BGREWRITEAOF'));
    expect(await world.settle(r.call('EXEC'))).toEqual(['Background append only file rewriting scheduled']);
    await world.advanceAsync(500);
    expect(await infoField(world, r, 'aof_rewrites')).toBe('1');
  });

  it('auto-aof-rewrite-percentage starts one from serverCron when the AOF has grown', async () => {
    const { world, r } = setup({ 'auto-aof-rewrite-min-size': '1000', 'auto-aof-rewrite-percentage': '100' });
    for (let i = 0; i < 40; i++) await world.settle(r.set(`k${i}`, 'x'.repeat(20)));
    await world.advanceAsync(1000);
    expect(logOf(world).some((l) => /^Starting automatic rewriting of AOF on \d+% growth$/.test(l))).toBe(true);
    expect(await infoField(world, r, 'aof_rewrites')).toBe('1');
  });

  it('on a full disk the new manifest cannot be written: the command fails at once', async () => {
    const { world, r, disk } = setup();
    await world.advanceAsync(100);
    disk.setFull(true);
    expect(await world.settle(r.call('BGREWRITEAOF').catch((e: Error) => e.message))).toBe(
      "ERR Can't execute an AOF background rewriting. Please check the server logs for more information.",
    );
    expect(logOf(world)).toContain('Error trying to write the temporary AOF manifest file temp-appendonly.aof.manifest: No space left on device');
    expect(await infoField(world, r, 'aof_last_bgrewrite_status')).toBe('err');
    expect(text(disk.readFile(MANIFEST))).toBe('file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n');
  });

  it('a manifest that cannot be synced fails the command after the thread waited for the disk', async () => {
    const { world, r, disk } = setup();
    await world.advanceAsync(100);
    disk.failNext('fsync', 1);
    expect(await world.settle(r.call('BGREWRITEAOF').catch((e: Error) => e.message))).toBe(
      "ERR Can't execute an AOF background rewriting. Please check the server logs for more information.",
    );
    expect(await infoField(world, r, 'aof_last_bgrewrite_status')).toBe('err');
    expect(await infoField(world, r, 'aof_rewrite_in_progress')).toBe('0');
    expect(await world.settle(r.call('BGREWRITEAOF'))).toBe('Background append only file rewriting started');
  });

  it('a child that cannot write its file fails the rewrite; three failures in a row hold automatic ones back', async () => {
    const { world, r, disk } = setup({ appendonly: 'no' });
    await world.settle(r.set('a', '1'));
    disk.setFull(true);
    for (let i = 0; i < 3; i++) {
      expect(await world.settle(r.call('BGREWRITEAOF'))).toBe('Background append only file rewriting started');
      await world.advanceAsync(300);
    }
    const log = logOf(world);
    expect(log.filter((l) => l === 'Write error writing append only file on disk: No space left on device')).toHaveLength(3);
    expect(log.filter((l) => l === 'Background AOF rewrite terminated with error')).toHaveLength(3);
    expect(await infoField(world, r, 'aof_rewrites_consecutive_failures')).toBe('3');
    expect(disk.readdir('/var/lib/redis')).toEqual(['appendonlydir']);
    await world.settle(r.call('CONFIG', 'SET', 'appendonly', 'yes'));
    await world.advanceAsync(500);
    // The switch-on rewrite failed too and is retried by serverCron, which now backs off.
    expect(logOf(world)).toContain('Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes');
  });

  it('a killed child fails the rewrite and leaves the AOF as it was', async () => {
    const { world, r, disk } = setup();
    for (let i = 0; i < 200; i++) r.set(`k${i}`, 'v'.repeat(2000));
    await world.settle(r.call('BGREWRITEAOF'));
    const child = [...world.host('A').processes.values()].find((p) => p.name === 'redis-aof-rewrite')!;
    child.signal('KILL');
    await world.advanceAsync(300);
    expect(logOf(world)).toContain('Background AOF rewrite terminated by signal 9');
    expect(await infoField(world, r, 'aof_last_bgrewrite_status')).toBe('err');
    expect(await infoField(world, r, 'aof_rewrites_consecutive_failures')).toBe('1');
    // The new incr file stays in the manifest; the old base and incr too.
    expect(text(disk.readFile(MANIFEST))).toBe(
      'file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n',
    );
    expect(disk.readdir('/var/lib/redis')).toEqual(['appendonlydir']);
  });
});

describe('CONFIG SET appendonly', () => {
  it('yes at runtime answers OK at once and switches on after a first rewrite', async () => {
    const { world, r, disk, restart } = setup({ appendonly: 'no' });
    await world.settle(r.set('a', '1'));
    expect(await world.settle(r.call('CONFIG', 'SET', 'appendonly', 'yes'))).toBe('OK');
    expect(await infoField(world, r, 'aof_enabled')).toBe('1');
    expect(await infoField(world, r, 'aof_rewrite_in_progress')).toBe('1');
    await world.settle(r.set('b', '2'));
    await world.advanceAsync(500);
    expect(disk.readdir(DIR)).toEqual(['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest']);
    expect(text(disk.readFile(MANIFEST))).toBe('file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n');
    expect(text(disk.readFile(INCR1))).toBe(aofRecord(['SELECT', '0']) + aofRecord(['set', 'b', '2']));
    const child = logOf(world).find((l) => l.startsWith('Background append only file rewriting started by pid'))!.split(' ').pop();
    expect(logSince(world, 'Ready to accept connections')).toEqual([
      'Creating AOF incr file temp-appendonly.aof.incr on background rewrite',
      `Background append only file rewriting started by pid ${child}`,
      `Successfully created the temporary AOF base file temp-rewriteaof-bg-${child}.aof`,
      'Background AOF rewrite terminated with success',
      `Successfully renamed the temporary AOF base file temp-rewriteaof-bg-${child}.aof into appendonly.aof.1.base.rdb`,
      'Successfully renamed the temporary AOF incr file temp-appendonly.aof.incr into appendonly.aof.1.incr.aof',
      'Background AOF rewrite finished successfully',
    ]);
    await world.settle(r.set('c', '3'));
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    restart({ appendonly: 'yes' });
    const r2 = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r2.call('MGET', 'a', 'b', 'c'))).toEqual(['1', '2', '3']);
  });

  it('yes while a BGSAVE runs schedules the rewrite', async () => {
    const { world, r } = setup({ appendonly: 'no' });
    for (let i = 0; i < 50; i++) r.set(`k${i}`, 'v'.repeat(1000));
    await world.settle(r.bgsave());
    await world.settle(r.call('CONFIG', 'SET', 'appendonly', 'yes'));
    expect(logOf(world)).toContain(
      'AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.',
    );
    expect(await infoField(world, r, 'aof_rewrite_scheduled')).toBe('1');
    await world.advanceAsync(800);
    expect(logOf(world)).toContain('Background AOF rewrite finished successfully');
  });

  it('no stops appending, and the files stay', async () => {
    const { world, r, disk } = setup({ appendfsync: 'everysec' });
    await world.settle(r.set('a', '1'));
    expect(await world.settle(r.call('CONFIG', 'SET', 'appendonly', 'no'))).toBe('OK');
    const size = disk.stat(INCR1).size;
    expect(disk.stat(INCR1).durableSize).toBe(size);
    await world.settle(r.set('b', '2'));
    await world.advanceAsync(200);
    expect(disk.stat(INCR1).size).toBe(size);
    expect(await infoField(world, r, 'aof_enabled')).toBe('0');
  });
});

describe('loading at start', () => {
  async function tornDir(loadTruncated: string) {
    const s = setup({ appendfsync: 'always' });
    await s.world.settle(s.r.set('a', '1'));
    await s.world.settle(s.r.set('b', '2'));
    await s.world.settle(s.r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await s.world.advanceAsync(100);
    const whole = s.disk.stat(INCR1).size;
    s.disk.appendFile(INCR1, Buffer.from(aofRecord(['set', 'c', '3']).slice(0, 9), 'latin1'));
    const proc = s.restart({ 'aof-load-truncated': loadTruncated });
    return { ...s, proc, whole };
  }

  it('a torn tail is cut and the rest loads when aof-load-truncated is yes', async () => {
    const { world, disk, proc, whole } = await tornDir('yes');
    expect(proc.alive).toBe(true);
    expect(disk.stat(INCR1).size).toBe(whole);
    const r = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r.call('MGET', 'a', 'b', 'c'))).toEqual(['1', '2', null]);
    expect(logSince(world, 'DB loaded from base file appendonly.aof.1.base.rdb: 0.000 seconds').slice(0, 4)).toEqual([
      '!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!',
      `!!! Truncating the AOF appendonly.aof.1.incr.aof at offset ${whole} !!!`,
      'AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled',
      'DB loaded from incr file appendonly.aof.1.incr.aof: 0.000 seconds',
    ]);
  });

  it('with aof-load-truncated no the server refuses to start, with Redis\'s message', async () => {
    const { world, proc } = await tornDir('no');
    expect(proc.alive).toBe(false);
    expect(proc.exitCode).toBe(1);
    expect(logOf(world).at(-1)).toBe(
      'Unexpected end of file reading the append only file appendonly.aof.1.incr.aof. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the \'aof-load-truncated\' configuration option to yes and restart the server.',
    );
  });

  it('a manifest naming a missing file stops the server', async () => {
    const { world, r, disk, restart } = setup();
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    disk.unlink(INCR1);
    const proc = restart();
    expect(proc.alive).toBe(false);
    expect(logOf(world).at(-1)).toBe('Unable to obtain the AOF file appendonly.aof.1.incr.aof length. stat: No such file or directory');
  });

  it('a damaged manifest stops the server with Redis\'s lines', async () => {
    const { world, r, disk, restart } = setup();
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    disk.writeFile(MANIFEST, Buffer.from('file appendonly.aof.1.base.rdb seq 1\n'));
    const proc = restart();
    expect(proc.alive).toBe(false);
    expect(logOf(world).slice(-4)).toEqual([
      '\n*** FATAL AOF MANIFEST FILE ERROR ***\n',
      'Reading the manifest file, at line 1\n',
      ">>> 'file appendonly.aof.1.base.rdb seq 1'\n",
      'Invalid AOF manifest file format\n',
    ]);
  });

  it('a transaction in the AOF is replayed whole, by a client that takes an id but is not counted', async () => {
    const { world, r, restart } = setup();
    await world.settle(r.multi().set('x', '1').incr('x').exec());
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    restart();
    const r2 = world.connect({ from: 'app', to: 'A:6379' });
    expect(await world.settle(r2.get('x'))).toBe('2');
    // ids 3 and 4 went to the AOF clients of the base and the incr file.
    expect(await world.settle(r2.call('CLIENT', 'ID'))).toBe(5);
    const stats = (await world.settle(r2.info('stats'))) as string;
    expect(stats).toContain('total_connections_received:1\r\n');
  });
});

describe('write errors', () => {
  it('a full disk stops writes with MISCONF until a write succeeds again', async () => {
    const { world, server, r, disk } = setup({ appendfsync: 'everysec' });
    // Redis logs both lines as warnings ('#'), as serverLog(LL_WARNING, ...) in aof.c does.
    const levels = new Map<string, string>();
    server.logListeners.push((level, line) => levels.set(line, level));
    await world.settle(r.set('a', '1'));
    disk.setFull(true);
    // The write that fails is already answered; the next ones are refused.
    expect(await world.settle(r.set('b', '2'))).toBe('OK');
    expect(await world.settle(r.set('c', '3').catch((e: Error) => e.message))).toBe('MISCONF Errors writing to the AOF file: No space left on device');
    expect(await world.settle(r.ping().catch((e: Error) => e.message))).toBe('MISCONF Errors writing to the AOF file: No space left on device');
    expect(await world.settle(r.get('a'))).toBe('1');
    expect(await infoField(world, r, 'aof_last_write_status')).toBe('err');
    expect(logOf(world)).toContain('Error writing to the AOF file: No space left on device');
    disk.setFull(false);
    await world.advanceAsync(1100);
    expect(logOf(world)).toContain('AOF write error looks solved, Redis can write again.');
    expect([levels.get('Error writing to the AOF file: No space left on device'), levels.get('AOF write error looks solved, Redis can write again.')]).toEqual([
      'warning',
      'warning',
    ]);
    expect(await world.settle(r.set('c', '3'))).toBe('OK');
    expect(await infoField(world, r, 'aof_last_write_status')).toBe('ok');
    expect(text(disk.readFile(INCR1)).endsWith(aofRecord(['set', 'b', '2']) + aofRecord(['set', 'c', '3']))).toBe(true);
  });

  it('a short write is taken back with ftruncate and reported', async () => {
    const { world, r, disk } = setup({ appendfsync: 'everysec' }, { capacityBytes: 2000 });
    await world.settle(r.set('big', 'x'.repeat(3000)));
    const expected = aofRecord(['SELECT', '0']).length + aofRecord(['set', 'big', 'x'.repeat(3000)]).length;
    const log = logOf(world);
    expect(log.some((l) => new RegExp(`^Short write while writing to the AOF file: \\(nwritten=\\d+, expected=${expected}\\)$`).test(l))).toBe(true);
    expect(disk.stat(INCR1).size).toBe(0);
    expect(await world.settle(r.set('c', '3').catch((e: Error) => e.message))).toBe('MISCONF Errors writing to the AOF file: No space left on device');
  });

  it('with appendfsync always a failed write ends the server before any reply leaves', async () => {
    const { world, r, server, disk } = setup({ appendfsync: 'always' });
    await world.settle(r.set('a', '1'));
    disk.setFull(true);
    const reply = r.set('b', '2').then(
      () => 'answered',
      () => 'connection lost',
    );
    expect(await world.settle(reply)).toBe('connection lost');
    expect(server.alive).toBe(false);
    expect(logOf(world)).toContain("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...");
  });

  it('a failed background fsync is reported and stops writes until one succeeds', async () => {
    const { world, r, disk } = setup({ appendfsync: 'everysec' });
    await world.advanceAsync(1100);
    disk.failNext('fsync');
    await world.settle(r.set('a', '1'));
    await world.advanceAsync(50);
    expect(logOf(world)).toContain('Fail to fsync the AOF file: Input/output error');
    expect(await world.settle(r.set('b', '2').catch((e: Error) => e.message))).toBe('MISCONF Errors writing to the AOF file: Input/output error');
  });
});

describe('shutdown', () => {
  it('SHUTDOWN writes and syncs the AOF', async () => {
    const { world, r, disk } = setup({ appendfsync: 'no' });
    await world.settle(r.set('a', '1'));
    expect(disk.stat(INCR1).durableSize).toBe(0);
    await world.settle(r.call('SHUTDOWN', 'NOSAVE').catch(() => null));
    await world.advanceAsync(100);
    expect(logOf(world)).toContain('Calling fsync() on the AOF file.');
    expect(disk.stat(INCR1).durableSize).toBe(disk.stat(INCR1).size);
  });

  it('the process exits only once the final fsync is done, so a power loss right after loses nothing', async () => {
    const { world, r, disk, server } = setup({ appendfsync: 'no' }, { fsyncUs: 40_000 });
    for (let i = 0; i < 20; i++) await world.settle(r.set(`k${i}`, String(i)));
    const asked = world.kernel.now;
    let exitedAt = -1;
    server.exitListeners.push(() => (exitedAt = world.kernel.now));
    void r.call('SHUTDOWN', 'NOSAVE').catch(() => null);
    world.runUntil(() => exitedAt >= 0, { maxMs: 1000 });
    expect(exitedAt - asked).toBeGreaterThanOrEqual(40_000);
    world.powerOff('A');
    world.powerOn('A');
    const restarted = world.startRedis('A', { config: { save: '', appendonly: 'yes' } });
    await world.advanceAsync(100);
    expect(restarted.server.dbs[0]!.size).toBe(20);
    expect(disk.stat(INCR1).durableSize).toBe(disk.stat(INCR1).size);
  });
});

describe('DEBUG LOADAOF', () => {
  it('empties the dataset and loads it back from the AOF files', async () => {
    const { World } = await import('../../../emulator/world/world.js');
    const world = new World({ seed: 4 });
    world.addHost('A', 'metal');
    world.startRedis('A', { config: { appendonly: 'yes', save: '', 'enable-debug-command': 'yes' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    await world.settle(r.set('a', '1'));
    await world.settle(r.rpush('l', 'x', 'y'));
    expect(await world.settle(r.call('DEBUG', 'LOADAOF'))).toBe('OK');
    expect(await world.settle(r.get('a'))).toBe('1');
    expect(await world.settle(r.lrange('l', 0, -1))).toEqual(['x', 'y']);
    expect(world.trace.find('log', 'A').map((e) => e.text)).toContain('Append Only File loaded by DEBUG LOADAOF');
  });
});

describe('SHUTDOWN while the first AOF is written', () => {
  it('refuses without FORCE, exits with it', async () => {
    const { World } = await import('../../../emulator/world/world.js');
    const world = new World({ seed: 4 });
    world.addHost('A', 'core2duo');
    const server = world.startRedis('A', { config: { save: '', 'enable-debug-command': 'yes', rdbcompression: 'no' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    await world.settle(r.call('DEBUG', 'POPULATE', '100000', 'key', '100'));
    expect(await world.settle(r.config('SET', 'appendonly', 'yes'))).toBe('OK');
    const refused = await world.settle(r.call('SHUTDOWN').catch((e: Error) => e.message));
    expect(refused).toBe('ERR Errors trying to SHUTDOWN. Check logs.');
    expect(server.alive).toBe(true);
    expect(world.trace.find('log', 'A').map((e) => e.text)).toContain("Writing initial AOF, can't exit.");
    await world.settle(r.call('SHUTDOWN', 'NOSAVE', 'FORCE').catch(() => null));
    await world.advanceAsync(50);
    expect(server.alive).toBe(false);
  });
});
