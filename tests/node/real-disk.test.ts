import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RealDisk } from '../../src/node/real-disk.js';
import { DISK_PROFILES, Disk, DiskError, type FileSystem } from '../../emulator/sim/disk.js';
import { Kernel } from '../../emulator/sim/kernel.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);

let dir: string;
let kernel: Kernel;
let disk: RealDisk;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'real-disk-'));
  kernel = new Kernel({ seed: 1 });
  disk = new RealDisk(kernel, 'h1', join(dir, 'root'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DiskError) return e.code;
    throw e;
  }
  return 'ok';
}

/**
 * The same steps on any disk, recording every result or errno: the
 * simulated disk must answer as Linux does through Node.
 */
function script(fs: FileSystem): string[] {
  const out: string[] = [];
  const step = (fn: () => unknown): void => {
    try {
      const v = fn();
      out.push(v instanceof Uint8Array ? `bytes:${dec.decode(v)}` : JSON.stringify(v ?? null));
    } catch (e) {
      if (!(e instanceof DiskError)) throw e;
      out.push(`${e.code}:${e.message}`);
    }
  };
  step(() => fs.mkdir('/a/b'));
  step(() => fs.mkdir('/a'));
  step(() => fs.mkdir('/a'));
  step(() => fs.mkdir('/a', { recursive: true }));
  step(() => fs.mkdir('/a/x/y', { recursive: true }));
  step(() => fs.writeFile('/a/f', b('hello')));
  step(() => fs.mkdir('/a/f'));
  step(() => fs.mkdir('/a/f', { recursive: true }));
  step(() => fs.mkdir('/a/f/g', { recursive: true }));
  step(() => fs.mkdir('/a/f/g'));
  step(() => fs.readdir('/a'));
  step(() => fs.readdir('/a/f'));
  step(() => fs.readdir('/nope'));
  step(() => fs.rmdir('/a'));
  step(() => fs.rmdir('/a/f'));
  step(() => fs.rmdir('/nope'));
  step(() => fs.rmdir('/'));
  step(() => fs.open('/nope', 'r'));
  step(() => fs.open('/nope', 'r+'));
  step(() => fs.open('/a/f', 'wx'));
  step(() => fs.open('/a', 'w'));
  step(() => fs.open('/a', 'r+'));
  step(() => fs.open('/a/f/g', 'w'));
  step(() => fs.open('/a/nope/g', 'w'));
  step(() => fs.readFile('/a'));
  step(() => fs.readFile('/a/nope'));
  step(() => fs.writeFile('/a', b('x')));
  step(() => fs.unlink('/a'));
  step(() => fs.unlink('/a/nope'));
  step(() => fs.unlink('/a/f/g'));
  step(() => fs.truncate('/a', 0));
  step(() => fs.truncate('/a/f', -1));
  step(() => fs.rename('/a/nope', '/a/q'));
  step(() => fs.rename('/a/f', '/nope/q'));
  step(() => fs.rename('/a/f', '/a/x'));
  step(() => fs.rename('/a/x', '/a/f'));
  step(() => fs.rename('/a', '/a/x/z'));
  step(() => fs.writeFile('/a/x/y/z', b('z')));
  step(() => fs.mkdir('/a/b'));
  step(() => fs.rename('/a/b', '/a/x'));
  step(() => fs.rename('/a/x/y', '/a/b'));
  step(() => fs.readdir('/a'));
  step(() => fs.rename('/a/f', '/a/f'));
  step(() => fs.appendFile('/a/f', b(' world')));
  step(() => fs.readFile('/a/f'));
  step(() => fs.truncate('/a/f', 3));
  step(() => fs.truncate('/a/f', 5));
  step(() => fs.readFile('/a/f'));
  step(() => fs.exists('/a/f'));
  step(() => fs.exists('/a/f/g'));
  step(() => fs.exists('/../a/./x/..'));
  const r = fs.open('/a/f', 'r');
  step(() => fs.write(r, b('x')));
  step(() => fs.read(r, 2));
  step(() => fs.read(r, 100));
  step(() => fs.read(r, 100));
  step(() => fs.read(r, 2, 1));
  step(() => fs.ftruncate(r, 0));
  step(() => fs.close(r));
  step(() => fs.close(r));
  const a = fs.open('/a/log', 'a');
  step(() => fs.write(a, b('1')));
  step(() => fs.read(a, 1));
  step(() => fs.close(a));
  const a2 = fs.open('/a/log', 'a');
  step(() => fs.write(a2, b('2')));
  step(() => fs.close(a2));
  const rw = fs.open('/a/log', 'r+');
  step(() => fs.write(rw, b('X')));
  step(() => fs.read(rw, 5));
  step(() => fs.ftruncate(rw, 1));
  step(() => fs.close(rw));
  step(() => fs.readFile('/a/log'));
  const d = fs.open('/a', 'r');
  step(() => fs.read(d, 1));
  step(() => fs.write(d, b('x')));
  step(() => fs.close(d));
  step(() => fs.stat('/a/f').size);
  step(() => fs.stat('/a').isDirectory);
  step(() => fs.stat('/a/nope'));
  step(() => fs.stat('/a/f/g'));
  step(() => fs.du('/a'));
  return out;
}

