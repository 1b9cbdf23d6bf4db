import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../emulator/sim/kernel.js';
import { DISK_PROFILES, Disk, DiskError, type DiskProfile } from '../../../emulator/sim/disk.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);
const text = (u: Uint8Array | null): string | null => (u === null ? null : dec.decode(u));

function world(profile: DiskProfile = DISK_PROFILES.hdd, seed = 1): { kernel: Kernel; disk: Disk } {
  const kernel = new Kernel({ seed });
  return { kernel, disk: new Disk(kernel, 'h1', profile) };
}

/** The error `fn` throws, checked to be a DiskError. */
function diskError(fn: () => unknown): DiskError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DiskError);
    return e as DiskError;
  }
  throw new Error('expected a DiskError');
}

function fsyncNow(kernel: Kernel, disk: Disk, fd: number): DiskError | null | 'pending' {
  let result: DiskError | null | 'pending' = 'pending';
  disk.fsync(fd, (err) => (result = err));
  kernel.runUntil(() => result !== 'pending', { maxMs: 1000 });
  return result;
}

describe('paths and directories', () => {
  it('normalises ., .. and duplicate slashes; .. at the root stays at the root', () => {
    const { disk } = world();
    disk.mkdir('/var//lib/./redis/../redis', { recursive: true });
    expect(disk.readdir('/var/lib')).toEqual(['redis']);
    expect(disk.exists('/../var/lib/redis/')).toBe(true);
    expect(disk.readdir('/')).toEqual(['var']);
    expect(() => disk.readdir('var')).toThrow(TypeError);
  });

  it('mkdir, readdir and rmdir report errors like Linux', () => {
    const { disk } = world();
    expect(diskError(() => disk.mkdir('/a/b')).code).toBe('ENOENT');
    disk.mkdir('/a');
    expect(diskError(() => disk.mkdir('/a')).code).toBe('EEXIST');
    disk.mkdir('/a', { recursive: true });
    disk.writeFile('/a/f', b('x'));
    expect(diskError(() => disk.mkdir('/a/f/g', { recursive: true })).code).toBe('ENOTDIR');
    expect(diskError(() => disk.mkdir('/a/f', { recursive: true })).code).toBe('EEXIST');
    expect(diskError(() => disk.readdir('/a/f')).code).toBe('ENOTDIR');
    expect(diskError(() => disk.readdir('/nope')).code).toBe('ENOENT');
    expect(diskError(() => disk.rmdir('/a')).code).toBe('ENOTEMPTY');
    expect(diskError(() => disk.rmdir('/a/f')).code).toBe('ENOTDIR');
    expect(diskError(() => disk.rmdir('/')).code).toBe('EBUSY');
    disk.writeFile('/a/c', b(''));
    disk.mkdir('/a/b');
    expect(disk.readdir('/a')).toEqual(['b', 'c', 'f']);
    disk.rmdir('/a/b');
    expect(disk.readdir('/a')).toEqual(['c', 'f']);
  });

  it('errors carry strerror texts, the call and the path', () => {
    const { disk } = world();
    const e = diskError(() => disk.open('/missing', 'r'));
    expect(e.message).toBe('No such file or directory');
    expect(e.code).toBe('ENOENT');
    expect(e.syscall).toBe('open');
    expect(e.path).toBe('/missing');
    expect(e).toBeInstanceOf(Error);
    disk.mkdir('/d');
    disk.writeFile('/d/f', b('x'));
    expect(diskError(() => disk.open('/d/f', 'wx')).message).toBe('File exists');
    expect(diskError(() => disk.open('/d/f/g', 'w')).message).toBe('Not a directory');
    expect(diskError(() => disk.open('/d', 'w')).message).toBe('Is a directory');
    expect(diskError(() => disk.rmdir('/d')).message).toBe('Directory not empty');
    expect(diskError(() => disk.close(99)).message).toBe('Bad file descriptor');
    disk.setFull(true);
    expect(diskError(() => disk.appendFile('/d/f', b('y'))).message).toBe('No space left on device');
    disk.setFull(false);
    disk.failNext('write');
    expect(diskError(() => disk.appendFile('/d/f', b('y'))).message).toBe('Input/output error');
  });
});

