/**
 * RDB files through `npm run server` and redis-server 7.0.15 both ways: the
 * emulator's SAVE and BGSAVE write real files that the real redis-check-rdb
 * accepts and a real server loads with every key, type, encoding, value and
 * expiry intact; files the real server saves load into the emulator the same
 * way; and the emulator restarts on its own file. Skipped, with a notice,
 * when no real server is installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { CHECK_RDB_BIN } from '../support/real-check-tools.js';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { baseDataset, changesBeforeBgsave, differences, fill, keyCount, picture, type Picture } from './persistence-dataset.js';
import { StatusReply, type Reply } from '../../emulator/resp/reply.js';

const HAVE_CHECK_RDB = HAVE_REAL_REDIS && spawnSync(CHECK_RDB_BIN, ['-v']).error === undefined;
const ENABLED = HAVE_REAL_REDIS && HAVE_CHECK_RDB;
const NOTICE = HAVE_REAL_REDIS ? 'SKIPPED: redis-check-rdb not found' : skipNotice();
if (!ENABLED) console.warn(`\n!!! persistence interop: ${NOTICE}\n`);

/** The emulator as `npm run server` runs it, in this process, and what it logged. */
interface Emulator {
  running: RunningServer;
  port: number;
  log: () => string;
}

async function startEmulator(dir: string): Promise<Emulator> {
  const port = await freePort();
  let log = '';
  // Like redis-server, the emulator makes --dir its working directory; this process keeps its own.
  const cwd = process.cwd();
  const r = await runServer(['--dir', dir, '--port', String(port), '--save', '', '--enable-debug-command', 'yes'], { stdout: (t) => (log += t) }).finally(() =>
    process.chdir(cwd),
  );
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  return { running: r, port, log: () => log };
}

/** A real server on `dir`, once it has loaded whatever file is there. */
async function startReal(dir: string): Promise<RealRedis> {
  const real = await startRealRedis(['--dir', dir]);
  await untilInfo(real.port, 'persistence', /^loading:0\r?$/m);
  return real;
}

