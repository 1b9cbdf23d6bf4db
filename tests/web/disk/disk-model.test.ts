import { describe, expect, it } from 'vitest';
import { AofEntryReader, RdbRecordReader, type AofEntry, type AofReaderState, type RdbReaderState, type RdbRecord } from '../../../emulator/persistence/inspect/index.js';
import { writeRdb } from '../../../emulator/persistence/rdb/index.js';
import { millionKeyRdb, PLAIN_RDB } from '../../support/big-files.js';
import { registerShellProgram } from '../../../emulator/programs/shell.js';
import { World } from '../../../emulator/world/world.js';
import { clusterView } from '../../../src/web/cluster/cluster-view.js';
import { applyFault } from '../../../src/web/cluster/faults.js';
import { diskFiles, formatBytes } from '../../../src/web/disk/disk-view.js';
import { downloadName } from '../../../src/web/download.js';
import { AofSummary, RdbSummary } from '../../../src/web/disk/file-summaries.js';
import { openFile } from '../../../src/web/disk/opened-file.js';
import { aofRow, commandText, rdbRow, ttlText } from '../../../src/web/disk/record-rows.js';
import { RecordPager } from '../../../src/web/disk/record-pager.js';
import { pageText } from '../../../src/web/disk/text-view.js';
import { planUpload, uploadFiles } from '../../../src/web/disk/upload.js';
import { installWorkbookPrograms } from '../../../src/web/world-programs.js';
import { storeHarness } from '../store-harness.js';

async function sandbox() {
  const h = storeHarness();
  const t = h.open();
  await h.run(50);
  const send = async (...lines: string[]) => {
    for (const line of lines) h.store.sendLine(t.id, line);
    await h.run(300);
  };
  const files = (host = 'redis') => clusterView(h.store.world).hosts.find((x) => x.name === host)!.files.files;
  return { h, t, send, files };
}

describe('the disk view', () => {
  it("lists each host's files with what is durable and what only the page cache holds", async () => {
    const { h, send, files } = await sandbox();
    expect(files().map((f) => f.path)).toEqual(['/etc/redis/redis.conf']);
    await send('CONFIG SET appendonly yes', 'CONFIG SET appendfsync no');
    await h.run(500);
    await send('SET a 1', 'SET b 2');
    const incr = () => files().find((f) => f.path === '/var/lib/redis/appendonlydir/appendonly.aof.1.incr.aof')!;
    // appendfsync no: written to the page cache at once, left for the kernel to write back.
    expect(incr()).toMatchObject({ survivesPowerLoss: true });
    const before = incr();
    expect(before.cachedBytes).toBeGreaterThan(0);
    expect(before.durableBytes + before.cachedBytes).toBe(before.size);
    expect(before.sizeAfterPowerLoss).toBe(before.durableBytes);
    // Linux writes back data older than 30 s.
    h.store.setSpeed(100);
    await h.run(500);
    expect(incr()).toMatchObject({ cachedBytes: 0, durableBytes: before.size, sizeAfterPowerLoss: before.size });
    expect(files('app')).toEqual([]);
  });

  it('counts a file whose name is not synced yet as lost whole to a power loss', () => {
    const world = new World({ seed: 1 });
    world.addHost('A');
    const disk = world.host('A').disk;
    disk.mkdir('/tmp', { recursive: true });
    disk.writeFile('/tmp/new', new Uint8Array(10));
    expect(diskFiles(disk).files).toEqual([
      expect.objectContaining({ path: '/tmp/new', size: 10, durableBytes: 0, cachedBytes: 10, survivesPowerLoss: false, sizeAfterPowerLoss: 0 }),
    ]);
  });

  it('copies a file out with how much of it is durable, and reading it changes nothing in the world', async () => {
    const { h, send } = await sandbox();
    await send('CONFIG SET appendonly yes', 'CONFIG SET appendfsync no');
    await h.run(500);
    await send('SET a 1');
    const world = h.store.world;
    const hash = world.trace.hash();
    const f = openFile(world, 'redis', '/var/lib/redis/appendonlydir/appendonly.aof.1.incr.aof');
    expect(world.trace.hash()).toBe(hash);
    expect(f.kind).toBe('aof');
    // Nothing of the incremental file is synced yet: a power loss now would leave it empty.
    const entries: AofEntry[] = [];
    const reader = new AofEntryReader(f.bytes);
    for (let e = reader.next(); e !== null; e = reader.next()) entries.push(e);
    const summary = new AofSummary(f.durableLength);
    entries.forEach((e, i) => summary.add(e, i));
    expect(entries.map((e) => (e.kind === 'command' ? e.argv.join(' ') : e.kind))).toEqual(['SELECT 0', 'SET a 1']);
    expect(f.durableLength).toBe(0);
    expect(summary.firstUnsynced).toEqual({ index: 0, entry: entries[0] });
    expect(() => openFile(world, 'redis', '/var/lib/redis')).toThrow('/var/lib/redis is a directory');
    expect(() => openFile(world, 'redis', '/nope')).toThrow();
  });
});