describe('handles', () => {
  it('open flags: r needs the file, wx refuses it, w truncates, a appends', () => {
    const { disk } = world();
    expect(diskError(() => disk.open('/f', 'r')).code).toBe('ENOENT');
    expect(diskError(() => disk.open('/f', 'r+')).code).toBe('ENOENT');
    const fd = disk.open('/f', 'wx');
    disk.write(fd, b('hello'));
    disk.close(fd);
    const a = disk.open('/f', 'a');
    disk.write(a, b(' world'));
    disk.close(a);
    expect(text(disk.readFile('/f'))).toBe('hello world');
    const w = disk.open('/f', 'w');
    expect(disk.stat('/f').size).toBe(0);
    disk.write(w, b('new'));
    disk.close(w);
    const rw = disk.open('/f', 'r+');
    disk.write(rw, b('N'));
    expect(text(disk.read(rw, 10))).toBe('ew');
    expect(text(disk.read(rw, 10, 0))).toBe('New');
    disk.close(rw);
  });

  it('read-only and write-only handles refuse the other direction with EBADF', () => {
    const { disk } = world();
    disk.writeFile('/f', b('abc'));
    const r = disk.open('/f', 'r');
    expect(diskError(() => disk.write(r, b('x'))).code).toBe('EBADF');
    const w = disk.open('/f', 'a');
    expect(diskError(() => disk.read(w, 1)).code).toBe('EBADF');
    disk.close(r);
    disk.close(w);
    expect(diskError(() => disk.close(r)).code).toBe('EBADF');
    expect(diskError(() => disk.write(w, b('x'))).code).toBe('EBADF');
  });

  it('a directory opens read-only; reading it is EISDIR', () => {
    const { disk } = world();
    disk.mkdir('/d');
    const fd = disk.open('/d', 'r');
    expect(diskError(() => disk.read(fd, 1)).code).toBe('EISDIR');
    expect(diskError(() => disk.open('/d', 'a')).code).toBe('EISDIR');
    expect(diskError(() => disk.readFile('/d')).code).toBe('EISDIR');
    expect(diskError(() => disk.unlink('/d')).code).toBe('EISDIR');
    disk.close(fd);
  });

  it('descriptors are never reused', () => {
    const { disk } = world();
    const a = disk.open('/a', 'w');
    disk.close(a);
    const c = disk.open('/c', 'w');
    expect(c).toBeGreaterThan(a);
    expect(a).toBe(3);
  });

  it('an unlinked open file stays usable and takes space until closed', () => {
    const { disk } = world();
    const fd = disk.open('/f', 'w');
    disk.write(fd, b('12345'));
    disk.unlink('/f');
    expect(disk.exists('/f')).toBe(false);
    disk.write(fd, b('678'));
    expect(disk.usedBytes).toBe(8);
    expect(disk.fstat(fd).size).toBe(8);
    disk.close(fd);
    expect(disk.usedBytes).toBe(0);
  });
});

describe('the process buffer', () => {
  it('holds writes until flush; readers and fsync do not see it', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'w', 42, { bufferBytes: 16 });
    disk.write(fd, b('abc'));
    expect(disk.stat('/f')).toMatchObject({ size: 0, bufferedBytes: 3, dirtyBytes: 0 });
    expect(text(disk.readFile('/f'))).toBe('');
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    expect(disk.stat('/f').durableSize).toBe(0);
    disk.flush(fd);
    expect(disk.stat('/f')).toMatchObject({ size: 3, bufferedBytes: 0, dirtyBytes: 3 });
    disk.close(fd);
  });

  it('spills to the page cache when full, and close flushes it', () => {
    const { disk } = world();
    const fd = disk.open('/f', 'w', 1, { bufferBytes: 8 });
    disk.write(fd, b('12345'));
    disk.write(fd, b('6789'));
    // The first five bytes were flushed to make room; the next four wait.
    expect(disk.stat('/f')).toMatchObject({ size: 5, bufferedBytes: 4 });
    disk.write(fd, b('abcdefghij'));
    // A write as large as the buffer goes straight through, after the buffered bytes.
    expect(text(disk.readFile('/f'))).toBe('123456789abcdefghij');
    disk.write(fd, b('Z'));
    disk.close(fd);
    expect(text(disk.readFile('/f'))).toBe('123456789abcdefghijZ');
  });

  it('a handle reading its own file sees its buffered writes', () => {
    const { disk } = world();
    disk.writeFile('/f', b('.....!'));
    const fd = disk.open('/f', 'r+', 1, { bufferBytes: 64 });
    disk.write(fd, b('hello'));
    expect(text(disk.read(fd, 6, 0))).toBe('hello!');
    disk.close(fd);
  });
});