/** Polls INFO <section> until it matches. */
async function untilInfo(port: number, section: string, pattern: RegExp): Promise<void> {
  const c = await RawConnection.open(port);
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const info = await c.command(['INFO', section]);
      if (typeof info === 'string' && pattern.test(info)) return;
      if (Date.now() > deadline) throw new Error(`INFO ${section} never matched ${pattern}: ${String(info)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    c.close();
  }
}

async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function withConnection<T>(port: number, f: (c: RawConnection) => Promise<T>): Promise<T> {
  const c = await RawConnection.open(port);
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

const command = (port: number, argv: string[]): Promise<Reply> => withConnection(port, (c) => c.command(argv));

/** Runs the real redis-check-rdb without holding up this process's event loop (the emulator lives in it). */
function checkRdb(file: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CHECK_RDB_BIN, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('latin1')));
    child.stderr.on('data', (d: Buffer) => (stdout += d.toString('latin1')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout }));
  });
}

async function expectCheckRdbOk(file: string, keys: number): Promise<void> {
  const r = await checkRdb(file);
  expect(r.stdout).toContain('\\o/ RDB looks OK! \\o/');
  expect(r.stdout).toContain(`[info] ${keys} keys read`);
  expect(r.status).toBe(0);
}

const bgsaveDone = /^rdb_bgsave_in_progress:0\r?$/m;

describe.skipIf(!ENABLED)(ENABLED ? 'persistence interop with redis-server 7.0.15' : `persistence interop (${NOTICE})`, () => {
  const dirs: string[] = [];
  const emulators: Emulator[] = [];
  const reals: RealRedis[] = [];
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'rw-interop-'));
    dirs.push(d);
    return d;
  };
  const emulator = async (dir: string): Promise<Emulator> => {
    const e = await startEmulator(dir);
    emulators.push(e);
    return e;
  };
  const real = async (dir: string): Promise<RealRedis> => {
    const r = await startReal(dir);
    reals.push(r);
    return r;
  };
  /** Shuts a server down now rather than after the tests. */
  const stopEmulator = async (e: Emulator): Promise<void> => {
    await e.running.shutdown();
    emulators.splice(emulators.indexOf(e), 1);
  };
  const stopReal = async (r: RealRedis): Promise<void> => {
    await r.stop();
    reals.splice(reals.indexOf(r), 1);
  };

  afterAll(async () => {
    for (const e of emulators) await e.running.shutdown();
    for (const r of reals) await r.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  describe('files the emulator saves', () => {
    let dir: string;
    let emu: Emulator;
    let saved: Picture;

    beforeAll(async () => {
      dir = tempDir();
      emu = await emulator(dir);
      await withConnection(emu.port, (c) => fill(c, baseDataset()));
      saved = await withConnection(emu.port, (c) => picture(c));
    });

    it('SAVE writes dump.rdb, which redis-check-rdb 7.0.15 finds sound', async () => {
      expect(await command(emu.port, ['SAVE'])).toEqual(new StatusReply('OK'));
      expect(emu.log()).toMatch(/\* DB saved on disk\n/);
      await expectCheckRdbOk(join(dir, 'dump.rdb'), keyCount(saved));
    });

    it('redis-server 7.0.15 loads the SAVE file with every key as the emulator had it', async () => {
      const r = await real(dir);
      expect(readFileSync(join(r.dir, 'redis.log'), 'latin1')).toMatch(/DB loaded from disk: [\d.]+ seconds/);
      const loaded = await withConnection(r.port, (c) => picture(c));
      expect(differences(saved, loaded)).toEqual([]);
      expect(await command(r.port, ['DBSIZE'])).toBe(saved.get(0)!.size);
      await stopReal(r);
    });

    it('BGSAVE after more changes writes a file redis-server 7.0.15 loads the same way', async () => {
      await withConnection(emu.port, (c) => fill(c, changesBeforeBgsave()));
      const before = saved;
      saved = await withConnection(emu.port, (c) => picture(c));
      // The changes show, so a file holding the old dataset would not pass.
      expect(differences(before, saved).length).toBeGreaterThan(8);
      expect(await command(emu.port, ['BGSAVE'])).toMatchObject({ text: 'Background saving started' });
      await untilInfo(emu.port, 'persistence', bgsaveDone);
      expect(emu.log()).toMatch(/Background saving terminated with success\n/);
      expect(readdirSync(dir).filter((f) => f.startsWith('temp-'))).toEqual([]);
      await expectCheckRdbOk(join(dir, 'dump.rdb'), keyCount(saved));
      const r = await real(dir);
      const loaded = await withConnection(r.port, (c) => picture(c));
      expect(differences(saved, loaded)).toEqual([]);
      await stopReal(r);
    });

    it('npm run server restarts on its own dump.rdb with every key', async () => {
      await stopEmulator(emu);
      const again = await emulator(dir);
      expect(again.log()).toMatch(/\* DB loaded from disk: [\d.]+ seconds\n/);
      await untilInfo(again.port, 'persistence', /^loading:0\r?$/m);
      const loaded = await withConnection(again.port, (c) => picture(c));
      expect(differences(saved, loaded)).toEqual([]);
      const info = String(await command(again.port, ['INFO', 'persistence']));
      expect(info).toContain(`rdb_last_load_keys_loaded:${keyCount(saved)}\r\n`);
    });

    it('SHUTDOWN SAVE writes the final snapshot, and npm run server restarts on it', async () => {
      const running = emulators.at(-1)!;
      await command(running.port, ['SET', 'written:before-shutdown', 'v', 'EXAT', '4102444800']);
      saved = await withConnection(running.port, (c) => picture(c));
      const c = await RawConnection.open(running.port);
      // The server closes the connection without replying once the snapshot is on disk.
      void c.command(['SHUTDOWN', 'SAVE']);
      await until(() => running.log().includes('Redis is now ready to exit, bye bye...'));
      c.close();
      expect(running.log()).toMatch(/Saving the final RDB snapshot before exiting\.\n.*DB saved on disk\n/s);
      await stopEmulator(running);
      const again = await emulator(dir);
      await untilInfo(again.port, 'persistence', /^loading:0\r?$/m);
      const loaded = await withConnection(again.port, (c) => picture(c));
      expect(differences(saved, loaded)).toEqual([]);
    });
  });

  describe('files redis-server 7.0.15 saves', () => {
    let dir: string;
    let r: RealRedis;
    let saved: Picture;

    beforeAll(async () => {
      dir = tempDir();
      r = await real(dir);
      await withConnection(r.port, (c) => fill(c, baseDataset()));
    });

    it('npm run server loads a real SAVE with every key as the real server had it', async () => {
      saved = await withConnection(r.port, (c) => picture(c));
      expect(await command(r.port, ['SAVE'])).toEqual(new StatusReply('OK'));
      const emu = await emulator(dir);
      expect(emu.log()).toMatch(/\* DB loaded from disk: [\d.]+ seconds\n/);
      await untilInfo(emu.port, 'persistence', /^loading:0\r?$/m);
      const loaded = await withConnection(emu.port, (c) => picture(c));
      expect(differences(saved, loaded)).toEqual([]);
      expect(String(await command(emu.port, ['INFO', 'persistence']))).toContain(`rdb_last_load_keys_loaded:${keyCount(saved)}\r\n`);
      await stopEmulator(emu);
    });

    it('npm run server loads a real BGSAVE made after more changes', async () => {
      await withConnection(r.port, (c) => fill(c, changesBeforeBgsave()));
      saved = await withConnection(r.port, (c) => picture(c));
      await command(r.port, ['BGSAVE']);
      await untilInfo(r.port, 'persistence', bgsaveDone);
      const emu = await emulator(dir);
      await untilInfo(emu.port, 'persistence', /^loading:0\r?$/m);
      const loaded = await withConnection(emu.port, (c) => picture(c));
      expect(differences(saved, loaded)).toEqual([]);
      await stopEmulator(emu);
    });
  });
});
