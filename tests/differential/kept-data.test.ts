/**
 * What the emulator cannot run or model is kept: a function library and a
 * stream in files redis-server 7.0.15 wrote go through `npm run server`
 * (load, SAVE, SHUTDOWN, BGREWRITEAOF) and come back to the real server
 * with every byte, and an AOF whose commands load a library starts.
 * Skipped, with a notice, when no real server is installed.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { RdbRecordReader, type RdbRecord } from '../../emulator/persistence/inspect/index.js';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import type { Reply } from '../../emulator/resp/reply.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! kept data: ${skipNotice()}\n`);

const LIBRARY = "#!lua name=mylib\nredis.register_function('knockknock', function() return 'Who is there?' end)";

/** Makes a library, a stream with a group and a pending entry, and a string. */
const DATASET: string[][] = [
  ['FUNCTION', 'LOAD', LIBRARY],
  ['XADD', 's', '1-1', 'a', '1', 'b', '2'],
  ['XADD', 's', '2-0', 'a', '3', 'b', '4'],
  ['XGROUP', 'CREATE', 's', 'g', '0'],
  ['XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', 's', '>'],
  ['SET', 'k', 'v'],
];

async function commands(port: number, list: string[][]): Promise<Reply[]> {
  const c = await RawConnection.open(port);
  try {
    const out: Reply[] = [];
    for (const argv of list) out.push(await c.commandRaw(argv));
    return out;
  } finally {
    c.close();
  }
}

/** The file's records as bytes, without the aux fields that say when and with how much memory it was written, nor the checksum. */
function recordsBesidesStamp(bytes: Uint8Array): string[] {
  const out: string[] = [];
  const reader = new RdbRecordReader(bytes);
  for (let rec: RdbRecord | null = reader.next(); rec !== null; rec = reader.next()) {
    if (rec.kind === 'error') throw new Error(rec.error.message);
    if (rec.kind === 'eof') break;
    if (rec.kind === 'aux' && (rec.key === 'ctime' || rec.key === 'used-mem')) continue;
    out.push(Buffer.from(bytes.subarray(rec.offset, rec.end)).toString('hex'));
  }
  return out;
}

/** The library sources an RDB file holds. */
function functionsIn(bytes: Uint8Array): string[] {
  const out: string[] = [];
  const reader = new RdbRecordReader(bytes);
  for (let rec: RdbRecord | null = reader.next(); rec !== null && rec.kind !== 'eof'; rec = reader.next()) {
    if (rec.kind === 'function') out.push(rec.code);
  }
  return out;
}

async function startEmulator(dir: string, extra: string[] = []): Promise<{ running: RunningServer; port: number; log: () => string }> {
  const port = await freePort();
  let log = '';
  const cwd = process.cwd();
  const r = await runServer(['--dir', dir, '--port', String(port), '--save', '', ...extra], { stdout: (t) => (log += t) }).finally(() => process.chdir(cwd));
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  return { running: r, port, log: () => log };
}

async function until(ready: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const WHAT_IS_KEPT = [['FUNCTION', 'LIST', 'WITHCODE'], ['TYPE', 's'], ['DUMP', 's'], ['FUNCTION', 'DUMP'], ['GET', 'k']];

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'data the emulator keeps without running or modelling it' : `kept data (${skipNotice()})`, () => {
  const dirs: string[] = [];
  const reals: RealRedis[] = [];
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'rw-kept-'));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const r of reals) await r.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a dump.rdb with a library and a stream comes back from SAVE and SHUTDOWN byte for byte', async () => {
    const real = await startRealRedis();
    reals.push(real);
    await commands(real.port, DATASET);
    await commands(real.port, [['SAVE']]);
    const realFile = readFileSync(join(real.dir, 'dump.rdb'));
    const realView = await commands(real.port, WHAT_IS_KEPT);

    const dir = tempDir();
    cpSync(join(real.dir, 'dump.rdb'), join(dir, 'dump.rdb'));
    const emu = await startEmulator(dir);
    expect(emu.log()).toContain('Done loading RDB, keys loaded: 2, keys expired: 0.');
    expect(await commands(emu.port, WHAT_IS_KEPT)).toEqual(realView);
    const fcall = await commands(emu.port, [['FCALL', 'knockknock', '0']]);
    expect(String(fcall[0])).toMatch(/^-ERR Function 'knockknock' of library 'mylib' cannot run/);

    await commands(emu.port, [['SAVE']]);
    const saved = readFileSync(join(dir, 'dump.rdb'));
    expect(saved.length).toBe(realFile.length);
    expect(recordsBesidesStamp(saved)).toEqual(recordsBesidesStamp(realFile));

    // SHUTDOWN SAVE writes the file once more; the real server loads it whole.
    const c = await RawConnection.open(emu.port);
    void c.command(['SHUTDOWN', 'SAVE']);
    await until(() => emu.log().includes('Redis is now ready to exit, bye bye...'), 'the shutdown');
    c.close();
    await emu.running.shutdown();
    expect(recordsBesidesStamp(readFileSync(join(dir, 'dump.rdb')))).toEqual(recordsBesidesStamp(realFile));
    const back = await startRealRedis(['--dir', dir]);
    reals.push(back);
    expect(await commands(back.port, WHAT_IS_KEPT)).toEqual(realView);
  });

  it('an AOF whose incr file loads a library starts, and BGREWRITEAOF keeps the library in the base', async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    reals.push(real);
    await commands(real.port, [['SET', 'k', 'v'], ['FUNCTION', 'LOAD', LIBRARY]]);
    const realView = await commands(real.port, [['FUNCTION', 'LIST', 'WITHCODE'], ['GET', 'k']]);
    const dir = tempDir();
    cpSync(join(real.dir, 'appendonlydir'), join(dir, 'appendonlydir'), { recursive: true });

    for (const preamble of ['yes', 'no']) {
      const emu = await startEmulator(dir, ['--appendonly', 'yes', '--aof-use-rdb-preamble', preamble]);
      expect(await commands(emu.port, [['FUNCTION', 'LIST', 'WITHCODE'], ['GET', 'k']])).toEqual(realView);
      await commands(emu.port, [['BGREWRITEAOF']]);
      await until(async () => /aof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0/.test(String((await commands(emu.port, [['INFO', 'persistence']]))[0])), 'the rewrite');
      await emu.running.shutdown();
      const base = readdirSync(join(dir, 'appendonlydir')).find((f) => f.includes('.base.'))!;
      const bytes = readFileSync(join(dir, 'appendonlydir', base));
      if (preamble === 'yes') expect(functionsIn(bytes)).toEqual([LIBRARY]);
      else expect(bytes.toString('latin1')).toContain(`*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$${LIBRARY.length}\r\n${LIBRARY}\r\n`);
    }
    // The real server starts on the rewritten files with the library and the key.
    const back = await startRealRedis(['--dir', dir, '--appendonly', 'yes']);
    reals.push(back);
    expect(await commands(back.port, [['FUNCTION', 'LIST', 'WITHCODE'], ['GET', 'k']])).toEqual(realView);
  });
});