describe('crashes', () => {
  it('kill -9 loses the process buffer but keeps the page cache', () => {
    const { kernel, disk } = world();
    const raw = disk.open('/aof', 'a', 7);
    const buffered = disk.open('/rdb', 'w', 7, { bufferBytes: 4096 });
    disk.write(raw, b('SET k v\r\n'));
    disk.write(buffered, b('REDIS0010'));
    disk.killProcess(7);
    expect(text(disk.readFile('/aof'))).toBe('SET k v\r\n');
    expect(text(disk.readFile('/rdb'))).toBe('');
    expect(diskError(() => disk.write(raw, b('x'))).code).toBe('EBADF');
    expect(kernel.trace.find('kill', 'h1')[0]!.text).toBe('process 7: 2 files closed, 9 buffered bytes lost');
  });

  it('kill -9 leaves other processes alone', () => {
    const { disk } = world();
    const mine = disk.open('/a', 'w', 1, { bufferBytes: 64 });
    const theirs = disk.open('/b', 'w', 2, { bufferBytes: 64 });
    disk.write(mine, b('mine'));
    disk.write(theirs, b('theirs'));
    disk.killProcess(1);
    disk.close(theirs);
    expect(text(disk.readFile('/b'))).toBe('theirs');
  });

  it('power loss loses what was only in the page cache', () => {
    const { kernel, disk } = world();
    disk.mkdir('/data');
    const fd = disk.open('/data/aof', 'a', 1);
    disk.write(fd, b('one\n'));
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    disk.write(fd, b('two\n'));
    disk.writeFile('/data/new', b('never synced'));
    disk.powerLoss();
    expect(disk.readdir('/data')).toEqual(['aof']);
    expect(text(disk.readFile('/data/aof'))).toMatch(/^one\n(t(w(o(\n)?)?)?)?$/);
    expect(diskError(() => disk.write(fd, b('x'))).code).toBe('EBADF');
    expect(kernel.trace.find('power-loss', 'h1')).toHaveLength(1);
  });

  it('fsync then power loss keeps the data', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/aof', 'a', 1);
    disk.write(fd, b('SET a 1\r\n'));
    disk.write(fd, b('SET b 2\r\n'));
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    disk.powerLoss();
    expect(text(disk.readFile('/aof'))).toBe('SET a 1\r\nSET b 2\r\n');
    expect(kernel.trace.find('torn-write')).toHaveLength(0);
  });

  it('files and directories never made durable vanish', () => {
    const { disk } = world();
    disk.mkdir('/a/b', { recursive: true });
    disk.writeFile('/a/b/f', b('x'));
    disk.powerLoss();
    expect(disk.readdir('/')).toEqual([]);
    expect(disk.usedBytes).toBe(0);
  });

  it('a pending fsync never completes after a power loss', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'w', 1);
    disk.write(fd, b('data'));
    let called = false;
    disk.fsync(fd, () => (called = true));
    kernel.advance(1);
    disk.powerLoss();
    kernel.advance(100);
    expect(called).toBe(false);
    expect(disk.exists('/f')).toBe(false);
  });

  it('the fsync of a killed process still completes, without its callback', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'w', 9);
    disk.write(fd, b('data'));
    let called = false;
    disk.fsync(fd, () => (called = true));
    disk.killProcess(9);
    kernel.advance(10);
    expect(called).toBe(false);
    disk.powerLoss();
    expect(text(disk.readFile('/f'))).toBe('data');
  });
});

