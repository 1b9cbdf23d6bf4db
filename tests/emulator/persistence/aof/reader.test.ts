/**
 * Reading AOF files back. The command reader's rules are checked on small
 * files; the loader's outcomes and log lines are compared with what a real
 * redis-server 7.0.15 logs when it starts on the same appendonlydir (torn
 * tail with aof-load-truncated yes and no, bad format, unknown command,
 * unfinished MULTI, truncated file that is not the last, missing file),
 * and the length it truncates the file to. Skipped, with a notice, when
 * no real server is installed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../../differential/availability.js';
import { REDIS_SERVER_BIN, freePort, RawConnection, startRealRedis } from '../../../support/real-redis.js';
import { AofCommandReader, loadAofFile, type AofLogEntry, type AofReplayTarget } from '../../../../emulator/persistence/aof/reader.js';
import { loadAofFiles } from '../../../../emulator/persistence/aof/loader.js';
import { aofRecord } from '../../../../emulator/persistence/aof/records.js';
import { isManifestError, parseManifest } from '../../../../emulator/persistence/aof/manifest.js';
import { RdbError, readRdb } from '../../../../emulator/persistence/rdb/index.js';
import type { RedisServer } from '../../../../emulator/server/server.js';
import { createServer } from '../../../../emulator/process/create-server.js';
import { ManualClock } from '../../../../emulator/sim/clock.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! aof reader vs real: ${skipNotice()}\n`);
const describeReal = HAVE_REAL_REDIS ? describe : describe.skip;

const rec = (...argv: string[]): string => aofRecord(argv);
const bytes = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));

function readAll(file: string, start = 0): Array<string[] | string> {
  const r = new AofCommandReader(bytes(file), start);
  const out: Array<string[] | string> = [];
  for (;;) {
    const c = r.next();
    if (c.kind !== 'command') {
      out.push(c.kind);
      return out;
    }
    out.push(c.argv);
  }
}

/** A replay target over an emulated server; truncations are recorded. */
function target(server: RedisServer, truncated: number[]): AofReplayTarget {
  const c = server.connect();
  return {
    knows: (argv) => server.commands.get(argv[0]!) !== undefined,
    run: (argv) => void server.execute(c, argv),
    runTransaction: (queued) => {
      server.execute(c, ['MULTI']);
      for (const argv of queued) server.execute(c, argv);
      server.execute(c, ['EXEC']);
    },
    loadRdb: (file) => {
      const r = readRdb(file, {
        hashMaxListpackEntries: 512,
        hashMaxListpackValue: 64,
        setMaxIntsetEntries: 512,
        zsetMaxListpackEntries: 128,
        zsetMaxListpackValue: 64,
        deepSanitize: false,
        databases: 16,
        verifyChecksum: true,
        nowMs: server.nowMs,
        dropExpired: false,
        allowDuplicates: false,
      });
      return r instanceof RdbError ? { ok: false, atEof: r.code === 'short-read' } : { ok: true, length: r.length };
    },
    truncate: (length) => {
      truncated.push(length);
      return null;
    },
  };
}

function emulatedServer(): RedisServer {
  return createServer({ clock: new ManualClock(1_767_225_600_000 * 1000), config: { save: '' } });
}

describe('AOF command reader', () => {
  it('reads commands, skips annotations, and says how the file ends', () => {
    const file = '#TS:1\r\n' + rec('SET', 'a', 'b\r\nc') + rec('DEL', 'a');
    expect(readAll(file)).toEqual([['SET', 'a', 'b\r\nc'], ['DEL', 'a'], 'end']);
    expect(readAll(file.slice(0, -1))).toEqual([['SET', 'a', 'b\r\nc'], 'short-read']);
    expect(readAll(rec('PING') + '*')).toEqual([['PING'], 'short-read']);
    expect(readAll(rec('PING') + '*1\r\n$4')).toEqual([['PING'], 'short-read']);
    expect(readAll(rec('PING') + 'hello')).toEqual([['PING'], 'format-error']);
    expect(readAll('*0\r\n')).toEqual(['format-error']);
    expect(readAll('*1\r\nx4\r\nPING\r\n')).toEqual(['format-error']);
    expect(readAll('*\x00\r\n')).toEqual(['read-error']);
  });

  it('trusts lengths as Redis does: no CRLF check after an argument, digits read by strtol', () => {
    expect(readAll('*1\r\n$4xyz\r\nPINGzz')).toEqual([['PING'], 'end']);
    expect(readAll('*2abc\r\n$1\r\na\r\n$0\r\n\r\n')).toEqual([['a', ''], 'end']);
    expect(readAll('*1\r\n$-1\r\n')).toEqual(['short-read']);
    expect(readAll('*1\r\n$99999999999\r\nab')).toEqual(['short-read']);
  });

  it('starts after an RDB preamble', () => {
    expect(readAll('REDIS...' + rec('PING'), 8)).toEqual([['PING'], 'end']);
  });
});