describe('record pages', () => {
  function aofOf(n: number): Uint8Array {
    let s = '';
    for (let i = 0; i < n; i++) s += `*3\r\n$3\r\nSET\r\n$${String(i).length}\r\n${i}\r\n$1\r\nv\r\n`;
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  }

  it('reads any page once its start is known, the same from the scan as from the pages before', () => {
    const bytes = aofOf(1000);
    const all: AofEntry[] = [];
    const reader = new AofEntryReader(bytes);
    for (let e = reader.next(); e !== null; e = reader.next()) all.push(e);
    const open = (from: AofReaderState | null) => new AofEntryReader(bytes, from);
    const walked = new RecordPager(open, 300);
    expect(walked.page(0)).toEqual(all.slice(0, 300));
    expect(walked.page(2)).toBeNull();
    expect(walked.page(1)).toEqual(all.slice(300, 600));
    expect(walked.page(2)).toEqual(all.slice(600, 900));
    expect(walked.page(3)).toEqual(all.slice(900));
    expect(walked.totalPages).toBeNull();

    const seen: number[] = [];
    const scanned = new RecordPager(open, 300, (_, i) => seen.push(i));
    let slices = 0;
    // Each slice stops when the caller says so: here after one look at the clock.
    while (!scanned.scan(() => slices++ % 2 === 0));
    expect(slices).toBeGreaterThan(10);
    expect(seen).toEqual([...all.keys()]);
    expect(scanned.totalPages).toBe(4);
    expect(scanned.page(3)).toEqual(all.slice(900));
  });

  it('shows the first page of an RDB of a million keys at once, and scans the rest in short slices', () => {
    const bytes = millionKeyRdb();
    const summary = new RdbSummary();
    const pager = new RecordPager((from: RdbReaderState | null) => new RdbRecordReader(bytes, from), 100, (r: RdbRecord) => summary.add(r));
    // The first page reads its records and no more; the scan stops whenever the page says so (here after
    // every fifth look, so each slice is a few batches of records). What a slice costs in milliseconds is
    // measured by npm run bench -- web.
    let read = 0;
    const counting = new RecordPager((from: RdbReaderState | null) => new RdbRecordReader(bytes, from), 100, () => read++);
    const first = counting.page(0)!;
    expect(first.filter((r) => r.kind === 'key')).toHaveLength(100 - 8);
    expect(read).toBe(0);
    let looks = 0;
    let slices = 0;
    for (;;) {
      slices++;
      if (pager.scan(() => ++looks % 5 !== 0)) break;
    }
    expect(slices).toBeGreaterThan(100);
    expect(summary.keys).toBe(1_000_000);
    expect(summary.dbs.get(0)).toEqual({ keys: 1_000_000, expires: 0 });
    expect(summary.end).toMatchObject({ kind: 'eof', end: bytes.length });
    const last = pager.page(pager.totalPages! - 1)!;
    expect(last[last.length - 1]).toMatchObject({ kind: 'eof' });
  });
});