describe('torn writes', () => {
  /** Appends two synced commands and one unsynced one, then pulls the plug. */
  function tear(seed: number): string {
    const { kernel, disk } = world(DISK_PROFILES.hdd, seed);
    const fd = disk.open('/aof', 'a', 1);
    disk.write(fd, b('*1\r\n$4\r\nPING\r\n'));
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    disk.write(fd, b('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n'));
    disk.fsync(fd, () => {});
    kernel.advance(2);
    disk.powerLoss();
    return text(disk.readFile('/aof'))!;
  }

  it('the same seed tears the last write at the same length', () => {
    for (const seed of [1, 2, 3]) expect(tear(seed)).toBe(tear(seed));
  });

  it('the torn part is a prefix of the last write, and seeds differ in its length', () => {
    const full = '*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n';
    const lengths = new Set<number>();
    for (let seed = 1; seed <= 12; seed++) {
      const got = tear(seed);
      expect(full.startsWith(got)).toBe(true);
      expect(got.length).toBeGreaterThanOrEqual(14);
      lengths.add(got.length);
    }
    expect(lengths.size).toBeGreaterThan(1);
  });

  it('reports the tear in the trace', () => {
    const { kernel, disk } = world(DISK_PROFILES.ssd, 5);
    const fd = disk.open('/aof', 'a', 1);
    disk.write(fd, b('0123456789'));
    disk.powerLoss();
    const line = kernel.trace.find('torn-write', 'h1');
    // The file was never durable, so nothing of it (or its name) survives.
    expect(line).toHaveLength(0);
    expect(disk.exists('/aof')).toBe(false);
  });

  it('an unsynced write after other unsynced writes is lost whole', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/aof', 'a', 1);
    disk.write(fd, b('durable;'));
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    disk.write(fd, b('first;'));
    disk.write(fd, b('second;'));
    disk.powerLoss();
    expect(text(disk.readFile('/aof'))).toBe('durable;');
    expect(kernel.trace.find('torn-write')).toHaveLength(0);
  });

  it('a tear into a durable file is traced with the bytes kept', () => {
    const { kernel, disk } = world(DISK_PROFILES.hdd, 3);
    const fd = disk.open('/aof', 'a', 1);
    disk.write(fd, b('head;'));
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    disk.write(fd, b('0123456789'));
    disk.powerLoss();
    const kept = disk.stat('/aof').size - 5;
    expect(kernel.trace.find('torn-write', 'h1')[0]!.text).toBe(
      `/aof: ${kept} of 10 bytes of the last write at offset 5 reached the disk`,
    );
    expect(disk.stat('/aof')).toMatchObject({ durableSize: 5 + kept, dirtyBytes: 0 });
  });
});

describe('fsync timing', () => {
  it('a spinning disk does about 200 fsyncs a second: 10 back to back end at 50 ms', () => {
    const { kernel, disk } = world(DISK_PROFILES.hdd);
    const fd = disk.open('/aof', 'a', 1);
    const done: number[] = [];
    for (let i = 0; i < 10; i++) disk.fsync(fd, () => done.push(kernel.elapsedMs));
    kernel.advance(100);
    expect(done).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50]);
  });

  it('an SSD does tens of thousands', () => {
    const { kernel, disk } = world(DISK_PROFILES.ssd);
    const fd = disk.open('/aof', 'a', 1);
    let count = 0;
    const again = (): void =>
      disk.fsync(fd, () => {
        count++;
        again();
      });
    again();
    kernel.advance(1000);
    expect(count).toBe(20_000);
    disk.close(fd);
    disk.powerLoss();
  });

  it('an fsync also pays for the dirty bytes at the device bandwidth', () => {
    const { kernel, disk } = world(DISK_PROFILES.hdd);
    const fd = disk.open('/dump.rdb', 'w', 1);
    disk.write(fd, new Uint8Array(1_200_000));
    let at = -1;
    disk.fsync(fd, () => (at = kernel.elapsedMs));
    kernel.advance(100);
    // 5 ms for the flush plus 1.2 MB at 120 MB/s.
    expect(at).toBe(15);
    expect(kernel.trace.find('fsync', 'h1')[0]!.text).toBe(
      '/dump.rdb: 1200000 bytes and directory changes durable after 15.000 ms',
    );
  });

  it('fdatasync is fsync', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'w', 1);
    disk.write(fd, b('x'));
    let err: DiskError | null | undefined;
    disk.fdatasync(fd, (e) => (err = e));
    kernel.advance(5);
    expect(err).toBe(null);
    expect(disk.stat('/f').durableSize).toBe(1);
  });

  it('an fsync on a bad descriptor fails at once', () => {
    const { disk } = world();
    expect(diskError(() => disk.fsync(12, () => {})).code).toBe('EBADF');
  });
});