describe('RealDisk', () => {
  it('answers a long script exactly as the simulated disk does', () => {
    const sim = script(new Disk(new Kernel(), 'h1', DISK_PROFILES.ssd));
    const real = script(disk);
    expect(real).toEqual(sim);
    expect(real).toContain('EEXIST:File exists');
  });

  it('keeps a host’s files under its folder', () => {
    disk.mkdir('/var/lib/redis', { recursive: true });
    disk.writeFile('/var/lib/redis/dump.rdb', b('REDIS'));
    expect(readFileSync(join(dir, 'root/var/lib/redis/dump.rdb'), 'utf8')).toBe('REDIS');
    expect(disk.readdir('/')).toEqual(['var']);
    expect(disk.usedBytes).toBe(5);
    expect(disk.stat('/var/lib/redis/dump.rdb')).toMatchObject({ size: 5, durableSize: 5, dirtyBytes: 0 });
  });

  it('.. at the root stays inside the folder', () => {
    writeFileSync(join(dir, 'outside'), 'secret');
    expect(code(() => disk.readFile('/../outside'))).toBe('ENOENT');
    disk.writeFile('/../../inside', b('x'));
    expect(readFileSync(join(dir, 'root/inside'), 'utf8')).toBe('x');
  });

  it('refuses a symbolic link that leads out of the folder', () => {
    writeFileSync(join(dir, 'outside'), 'secret');
    symlinkSync(join(dir, 'outside'), join(dir, 'root/link'));
    symlinkSync(dir, join(dir, 'root/dirlink'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'root/dangling'));
    expect(() => disk.readFile('/link')).toThrow(/leads outside/);
    expect(() => disk.writeFile('/dirlink/new', b('x'))).toThrow(/leads outside/);
    expect(() => disk.writeFile('/dangling', b('x'))).toThrow(/dangling/);
    expect(readFileSync(join(dir, 'outside'), 'utf8')).toBe('secret');
  });

  it("reports the operating system's errors with Linux's strerror text, as Redis logs them", () => {
    const long = `/${'n'.repeat(300)}`;
    let caught: unknown;
    try {
      disk.open(long, 'w');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DiskError);
    expect([(caught as DiskError).code, (caught as DiskError).message]).toEqual(['ENAMETOOLONG', 'File name too long']);
  });

  it('buffers writes in the process and loses them when the process is killed', () => {
    const fd = disk.open('/rdb', 'w', 42, { bufferBytes: 64 });
    disk.write(fd, b('buffered'));
    expect(readFileSync(join(dir, 'root/rdb'), 'utf8')).toBe('');
    expect(disk.stat('/rdb').bufferedBytes).toBe(8);
    disk.flush(fd);
    expect(readFileSync(join(dir, 'root/rdb'), 'utf8')).toBe('buffered');
    disk.write(fd, b(' lost'));
    disk.killProcess(42);
    expect(readFileSync(join(dir, 'root/rdb'), 'utf8')).toBe('buffered');
    expect(code(() => disk.write(fd, b('x')))).toBe('EBADF');
  });

  it('fsync really syncs and calls back as a kernel event at the current time', () => {
    const fd = disk.open('/aof', 'a', 1);
    disk.write(fd, b('SET k v\r\n'));
    const calls: Array<[DiskError | null, number]> = [];
    disk.fsync(fd, (err) => calls.push([err, kernel.now]));
    expect(calls).toEqual([]);
    kernel.advance(0);
    expect(calls).toEqual([[null, kernel.startUs]]);
    disk.fdatasync(fd, (err) => calls.push([err, kernel.now]));
    kernel.advance(0);
    expect(calls).toHaveLength(2);
    disk.close(fd);
    expect(code(() => disk.fsync(fd, () => {}))).toBe('EBADF');
  });

  it('fsyncs a directory', () => {
    disk.mkdir('/d');
    const fd = disk.open('/d', 'r', 1);
    let result: DiskError | null | undefined;
    disk.fsync(fd, (err) => (result = err));
    kernel.advance(0);
    expect(result).toBe(null);
    disk.close(fd);
  });

  it('flips a byte of a real file', () => {
    disk.writeFile('/f', b('AAAA'));
    disk.flipByte('/f', 2, 0x01);
    expect(readFileSync(join(dir, 'root/f'), 'latin1')).toBe('AA@A');
  });

  it('cannot lose power, fill up or fail on purpose', () => {
    expect(() => disk.powerLoss()).toThrow(/not possible on a real disk/);
    expect(() => disk.setFull(true)).toThrow(/not possible on a real disk/);
    expect(() => disk.failNext('fsync')).toThrow(/not possible on a real disk/);
  });
});