describe('a 100 MB AOF', () => {
  it('shows its first page at once and scans it in short slices, finding its torn tail', () => {
    // 1,400,000 commands of 75 bytes each, then a command cut short.
    const one = (i: number) => `*3\r\n$3\r\nSET\r\n$11\r\nkey:${String(i).padStart(7, '0')}\r\n$40\r\n${'v'.repeat(40)}\r\n`;
    const n = 1_400_000;
    const size = one(0).length;
    const bytes = new Uint8Array(n * size + 20);
    for (let i = 0; i < n; i++) {
      const c = one(i);
      for (let j = 0; j < size; j++) bytes[i * size + j] = c.charCodeAt(j);
    }
    bytes.set(Uint8Array.from(one(n).slice(0, 20), (c) => c.charCodeAt(0)), n * size);
    expect(bytes.length).toBeGreaterThan(100_000_000);
    const summary = new AofSummary(bytes.length - 1000);
    const pager = new RecordPager((from: AofReaderState | null) => new AofEntryReader(bytes, from), 100, (e: AofEntry, i: number) => summary.add(e, i));
    expect(pager.page(0)!.map((e) => (e.kind === 'command' ? e.argv[1] : e.kind)).slice(0, 2)).toEqual(['key:0000000', 'key:0000001']);
    expect(summary.commands).toBe(0);
    // The scan goes in slices as short as the page asks for (the milliseconds are npm run bench -- web's).
    let looks = 0;
    let slices = 0;
    for (;;) {
      slices++;
      if (pager.scan(() => ++looks % 5 !== 0)) break;
    }
    expect(slices).toBeGreaterThan(100);
    expect(summary.commands).toBe(n);
    expect(summary.end).toEqual({ kind: 'torn', offset: n * size, end: bytes.length });
    // The last 1000 bytes are not on the disk: the tail starts at the command they fall in.
    expect(summary.firstUnsynced?.index).toBe(Math.floor((bytes.length - 1000) / size));
    const last = pager.page(pager.totalPages! - 1)!;
    expect(last[last.length - 1]).toEqual({ kind: 'torn', offset: n * size, end: bytes.length });
  });
});

describe('record rows', () => {
  it('quote keys, values and arguments as redis-cli does, so markup and escapes stay text', () => {
    const key: RdbRecord = {
      kind: 'key',
      offset: 10,
      end: 60,
      db: 0,
      key: '<img src=x onerror=alert(1)>',
      typeCode: 0,
      rdbType: 'RDB_TYPE_STRING',
      type: 'string',
      encoding: 'raw',
      empty: false,
      expireAtMs: 1767225660000,
      value: { size: 9, preview: '"\\x1b[31mred\\x00"' },
    };
    expect(rdbRow(key, 1767225600000)).toMatchObject({
      tag: 'key',
      text: '"<img src=x onerror=alert(1)>"',
      detail: 'string · raw · expires in 60 s (2026-01-01T00:01:00Z) · "\\x1b[31mred\\x00"',
    });
    expect(commandText(['SET', '<img src=x onerror=alert(1)>', '\x1b[31mred\x00', 'plain'])).toBe('SET "<img src=x onerror=alert(1)>" "\\x1b[31mred\\x00" plain');
    const torn = aofRow({ kind: 'torn', offset: 0, end: 12 }, Uint8Array.from('*3\r\n$3\r\nSET\r\n', (c) => c.charCodeAt(0)), 0);
    expect(torn).toMatchObject({ tag: 'torn', tone: 'bad', text: 'torn command: the file ends 12 bytes into it: "*3\\r\\n$3\\r\\nSET\\r"' });
    expect(ttlText(1000, 61_000)).toBe('expired 60 s ago (1970-01-01T00:00:01Z)');
  });
});

describe('text pages', () => {
  it('show control characters in caret notation, carriage returns too, and split where the durable bytes end', () => {
    const bytes = Uint8Array.from('port 6379\r\n\x1b[31mred\x00\ncaf\xc3\xa9\n', (c) => c.charCodeAt(0));
    expect(pageText(bytes, 0, 11)).toEqual({ synced: 'port 6379^M\n', unsynced: '^[[31mred^@\ncafé\n' });
    // A later page: the durable length counts from the file's start.
    expect(pageText(bytes.subarray(11), 11, 11)).toEqual({ synced: '', unsynced: '^[[31mred^@\ncafé\n' });
  });
});