describe('writeback', () => {
  it('data dirty for more than 30 s is written back by the 5 s flusher', () => {
    const { kernel, disk } = world();
    kernel.advance(1000);
    disk.writeFile('/f', b('lazy'));
    kernel.advance(30_000);
    expect(disk.stat('/f')).toMatchObject({ durableSize: 0, dirtyBytes: 4, durableExists: false });
    kernel.advance(4_000);
    expect(disk.stat('/f')).toMatchObject({ durableSize: 4, dirtyBytes: 0, durableExists: true });
    expect(kernel.trace.find('writeback', 'h1')[0]).toMatchObject({
      t: 35_000_000,
      text: '4 bytes of 1 files and directory changes written back',
    });
    disk.powerLoss();
    expect(text(disk.readFile('/f'))).toBe('lazy');
  });

  it('an idle disk leaves the kernel queue empty, and so does a disk whose data is all durable', () => {
    const { kernel, disk } = world();
    expect(kernel.nextEventTime()).toBe(Infinity);
    disk.writeFile('/f', b('x'));
    expect(kernel.nextEventTime()).toBeLessThan(Infinity);
    kernel.advance(40_000);
    expect(kernel.nextEventTime()).toBe(Infinity);
    expect(disk.stat('/f').dirtyBytes).toBe(0);
  });

  it('writeback keeps the device busy, delaying an fsync behind it', () => {
    const { kernel, disk } = world();
    disk.writeFile('/big', new Uint8Array(12_000_000));
    kernel.advance(34_999);
    const fd = disk.open('/small', 'w', 1);
    kernel.advance(1);
    // The pass at 35 s wrote 12 MB: 100 ms of a 120 MB/s disk.
    let at = -1;
    disk.fsync(fd, () => (at = kernel.elapsedMs));
    kernel.advance(1000);
    expect(at).toBe(35_105);
  });
});

describe('directory entries and rename', () => {
  it('rename is atomic across a power loss: an unsynced rename leaves the old file', () => {
    const { kernel, disk } = world();
    disk.mkdir('/redis');
    const old = disk.open('/redis/dump.rdb', 'w', 1);
    disk.write(old, b('old snapshot'));
    expect(fsyncNow(kernel, disk, old)).toBe(null);
    disk.close(old);

    const tmp = disk.open('/redis/temp-42.rdb', 'w', 42, { bufferBytes: 4096 });
    disk.write(tmp, b('new snapshot'));
    disk.flush(tmp);
    expect(fsyncNow(kernel, disk, tmp)).toBe(null);
    disk.close(tmp);
    disk.rename('/redis/temp-42.rdb', '/redis/dump.rdb');
    expect(text(disk.readFile('/redis/dump.rdb'))).toBe('new snapshot');
    expect(disk.stat('/redis/dump.rdb')).toMatchObject({ size: 12, durableSize: 12, durableExists: true });
    expect(text(disk.readDurableFile('/redis/dump.rdb'))).toBe('old snapshot');

    disk.powerLoss();
    expect(text(disk.readFile('/redis/dump.rdb'))).toBe('old snapshot');
    expect(disk.readdir('/redis')).toEqual(['dump.rdb', 'temp-42.rdb']);
  });

  it('an fsync of the directory makes the rename durable', () => {
    const { kernel, disk } = world();
    disk.writeFile('/dump.rdb', b('old'));
    const dir = disk.open('/', 'r', 1);
    expect(fsyncNow(kernel, disk, dir)).toBe(null);
    const tmp = disk.open('/temp.rdb', 'w', 1);
    disk.write(tmp, b('new'));
    expect(fsyncNow(kernel, disk, tmp)).toBe(null);
    disk.rename('/temp.rdb', '/dump.rdb');
    expect(fsyncNow(kernel, disk, dir)).toBe(null);
    disk.powerLoss();
    expect(disk.readdir('/')).toEqual(['dump.rdb']);
    expect(text(disk.readFile('/dump.rdb'))).toBe('new');
  });

  it('a name committed by another file’s fsync can come back empty (data not synced)', () => {
    const { kernel, disk } = world();
    disk.writeFile('/notes', b('unsynced data'));
    const aof = disk.open('/aof', 'a', 1);
    disk.write(aof, b('x'));
    expect(fsyncNow(kernel, disk, aof)).toBe(null);
    expect(disk.stat('/notes')).toMatchObject({ durableExists: true, durableSize: 0 });
    disk.powerLoss();
    expect(disk.stat('/notes').size).toBe(0);
  });

  it('an unlink that is not yet durable is undone by a power loss', () => {
    const { kernel, disk } = world();
    disk.writeFile('/f', b('keep me'));
    kernel.advance(40_000);
    disk.unlink('/f');
    expect(disk.exists('/f')).toBe(false);
    disk.powerLoss();
    expect(text(disk.readFile('/f'))).toBe('keep me');
  });

  it('rename errors follow Linux', () => {
    const { disk } = world();
    disk.mkdir('/d/e', { recursive: true });
    disk.writeFile('/d/e/f', b('x'));
    disk.writeFile('/g', b('y'));
    expect(diskError(() => disk.rename('/missing', '/x')).code).toBe('ENOENT');
    expect(diskError(() => disk.rename('/g', '/nope/x')).code).toBe('ENOENT');
    expect(diskError(() => disk.rename('/g', '/d')).code).toBe('EISDIR');
    expect(diskError(() => disk.rename('/d/e', '/g')).code).toBe('ENOTDIR');
    expect(diskError(() => disk.rename('/d', '/d/e/x')).code).toBe('EINVAL');
    disk.mkdir('/empty');
    disk.rename('/d/e', '/empty');
    expect(disk.readdir('/empty')).toEqual(['f']);
    disk.mkdir('/d/e');
    disk.writeFile('/d/e/z', b('z'));
    expect(diskError(() => disk.rename('/empty', '/d/e')).code).toBe('ENOTEMPTY');
    disk.rename('/g', '/g');
    expect(text(disk.readFile('/g'))).toBe('y');
  });
});