describe('loading one AOF file', () => {
  it('cuts a torn tail after the last whole command when aof-load-truncated is yes', () => {
    const file = rec('SET', 'a', '1') + rec('SET', 'b', '2').slice(0, 9);
    const server = emulatedServer();
    const cut: number[] = [];
    const r = loadAofFile('x.aof', bytes(file), { loadTruncated: true, oldStyle: false }, target(server, cut));
    expect(r.status).toBe('truncated');
    expect(cut).toEqual([27]);
    expect(r.commands).toBe(1);
    expect(r.log).toEqual([
      { level: 'warning', text: '!!! Warning: short read while loading the AOF file x.aof!!!' },
      { level: 'warning', text: '!!! Truncating the AOF x.aof at offset 27 !!!' },
      { level: 'warning', text: 'AOF x.aof loaded anyway because aof-load-truncated is enabled' },
    ]);
  });

  it('reports a file it cannot open, and an empty one', () => {
    const server = emulatedServer();
    const t = target(server, []);
    expect(loadAofFile('x.aof', { missing: true, error: 'No such file or directory' }, { loadTruncated: true, oldStyle: false }, t)).toEqual({
      status: 'not-exist',
      commands: 0,
      log: [{ level: 'warning', text: "The append log file x.aof doesn't exist: No such file or directory" }],
    });
    expect(loadAofFile('x.aof', { missing: false, error: 'Permission denied' }, { loadTruncated: true, oldStyle: false }, t).status).toBe('open-error');
    expect(loadAofFile('x.aof', new Uint8Array(0), { loadTruncated: true, oldStyle: false }, t)).toEqual({ status: 'empty', commands: 0, log: [] });
  });

  it('queues everything between MULTI and EXEC and runs it at EXEC', () => {
    const server = emulatedServer();
    const file = rec('MULTI') + rec('SET', 'a', '1') + rec('INCR', 'a') + rec('EXEC') + rec('INCR', 'a');
    const r = loadAofFile('x.aof', bytes(file), { loadTruncated: false, oldStyle: false }, target(server, []));
    expect(r.status).toBe('ok');
    expect(server.execute(server.connect(), ['GET', 'a'])).toBe('3');
  });
});

interface RealStart {
  /** Level mark and text of the log lines the AOF loader writes. */
  log: string[];
  exited: boolean;
  sizes: Record<string, number>;
}

