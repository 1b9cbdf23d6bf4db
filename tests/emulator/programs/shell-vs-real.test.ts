/**
 * The shell's programs next to the real tools on the same input: hexdump
 * (util-linux), ls's columns and date (coreutils), and redis-server's
 * log line, version and usage (the 7.0.15 binary). Each comparison skips
 * with a notice when its tool is not installed; redis-server is required
 * where the differential corpus requires it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonical, words16 } from '../../../emulator/programs/shell/hexdump.js';
import { columns } from '../../../emulator/programs/shell/ls.js';
import { dateDefault } from '../../../emulator/programs/shell/dates.js';
import { REAL_REDIS_REQUIRED } from '../../differential/availability.js';
import { REDIS_SERVER_BIN, realRedisVersion } from '../../support/real-redis.js';
import { shellWorld } from './shell-harness.js';

function have(tool: string, args: string[]): boolean {
  const r = spawnSync(tool, args, { encoding: 'utf8' });
  return r.status === 0 || (r.error === undefined && r.status !== null);
}

const HAVE_HEXDUMP = have('hexdump', ['-V']);
const HAVE_LS = have('ls', ['--version']);
const HAVE_DATE = have('date', ['--version']);
const HAVE_REDIS = realRedisVersion() === '7.0.15';
if (!HAVE_REDIS && REAL_REDIS_REQUIRED) throw new Error('redis-server 7.0.15 is required here (CI) but was not found');

const dir = mkdtempSync(join(tmpdir(), 'shell-vs-real-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded byte pattern with runs of repeated lines, for hexdump's '*'. */
function sample(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    // Long stretches of one byte make repeated 16-byte lines.
    out[i] = (i >> 6) % 3 === 0 ? 0 : (x >>> 16) & 0xff;
  }
  return out;
}

function realHexdump(args: string[], data: Uint8Array, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, data);
  const r = spawnSync('hexdump', [...args, file], { encoding: 'latin1', env: { ...process.env, LC_ALL: 'C' } });
  return r.stdout + r.stderr;
}

describe.skipIf(!HAVE_HEXDUMP)(HAVE_HEXDUMP ? 'hexdump next to util-linux hexdump' : 'hexdump next to util-linux hexdump (SKIPPED: hexdump not installed; Debian has it in bsdextrautils)', () => {
  const lengths = [0, 1, 15, 16, 17, 31, 32, 33, 64, 100, 255, 256, 1000, 4097];
  it('hexdump -C gives the same bytes for data of every shape', () => {
    for (const n of lengths) {
      const data = sample(n, n + 1);
      expect(canonical(data), `${n} bytes`).toBe(realHexdump(['-C'], data, `c${n}`));
    }
  });

  it('hexdump without options gives the same 16-bit words', () => {
    for (const n of lengths) {
      const data = sample(n, n + 7);
      expect(words16(data), `${n} bytes`).toBe(realHexdump([], data, `w${n}`));
    }
  });

  it('hexdump -C of a file in the shell, with -s and -n, is the real one', () => {
    const { world, run } = shellWorld();
    const data = sample(700, 3);
    world.host('redis').disk.writeFile('/root/d', data);
    for (const args of [['-C'], ['-C', '-s', '5'], ['-C', '-n', '20'], ['-C', '-s', '100', '-n', '300'], ['-C', '-s', '1000'], ['-s', '3', '-n', '33'], ['-C', '-n', '0'], ['-C', '-v']]) {
      expect(run(`hexdump ${args.join(' ')} /root/d`), args.join(' ')).toBe(realHexdump(args, data, 'd'));
    }
  });
});

describe.skipIf(!HAVE_LS)(HAVE_LS ? 'ls columns next to GNU ls' : 'ls columns next to GNU ls (SKIPPED: GNU ls not found)', () => {
  it('ls -C lays names out as GNU ls does at 80 columns', () => {
    const sets = [
      ['appendonly.aof', 'dump.rdb', 'redis.conf', 'a', 'bb', 'ccc', 'dddddddddddd', 'eeeeeeeeeeeeeeeeeeee', 'f', 'g', 'hhhhhhhhh', 'iiiiiiiiiiiiiiiiiiiiiiiiii', 'j'],
      Array.from({ length: 40 }, (_, i) => `key:${i * 37}`),
      ['one-very-long-name-that-takes-most-of-the-line-by-itself-xxxxxxxxxxxxx', 'short'],
      ['x'],
    ];
    sets.forEach((names, k) => {
      const d = join(dir, `ls${k}`);
      rmSync(d, { recursive: true, force: true });
      spawnSync('mkdir', [d]);
      for (const n of names) writeFileSync(join(d, n), '');
      const real = spawnSync('ls', ['-C', d], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', COLUMNS: '80' } }).stdout;
      expect(columns([...names].sort(), 80)).toBe(real);
    });
  });
});

describe.skipIf(!HAVE_DATE)(HAVE_DATE ? 'date next to GNU date' : 'date next to GNU date (SKIPPED: GNU date not found)', () => {
  it('prints the default format in the C locale and UTC', () => {
    for (const sec of [1_767_225_600, 1_767_225_600 + 86_400 * 45 + 3661, 1_800_000_000, 946_684_799]) {
      const real = spawnSync('date', ['-d', `@${sec}`], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' } }).stdout;
      expect(dateDefault(sec * 1e6) + '\n').toBe(real);
    }
  });
});

/** Runs the real redis-server on arguments that make it stop on its configuration. */
function realServer(args: string[]): { stdout: string; stderr: string; status: number | null } {
  // Every case here is a fatal configuration error: the server exits by
  // itself. The timeout kills the child only if a case were to start it.
  const r = spawnSync(REDIS_SERVER_BIN, args, { encoding: 'latin1', cwd: dir, timeout: 10_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

// The fatal errors of every bad option and file, next to the real ones, are in
// tests/differential/server-config-load.test.ts (the shell and npm run server share one reader).
describe.skipIf(!HAVE_REDIS)(HAVE_REDIS ? 'redis-server configuration errors next to redis-server 7.0.15' : 'redis-server configuration errors (SKIPPED: redis-server 7.0.15 not found)', () => {
  it('cannot open a config file that is not there, and says so in the log format', () => {
    const { run } = shellWorld();
    const real = realServer(['/nonexistent-dir-for-the-test/redis.conf']);
    const mine = run('redis-server /nonexistent-dir-for-the-test/redis.conf');
    expect(mine).toMatch(/^\d+:C 01 Jan 2026 00:00:00\.\d{3} # /);
    expect(mine.replace(/^\d+:C [^#]+# /, '')).toBe(real.stdout.replace(/^\d+:C [^#]+# /, ''));
  });

  it('prints its version and usage as the packaged binary does', () => {
    const { run } = shellWorld();
    expect(run('redis-server --version')).toBe(realServer(['--version']).stdout);
    const usage = realServer(['--help']);
    expect(run('redis-server --help')).toBe(usage.stdout + usage.stderr);
  });
});