describe('disk faults', () => {
  const tiny: DiskProfile = { ...DISK_PROFILES.ssd, capacityBytes: 100 };

  it('ENOSPC: a write writes what fits and returns the short count; the next one fails', () => {
    const { kernel, disk } = world(tiny);
    const fd = disk.open('/aof', 'a', 1);
    expect(disk.write(fd, new Uint8Array(60).fill(65))).toBe(60);
    expect(disk.write(fd, new Uint8Array(60).fill(66))).toBe(40);
    expect(disk.stat('/aof').size).toBe(100);
    const e = diskError(() => disk.write(fd, b('more')));
    expect(e).toMatchObject({ code: 'ENOSPC', syscall: 'write', path: '/aof', message: 'No space left on device' });
    expect(kernel.trace.find('enospc', 'h1').map((t) => t.text)).toEqual([
      'write /aof: 40 of 60 bytes written',
      'write /aof: no space for 4 bytes',
    ]);
    // Giving space back lets writes continue.
    disk.ftruncate(fd, 50);
    expect(disk.write(fd, b('ok'))).toBe(2);
    expect(disk.usedBytes).toBe(52);
  });

  it('ENOSPC from writeFile leaves the part that fitted', () => {
    const { disk } = world(tiny);
    expect(diskError(() => disk.writeFile('/f', new Uint8Array(150))).code).toBe('ENOSPC');
    expect(disk.stat('/f').size).toBe(100);
  });

  it('a full disk refuses growth but allows overwrites', () => {
    const { disk } = world();
    disk.writeFile('/f', b('abcdef'));
    disk.setFull(true);
    expect(diskError(() => disk.appendFile('/f', b('g'))).code).toBe('ENOSPC');
    const fd = disk.open('/f', 'r+', 1);
    expect(disk.write(fd, b('XYZ'))).toBe(3);
    expect(text(disk.readFile('/f'))).toBe('XYZdef');
    disk.setFull(false);
    disk.appendFile('/f', b('g'));
    expect(text(disk.readFile('/f'))).toBe('XYZdefg');
  });

  it('a buffered handle reports ENOSPC when its buffer cannot be flushed', () => {
    const { disk } = world(tiny);
    const fd = disk.open('/rdb', 'w', 1, { bufferBytes: 64 });
    disk.write(fd, new Uint8Array(60));
    disk.write(fd, new Uint8Array(30)); // spills the first 60
    disk.write(fd, new Uint8Array(40)); // spills the next 30
    expect(disk.stat('/rdb')).toMatchObject({ size: 90, bufferedBytes: 40 });
    // Closing flushes: 10 bytes fit, the rest fails, and the handle is gone anyway.
    expect(diskError(() => disk.close(fd)).code).toBe('ENOSPC');
    expect(disk.stat('/rdb')).toMatchObject({ size: 100, bufferedBytes: 0 });
    expect(diskError(() => disk.close(fd)).code).toBe('EBADF');
    const big = disk.open('/big', 'w', 1, { bufferBytes: 8 });
    expect(diskError(() => disk.write(big, new Uint8Array(20))).code).toBe('ENOSPC');
  });

  it('failNext(write) fails the next writes with EIO and writes nothing', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'a', 1);
    disk.failNext('write', 2);
    expect(diskError(() => disk.write(fd, b('a'))).code).toBe('EIO');
    expect(diskError(() => disk.write(fd, b('b'))).code).toBe('EIO');
    expect(disk.write(fd, b('c'))).toBe(1);
    expect(text(disk.readFile('/f'))).toBe('c');
    expect(kernel.trace.find('eio', 'h1')).toHaveLength(2);
  });

  it('failNext(fsync) completes on time with EIO and leaves the data dirty', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'a', 1);
    disk.write(fd, b('abc'));
    disk.failNext('fsync');
    let err: DiskError | null | undefined;
    disk.fsync(fd, (e) => (err = e));
    kernel.advance(5);
    expect(err).toMatchObject({ code: 'EIO', syscall: 'fsync', message: 'Input/output error' });
    expect(disk.stat('/f')).toMatchObject({ durableSize: 0, dirtyBytes: 3 });
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    expect(disk.stat('/f').dirtyBytes).toBe(0);
  });

  it('failNext(rename) fails the rename and changes nothing', () => {
    const { disk } = world();
    disk.writeFile('/a', b('a'));
    disk.failNext('rename');
    expect(diskError(() => disk.rename('/a', '/b')).code).toBe('EIO');
    expect(disk.readdir('/')).toEqual(['a']);
    disk.rename('/a', '/b');
    expect(disk.readdir('/')).toEqual(['b']);
  });

  it('flipByte corrupts the cached and the durable copy silently', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'w', 1);
    disk.write(fd, b('AAAA'));
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    disk.flipByte('/f', 1);
    expect(Array.from(disk.readFile('/f'))).toEqual([65, 65 ^ 0xff, 65, 65]);
    expect(Array.from(disk.readDurableFile('/f')!)).toEqual([65, 65 ^ 0xff, 65, 65]);
    expect(disk.stat('/f').dirtyBytes).toBe(0);
    // An overwrite gives the durable copy its own bytes; a flip reaches both.
    disk.write(fd, b('B'));
    disk.flipByte('/f', 3, 0x01);
    expect(disk.readFile('/f')[3]).toBe(64);
    expect(disk.readDurableFile('/f')![3]).toBe(64);
    disk.powerLoss();
    expect(Array.from(disk.readFile('/f'))).toEqual([65, 65 ^ 0xff, 65, 64]);
  });

  it('flipByte picks its offset with the seeded random generator', () => {
    const offsets = [1, 1, 2, 3, 4].map((seed) => {
      const { kernel, disk } = world(DISK_PROFILES.hdd, seed);
      disk.writeFile('/f', new Uint8Array(1000));
      disk.flipByte('/f');
      const at = disk.readFile('/f').findIndex((x) => x !== 0);
      expect(kernel.trace.find('flip-byte', 'h1')[0]!.text).toBe(`/f offset ${at}`);
      return at;
    });
    expect(offsets[0]).toBe(offsets[1]);
    expect(new Set(offsets).size).toBeGreaterThan(1);
    expect(diskError(() => world().disk.flipByte('/')).code).toBe('EISDIR');
    const { disk } = world();
    disk.writeFile('/empty', new Uint8Array(0));
    expect(() => disk.flipByte('/empty')).toThrow(RangeError);
  });
});