/** The messages loadSingleAppendOnlyFile and loadAppendOnlyFiles log. */
const LOADER_LINE =
  /^(Reading RDB base file on AOF loading\.\.\.|Reading RDB preamble from AOF file\.\.\.|Reading the remaining AOF tail\.\.\.|!!! |AOF .* loaded anyway|Unexpected end of file reading|Bad file format reading|Unknown command '|Revert incomplete|DB loaded from (base|incr) file|Fatal error|Unable to obtain|The append log file|Error truncating|Error reading the RDB|Unrecoverable error)/;

function loaderLines(log: AofLogEntry[]): string[] {
  return log.map((e) => `${e.level === 'warning' ? '#' : '*'} ${e.text}`.replace(/\d+\.\d{3} seconds/, 'N seconds'));
}

/** Starts a real server on `files` in appendonlydir, waits until it is ready or has exited, stops it, and reads its log. */
async function startOn(files: Record<string, string>, loadTruncated: boolean): Promise<RealStart> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-aof-load-'));
  try {
    mkdirSync(join(dir, 'appendonlydir'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, 'appendonlydir', name), Buffer.from(content, 'latin1'));
    const port = await freePort();
    const logfile = join(dir, 'redis.log');
    const child = spawn(
      REDIS_SERVER_BIN,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--appendonly', 'yes', '--aof-load-truncated', loadTruncated ? 'yes' : 'no', '--logfile', logfile, '--daemonize', 'no'],
      { stdio: 'ignore' },
    );
    let exited = false;
    const exit = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
    const deadline = Date.now() + 10_000;
    while (!exited && Date.now() < deadline) {
      if (existsSync(logfile) && readFileSync(logfile, 'utf8').includes('Ready to accept connections')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const crashed = exited;
    if (!exited) {
      child.kill('SIGTERM');
      await exit;
    }
    const log = readFileSync(logfile, 'latin1')
      .split('\n')
      .map((l) => /^\d+:[A-Z] \d\d [A-Z][a-z]{2} \d{4} [\d:.]+ ([#*.-]) (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null && LOADER_LINE.test(m[2]!))
      .map((m) => `${m[1]} ${m[2]!.replace(/\d+\.\d{3} seconds/, 'N seconds')}`);
    const sizes: Record<string, number> = {};
    for (const name of Object.keys(files)) {
      const p = join(dir, 'appendonlydir', name);
      if (existsSync(p)) sizes[name] = statSync(p).size;
    }
    return { log, exited: crashed, sizes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The emulator's loading of the same files: its log lines, whether a real server would exit, the sizes after truncation. */
function loadEmulated(files: Record<string, string>, loadTruncated: boolean): RealStart {
  const manifest = parseManifest(files['appendonly.aof.manifest']!);
  if (isManifestError(manifest)) throw new Error(manifest.reason);
  const server = emulatedServer();
  const sizes: Record<string, number> = {};
  for (const [name, content] of Object.entries(files)) sizes[name] = content.length;
  const r = loadAofFiles(
    manifest,
    (name) => (files[name] === undefined ? { missing: true, error: 'No such file or directory' } : bytes(files[name]!)),
    { loadTruncated },
    (name) => ({ ...target(server, []), truncate: (length) => ((sizes[name] = length), null) }),
  );
  return { log: loaderLines(r.log), exited: r.status === 'failed' || r.status === 'open-error', sizes };
}

describeReal('loading an appendonlydir, against redis-server', () => {
  let base = '';
  let incr = '';

  beforeAll(async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    try {
      const c = await RawConnection.open(real.port);
      await c.command(['SET', 'a', '1']);
      await c.command(['RPUSH', 'l', 'x', 'y']);
      await c.command(['MULTI']);
      await c.command(['INCR', 'n']);
      await c.command(['INCR', 'n']);
      await c.command(['EXEC']);
      await c.command(['SET', 'b', '2']);
      c.close();
      base = readFileSync(join(real.dir, 'appendonlydir', 'appendonly.aof.1.base.rdb')).toString('latin1');
      incr = readFileSync(join(real.dir, 'appendonlydir', 'appendonly.aof.1.incr.aof')).toString('latin1');
    } finally {
      await real.stop();
    }
  }, 30_000);

  const MANIFEST = 'file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n';
  const TWO = 'file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n';

  async function same(files: Record<string, string>, loadTruncated: boolean): Promise<void> {
    const real = await startOn(files, loadTruncated);
    const emu = loadEmulated(files, loadTruncated);
    expect(emu.log).toEqual(real.log);
    expect(emu.exited).toBe(real.exited);
    expect(emu.sizes).toEqual(real.sizes);
  }

  it('a sound directory, and tails torn at several offsets, with aof-load-truncated yes and no', async () => {
    const offsets = [incr.length, incr.length - 1, incr.length - 5, incr.length - 20, 60, 30, 1];
    for (const n of offsets) {
      for (const loadTruncated of [true, false]) {
        await same({ 'appendonly.aof.manifest': MANIFEST, 'appendonly.aof.1.base.rdb': base, 'appendonly.aof.1.incr.aof': incr.slice(0, n) }, loadTruncated);
      }
    }
  }, 60_000);

  it('an unfinished MULTI, a bad format, an unknown command', async () => {
    const files = (tail: string) => ({ 'appendonly.aof.manifest': MANIFEST, 'appendonly.aof.1.base.rdb': base, 'appendonly.aof.1.incr.aof': incr + tail });
    await same(files(rec('MULTI') + rec('SET', 'c', '3')), true);
    await same(files(rec('MULTI') + rec('SET', 'c', '3')), false);
    await same(files(rec('MULTI') + rec('SET', 'c', '3').slice(0, 5)), true);
    await same(files('hello\r\n'), true);
    await same(files(rec('NOSUCHCOMMAND', 'x')), true);
  }, 60_000);

  it('a torn file that is not the last, a missing file, an empty incr file', async () => {
    await same({ 'appendonly.aof.manifest': TWO, 'appendonly.aof.1.base.rdb': base, 'appendonly.aof.1.incr.aof': incr.slice(0, -3), 'appendonly.aof.2.incr.aof': rec('SET', 'z', '1') }, true);
    await same({ 'appendonly.aof.manifest': TWO, 'appendonly.aof.1.base.rdb': base, 'appendonly.aof.1.incr.aof': incr }, true);
    await same({ 'appendonly.aof.manifest': TWO, 'appendonly.aof.1.base.rdb': base, 'appendonly.aof.1.incr.aof': '', 'appendonly.aof.2.incr.aof': incr }, true);
  }, 60_000);
});