describe('downloads and uploads', () => {
  it('name a download after the file, without separators or control characters', () => {
    expect(downloadName('dump.rdb')).toBe('dump.rdb');
    expect(downloadName('caf\xc3\xa9\x1b.rdb')).toBe('café_.rdb');
    expect(downloadName('..')).toBe('file');
  });

  it('plan where uploaded files go, refusing names that climb out of the directory', () => {
    const bytes = new Uint8Array(1);
    expect(planUpload('/var/lib/redis', [{ relativePath: 'appendonlydir/appendonly.aof.manifest', bytes }])).toEqual({
      files: [{ path: '/var/lib/redis/appendonlydir/appendonly.aof.manifest', bytes }],
    });
    expect(planUpload('/var/lib/redis/', [{ relativePath: 'café.rdb', bytes }])).toEqual({ files: [{ path: '/var/lib/redis/caf\xc3\xa9.rdb', bytes }] });
    expect(planUpload('var/lib', [{ relativePath: 'dump.rdb', bytes }])).toHaveProperty('error');
    expect(planUpload('/tmp', [{ relativePath: '../etc/passwd', bytes }])).toEqual({ error: 'cannot use the name "../etc/passwd"' });
  });

  it('upload a real file in recorded pieces that a checkpoint replays, synced once complete', async () => {
    const { h, send } = await sandbox();
    const big = new Uint8Array(70_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const plan = planUpload('/var/lib/redis', [
      { relativePath: 'appendonlydir/blob.bin', bytes: big },
      { relativePath: 'empty', bytes: new Uint8Array(0) },
    ]);
    if (!('files' in plan)) throw new Error(plan.error);
    const progress: number[] = [];
    const out = await uploadFiles(h.store, 'redis', plan.files, { chunkBytes: 32_000, pause: () => h.run(16), onProgress: (d) => progress.push(d) });
    expect(out).toEqual({ ok: true, files: 2, bytes: 70_000 });
    expect(progress).toEqual([32_000, 64_000, 70_000, 70_000]);
    await send('PING');
    const disk = h.store.world.host('redis').disk;
    expect(disk.readFile('/var/lib/redis/appendonlydir/blob.bin')).toEqual(big);
    expect(disk.stat('/var/lib/redis/appendonlydir/blob.bin')).toMatchObject({ durableSize: 70_000, dirtyBytes: 0 });
    const copy = World.restore(h.store.world.checkpoint(), (w) => {
      registerShellProgram(w);
      installWorkbookPrograms(w);
    });
    expect(copy.host('redis').disk.readFile('/var/lib/redis/appendonlydir/blob.bin')).toEqual(big);
    expect(copy.host('redis').disk.readFile('/var/lib/redis/empty')).toEqual(new Uint8Array(0));

    applyFault(h.store, { kind: 'power-loss', host: 'redis' });
    expect(await uploadFiles(h.store, 'redis', plan.files)).toEqual({ ok: false, message: 'upload of /var/lib/redis/appendonlydir/blob.bin stopped: redis is powered off' });
  });

  it('loads an uploaded dump.rdb when redis-server starts again', async () => {
    const { h, t, send } = await sandbox();
    const rdb = writeRdb([{ id: 0, size: 1, expiresSize: 0, keys: [{ key: 'uploaded', value: 'yes' }] }], PLAIN_RDB);
    const pid = clusterView(h.store.world).hosts[0]!.servers[0]!.pid;
    applyFault(h.store, { kind: 'kill', host: 'redis', pid });
    const plan = planUpload('/var/lib/redis', [{ relativePath: 'dump.rdb', bytes: rdb }]);
    if (!('files' in plan)) throw new Error(plan.error);
    expect((await uploadFiles(h.store, 'redis', plan.files, { pause: () => h.run(16) })).ok).toBe(true);
    applyFault(h.store, { kind: 'start-redis', host: 'redis', port: 6379 });
    await h.run(300);
    // The terminal reconnects on its next command.
    await send('GET uploaded', 'GET uploaded');
    expect(t.lines()).toContain('"yes"');
  });
});

describe('sizes', () => {
  it('read at a glance', () => {
    expect([0, 1023, 1024, 1536, 10 * 1024 * 1024, 3.4 * 1024 ** 3].map(formatBytes)).toEqual(['0 B', '1023 B', '1.0 KB', '1.5 KB', '10 MB', '3.4 GB']);
  });
});