describe('stat and space', () => {
  it('reports size, durable size, dirty and buffered bytes and mtime', () => {
    const { kernel, disk } = world();
    kernel.advance(7);
    const fd = disk.open('/f', 'w', 1, { bufferBytes: 100 });
    disk.write(fd, b('12345'));
    disk.flush(fd);
    disk.write(fd, b('678'));
    expect(disk.stat('/f')).toEqual({
      isDirectory: false,
      size: 5,
      durableSize: 0,
      durableExists: false,
      dirtyBytes: 5,
      bufferedBytes: 3,
      mtimeUs: kernel.startUs + 7000,
    });
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    expect(disk.stat('/f')).toMatchObject({ size: 5, durableSize: 5, durableExists: true, dirtyBytes: 0, bufferedBytes: 3 });
    disk.close(fd);
    expect(disk.stat('/f')).toMatchObject({ size: 8, durableSize: 5, dirtyBytes: 3, bufferedBytes: 0 });
    expect(disk.stat('/')).toMatchObject({ isDirectory: true, durableExists: true });
    expect(diskError(() => disk.stat('/nope')).code).toBe('ENOENT');
  });

  it('truncate shrinks and extends with zeros, and a power loss restores the durable length', () => {
    const { kernel, disk } = world();
    const fd = disk.open('/f', 'w', 1);
    disk.write(fd, b('abcdef'));
    expect(fsyncNow(kernel, disk, fd)).toBe(null);
    disk.truncate('/f', 2);
    expect(text(disk.readFile('/f'))).toBe('ab');
    disk.truncate('/f', 4);
    expect(Array.from(disk.readFile('/f'))).toEqual([97, 98, 0, 0]);
    expect(disk.stat('/f')).toMatchObject({ size: 4, durableSize: 6 });
    expect(diskError(() => disk.truncate('/f', -1)).code).toBe('EINVAL');
    disk.powerLoss();
    expect(text(disk.readFile('/f'))).toBe('abcdef');
  });

  it('du and usedBytes count file sizes', () => {
    const { disk } = world();
    disk.mkdir('/a/b', { recursive: true });
    disk.writeFile('/a/x', new Uint8Array(10));
    disk.writeFile('/a/b/y', new Uint8Array(5));
    disk.writeFile('/z', new Uint8Array(1));
    expect(disk.du('/a')).toBe(15);
    expect(disk.du()).toBe(16);
    expect(disk.usedBytes).toBe(16);
    disk.unlink('/a/x');
    expect(disk.usedBytes).toBe(6);
    disk.rename('/z', '/a/b/y');
    expect(disk.usedBytes).toBe(1);
  });

  it('100,000 small appends with periodic fsyncs all reach the disk', () => {
    const { kernel, disk } = world(DISK_PROFILES.ssd);
    const fd = disk.open('/aof', 'a', 1);
    const cmd = b('*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$3\r\nval\r\n');
    // Appends that copied the whole file each time would take hours and time the test out; the milliseconds
    // are not this test's to judge on a shared machine.
    for (let i = 0; i < 100_000; i++) {
      disk.write(fd, cmd);
      if (i % 100 === 99) disk.fsync(fd, () => {});
      if (i % 1000 === 999) kernel.advance(1);
    }
    kernel.advance(1000);
    expect(disk.stat('/aof')).toMatchObject({ size: 100_000 * cmd.length, durableSize: 100_000 * cmd.length });
  });
});

describe('snapshots', () => {
  it('round-trips through JSON: files, durable state, handles and buffers', () => {
    const { kernel, disk } = world(DISK_PROFILES.hdd, 9);
    disk.mkdir('/redis');
    const old = disk.open('/redis/dump.rdb', 'w', 1);
    disk.write(old, b('old'));
    expect(fsyncNow(kernel, disk, old)).toBe(null);
    disk.close(old);
    const aof = disk.open('/redis/aof', 'a', 1);
    disk.write(aof, b('synced;'));
    expect(fsyncNow(kernel, disk, aof)).toBe(null);
    disk.write(aof, b('cached;'));
    disk.writeFile('/redis/dump.rdb', b('new contents'));
    const rdb = disk.open('/redis/temp.rdb', 'w', 2, { bufferBytes: 64 });
    disk.write(rdb, b('buffered'));
    disk.failNext('rename');

    const json = JSON.parse(JSON.stringify(disk.snapshot()));
    const k2 = new Kernel({ seed: 9 });
    k2.now = kernel.now;
    const copy = Disk.restore(k2, 'h1', json);
    for (const path of ['/redis/dump.rdb', '/redis/aof', '/redis/temp.rdb', '/redis']) {
      expect(copy.stat(path)).toEqual(disk.stat(path));
    }
    expect(copy.readdir('/redis')).toEqual(disk.readdir('/redis'));
    expect(text(copy.readDurableFile('/redis/dump.rdb'))).toBe('old');
    expect(copy.usedBytes).toBe(disk.usedBytes);
    expect(diskError(() => copy.rename('/redis/aof', '/redis/x')).code).toBe('EIO');
    // The handles work: the buffered bytes are still in the buffer.
    copy.write(aof, b('more;'));
    copy.close(rdb);
    expect(text(copy.readFile('/redis/temp.rdb'))).toBe('buffered');
    expect(text(copy.readFile('/redis/aof'))).toBe('synced;cached;more;');
    // Writeback was rescheduled for the dirty files.
    expect(k2.nextEventTime()).toBeLessThan(Infinity);
    // Both disks lose the same data to a power loss at the same point.
    disk.write(aof, b('more;'));
    disk.close(rdb);
    disk.powerLoss();
    copy.powerLoss();
    expect(text(copy.readFile('/redis/aof'))).toBe(text(disk.readFile('/redis/aof')));
    expect(copy.readdir('/redis')).toEqual(disk.readdir('/redis'));
  });

  it('keeps an unlinked file that is still open', () => {
    const { disk } = world();
    const fd = disk.open('/f', 'w', 1);
    disk.write(fd, b('ghost'));
    disk.unlink('/f');
    const copy = Disk.restore(new Kernel(), 'h1', JSON.parse(JSON.stringify(disk.snapshot())));
    expect(copy.fstat(fd).size).toBe(5);
    expect(copy.usedBytes).toBe(5);
    copy.close(fd);
    expect(copy.usedBytes).toBe(0);
  });
});
