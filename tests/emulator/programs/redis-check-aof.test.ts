/**
 * redis-check-aof against the real 7.0.15 tool: the same directories
 * (a real server's appendonlydir, single files, files with an RDB
 * preamble, hand-made manifests), whole, truncated, bit-flipped and
 * foreign, with and without --fix and --truncate-to-timestamp, must give
 * the same output byte for byte, the same exit code and the same files
 * afterwards. Only the pid and time of the lines that come from the
 * server's log are normalised. Skipped, with a notice, when the tools are
 * not installed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../differential/availability.js';
import { RawConnection, startRealRedis, type RealRedis } from '../../support/real-redis.js';
import { HAVE_REAL_CHECK_TOOLS, runEmulated, runReal, seeded, type CaseFiles, type RunOptions } from '../../support/real-check-tools.js';
import { aofRecord } from '../../../emulator/persistence/aof/records.js';
import { runRedisCheckAof } from '../../../emulator/programs/redis-check-aof.js';
import { Disk } from '../../../emulator/sim/disk.js';
import { DISK_PROFILES } from '../../../emulator/sim/disk-api.js';
import { Kernel } from '../../../emulator/sim/kernel.js';

const ENABLED = HAVE_REAL_REDIS && HAVE_REAL_CHECK_TOOLS;
if (!ENABLED) console.warn(`\n!!! redis-check-aof vs real: ${skipNotice()} (or redis-check-aof missing)\n`);
const describeReal = ENABLED ? describe : describe.skip;

/**
 * After checking an RDB part, the real tool reports a `*` line cut short
 * with a byte of stack memory the RDB check left behind, which changes
 * from run to run (addresses); the emulator prints 0 there. Only that
 * byte is masked, and only in the cases that check an RDB part first.
 */
function maskStackByte(text: string): string {
  return text.replace(/(Expected \\r\\n, got: 00)(?:ffffff)?[0-9a-f]{2}$/gm, '$1??');
}

/** Runs both tools and expects the same output, exit code and files afterwards. */
function same(files: CaseFiles, args: string[], opts: RunOptions & { afterRdb?: boolean } = {}): string {
  const real = runReal('aof', files, args, opts);
  const emu = runEmulated('aof', files, args, opts);
  const what = `redis-check-aof ${args.join(' ')}`;
  if (opts.afterRdb) {
    real.stdout = maskStackByte(real.stdout);
    emu.stdout = maskStackByte(emu.stdout);
  }
  expect(emu.stdout, `stdout of ${what}`).toBe(real.stdout);
  expect(emu.code, `exit code of ${what}`).toBe(real.code);
  expect(emu.files, `files after ${what}`).toEqual(real.files);
  return real.stdout;
}

const rec = (...argv: string[]): string => aofRecord(argv);
const YES = { answer: 'y' };

const MANIFEST = 'file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n';
const TWO_INCR = 'file a.1.incr.aof seq 1 type i\nfile a.2.incr.aof seq 2 type i\n';

let real: RealRedis | null = null;
/** The files of a real appendonlydir after a few writes. */
let dir: { manifest: string; base: string; incr: string } = { manifest: '', base: '', incr: '' };
/** A real dump.rdb, to build an old-style AOF with an RDB preamble. */
let dump = '';

describeReal('redis-check-aof matches the real tool', () => {
  beforeAll(async () => {
    real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    const c = await RawConnection.open(real.port);
    const run = (...argv: string[]) => c.command(argv);
    await run('SET', 'a', '1');
    await run('SETEX', 'b', '100', 'v');
    await run('SELECT', '3');
    await run('RPUSH', 'l', 'x', 'y', 'with space', 'bin\x00\xff');
    await run('MULTI');
    await run('INCR', 'n');
    await run('INCR', 'n');
    await run('EXEC');
    await run('SELECT', '0');
    await run('HSET', 'h', 'f', 'v');
    await run('SAVE');
    c.close();
    const aofDir = join(real.dir, 'appendonlydir');
    const read = (name: string) => readFileSync(join(aofDir, name)).toString('latin1');
    dir = { manifest: read('appendonly.aof.manifest'), base: read('appendonly.aof.1.base.rdb'), incr: read('appendonly.aof.1.incr.aof') };
    dump = readFileSync(join(real.dir, 'dump.rdb')).toString('latin1');
  }, 30_000);

  afterAll(async () => {
    await real?.stop();
  });

  const appendonlydir = (incr = dir.incr, base = dir.base, manifest = dir.manifest): CaseFiles => ({
    'appendonlydir/appendonly.aof.manifest': manifest,
    'appendonlydir/appendonly.aof.1.base.rdb': base,
    'appendonlydir/appendonly.aof.1.incr.aof': incr,
  });

  it('a real appendonlydir, through its manifest and file by file', () => {
    expect(dir.manifest).toBe(MANIFEST);
    const out = same(appendonlydir(), ['appendonlydir/appendonly.aof.manifest']);
    expect(out).toContain('RDB preamble is OK, proceeding with AOF tail...\n');
    expect(out.endsWith('All AOF files and manifest are valid\n')).toBe(true);
    same(appendonlydir(), ['appendonlydir/appendonly.aof.1.incr.aof']);
    same(appendonlydir(), ['appendonlydir/appendonly.aof.1.base.rdb']);
    same({ 'appendonly.aof.manifest': dir.manifest, 'appendonly.aof.1.base.rdb': dir.base, 'appendonly.aof.1.incr.aof': dir.incr }, ['appendonly.aof.manifest']);
  });

  it('the incr file truncated at every offset, checked and fixed', () => {
    const incr = dir.incr;
    for (let n = 0; n <= incr.length; n++) {
      same({ 'a.aof': incr.slice(0, n) }, ['a.aof']);
      same(appendonlydir(incr.slice(0, n)), ['--fix', 'appendonlydir/appendonly.aof.manifest'], { ...YES, afterRdb: true });
    }
  }, 120_000);

  it('bit flips in the incr file', () => {
    const pick = seeded(5);
    for (let i = 0; i < 150; i++) {
      const at = pick(dir.incr.length);
      const mask = [0x01, 0x08, 0x20, 0x80, 0xff][pick(5)]!;
      const flipped = dir.incr.slice(0, at) + String.fromCharCode(dir.incr.charCodeAt(at) ^ mask) + dir.incr.slice(at + 1);
      same({ 'a.aof': flipped }, ['--fix', 'a.aof'], YES);
    }
  }, 60_000);

  it('the RDB base truncated and flipped: the RDB check, then the verdict', () => {
    for (let n = 0; n <= dir.base.length; n++) same(appendonlydir(dir.incr, dir.base.slice(0, n)), ['appendonlydir/appendonly.aof.manifest']);
    for (let at = 0; at < dir.base.length; at++) {
      const flipped = dir.base.slice(0, at) + String.fromCharCode(dir.base.charCodeAt(at) ^ 0x41) + dir.base.slice(at + 1);
      same(appendonlydir(dir.incr, flipped), ['appendonlydir/appendonly.aof.manifest']);
    }
  }, 60_000);

  it('an old-style AOF with an RDB preamble, its tail truncated and fixed', () => {
    const file = dump + rec('SET', 'x', '1') + rec('DEL', 'x');
    for (let n = dump.length - 10; n <= file.length; n++) same({ 'appendonly.aof': file.slice(0, n) }, ['--fix', 'appendonly.aof'], { ...YES, afterRdb: true });
  }, 60_000);

  it('--fix answered no, answered with Enter, or with input closed', () => {
    const files = { 'a.manifest': TWO_INCR, 'a.1.incr.aof': dir.incr, 'a.2.incr.aof': dir.incr.slice(0, -3) };
    same(files, ['--fix', 'a.manifest'], { answer: 'Y' });
    same(files, ['--fix', 'a.manifest'], { answer: 'n' });
    same(files, ['--fix', 'a.manifest'], { answer: '\n' });
    same(files, ['--fix', 'a.manifest'], { answer: null });
  });

  it('a damaged file that is not the last one cannot be fixed; line numbers run on across files', () => {
    same({ 'a.manifest': TWO_INCR, 'a.1.incr.aof': dir.incr.slice(0, -3), 'a.2.incr.aof': dir.incr }, ['--fix', 'a.manifest'], YES);
    same({ 'a.manifest': TWO_INCR, 'a.1.incr.aof': dir.incr, 'a.2.incr.aof': dir.incr.slice(0, -3) }, ['a.manifest']);
    same({ 'a.manifest': TWO_INCR, 'a.1.incr.aof': '', 'a.2.incr.aof': '' }, ['a.manifest']);
    same({ 'a.manifest': TWO_INCR, 'a.1.incr.aof': dir.incr }, ['a.manifest']);
    same({ 'a.manifest': MANIFEST }, ['a.manifest']);
    same({ 'a.manifest': 'file x seq 1 type h\n' }, ['a.manifest']);
  });

  it('usage, bad options, missing files, directories, empty and foreign files', () => {
    same({}, []);
    same({}, ['a', 'b', 'c', 'd']);
    same({}, ['--fx', 'a.aof']);
    same({}, ['--fix']);
    same({}, ['--truncate-to-timestamp', '12x', 'a.aof']);
    same({}, ['missing.aof']);
    same({ dd: null }, ['dd']);
    same({ 'e.aof': '' }, ['e.aof']);
    same({ 'x.png': '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10' }, ['--fix', 'x.png'], YES);
    same({ 'r.aof': 'REDIS0010' }, ['r.aof']);
    same({ 'x.aof': 'hello world\n' }, ['x.aof']);
  });

  it('manifests Redis refuses, with the lines it logs', () => {
    const manifests = [
      '',
      '# only a comment\n',
      'file x seq 1 type z\n',
      'file x.aof seq 1\n',
      'file a/x seq 1 type i\n',
      'file a\\x seq 1 type i\n',
      'file x seq 2 type i\nfile y seq 1 type i\n',
      'file x seq 1 type b\nfile y seq 2 type b\n',
      'file "x y.aof" seq 1 type i\n',
      '\nfile x seq 1 type i\n',
      '   \t\r\n',
      'file x seq 1 type i',
      'FILE x SEQ 1 TYPE i extra 5\n',
      'file x seq 0 type i\n',
      'file x seq -1 type h\n',
      'file "unterminated seq 1 type i\n',
      'file "x\\x01" seq 1 type i\n',
      'file x seq 1 type "" \n',
      'file ' + 'x'.repeat(1100) + ' seq 1 type i\n',
    ];
    for (const m of manifests) same({ 'm.manifest': m }, ['m.manifest']);
  });

  it('--truncate-to-timestamp', () => {
    const ts = '#TS:100\r\n' + rec('SET', 'a', '1') + '#TS:200\r\n' + rec('SET', 'b', '2') + '#TS:300\r\n' + rec('SET', 'c', '3');
    for (const t of ['50', '100', '150', '250', '300', '400', '0', '', '-5', '99999999999999999999']) same({ 't.aof': ts }, ['--truncate-to-timestamp', t, 't.aof']);
    same({ 't.aof': '#TS:900\r\n' + rec('SET', 'a', '1') }, ['--truncate-to-timestamp', '100', 't.aof']);
    same({ 't.aof': '#TS:9x\r\n' + rec('SET', 'a', '1') }, ['--truncate-to-timestamp', '100', 't.aof']);
    same({ 't.aof': ts.slice(0, -4) }, ['--truncate-to-timestamp', '150', 't.aof']);
    same({ 't.aof': ts.slice(0, -4) }, ['--truncate-to-timestamp', '1000', 't.aof']);
    same({ 'a.manifest': TWO_INCR, 'a.1.incr.aof': ts, 'a.2.incr.aof': ts }, ['--truncate-to-timestamp', '150', 'a.manifest']);
    same({ 'a.manifest': TWO_INCR, 'a.1.incr.aof': ts, 'a.2.incr.aof': ts }, ['--truncate-to-timestamp', '500', 'a.manifest']);
    same({ 'a.manifest': TWO_INCR, 'a.1.incr.aof': rec('SET', 'a', '1'), 'a.2.incr.aof': ts }, ['--truncate-to-timestamp', '250', 'a.manifest']);
  });

  it('transactions: closed, left open, nested, EXEC alone, names cut at NUL', () => {
    const cases = [
      rec('MULTI') + rec('SET', 'a', '1') + rec('EXEC'),
      rec('MULTI') + rec('SET', 'a', '1'),
      rec('MULTI') + rec('multi'),
      rec('SET', 'a', '1') + rec('EXEC'),
      rec('MULTI\x00x') + rec('SET', 'a', '1'),
      rec('multi') + rec('SET', 'a', '1') + rec('exec') + rec('MULTI') + rec('DEL', 'a').slice(0, -2),
    ];
    for (const c of cases) {
      same({ 'a.aof': c }, ['a.aof']);
      same({ 'a.aof': c }, ['--fix', 'a.aof'], YES);
    }
  });

  it('a length no allocation can satisfy crashes the tool with the start of a bug report', () => {
    const mask = (t: string) => t.replace(/\[0x[0-9a-f]+\]/g, '[ADDR]');
    const huge = '*1\r\n$100000000000000\r\n';
    const cases: Array<[CaseFiles, string[]]> = [
      [{ 'a.aof': huge }, ['a.aof']],
      [{ 'a.manifest': 'file a.1.incr.aof seq 1 type i\n', 'a.1.incr.aof': huge }, ['a.manifest']],
      [{ 'a.manifest': 'file b.aof seq 1 type b\n', 'b.aof': huge }, ['a.manifest']],
      [{ 'a.aof': dump + huge }, ['a.aof']],
    ];
    for (const [files, args] of cases) {
      const real = runReal('aof', files, args);
      const emu = runEmulated('aof', files, args);
      expect(mask(emu.stdout)).toBe(mask(real.stdout));
      expect(emu.code).toBe(real.code);
    }
  });

  it('odd records: huge or negative counts and lengths, long lines, stale buffer bytes in the messages', () => {
    const cases = [
      '*1\r\n$1000000000000\r\n',
      '*1\r\n$-1\r\n',
      '*1\r\n$99999999999999999999\r\n',
      '*99999999999\r\n' + rec('PING'),
      '*-3\r\n' + rec('PING'),
      '*0\r\n',
      '*1' + ' '.repeat(200) + '\r\n',
      '*        1\r\n$4\r\nPING\r\n*1',
      '*1\r\n$        4\r\nPING\r\n*1\r\n$4',
      '*1\r\n$4\r\nPING\r\n*',
      '*1\r\n$4\r\nPING\r\n#TS:1\r\n*',
      '*2\xff\r\n',
      '*2\x00\r\n',
      '*1\r\n$4\r\nPI\x00G\r\n',
      '*1\r\n$4\r\nPINGxx',
      '#' + 'x'.repeat(2000) + '\r\n' + rec('PING'),
      rec('PING') + '\r\n',
    ];
    for (const c of cases) same({ 'a.aof': c }, ['a.aof']);
  });
});

describe('redis-check-aof on the simulated disk', () => {
  it('resolves paths from the working directory and truncates through the disk', () => {
    const disk = new Disk(new Kernel({ seed: 1 }), 'h', DISK_PROFILES.ssd);
    disk.mkdir('/data/appendonlydir', { recursive: true });
    const incr = rec('SET', 'a', '1') + rec('SET', 'b', '2').slice(0, 10);
    disk.writeFile('/data/appendonlydir/appendonly.aof.manifest', Buffer.from('file appendonly.aof.1.incr.aof seq 1 type i\n'));
    disk.writeFile('/data/appendonlydir/appendonly.aof.1.incr.aof', Buffer.from(incr, 'latin1'));
    let out = '';
    const code = runRedisCheckAof(disk, '/data', ['redis-check-aof', '--fix', 'appendonlydir/appendonly.aof.manifest'], (t) => (out += t), { answer: 'y' });
    expect(code).toBe(0);
    expect(out).toBe(
      'Start checking Multi Part AOF\n' +
        'Start to check INCR files.\n' +
        '0x              23: Expected to read 5 bytes, got 2 bytes\n' +
        'AOF analyzed: filename=appendonly.aof.1.incr.aof, size=37, ok_up_to=27, ok_up_to_line=10, diff=10\n' +
        'This will shrink the AOF appendonly.aof.1.incr.aof from 37 bytes, with 10 bytes, to 27 bytes\n' +
        'Continue? [y/N]: Successfully truncated AOF appendonly.aof.1.incr.aof\n' +
        'All AOF files and manifest are valid\n',
    );
    const st = disk.stat('/data/appendonlydir/appendonly.aof.1.incr.aof');
    expect(st.size).toBe(27);
  });

  it('asks the answer function at the prompt, and aborts on anything but y', () => {
    const disk = new Disk(new Kernel({ seed: 1 }), 'h', DISK_PROFILES.ssd);
    disk.writeFile('/a.aof', Buffer.from('*1\r\n$4\r\nPI', 'latin1'));
    let out = '';
    let asked = 0;
    const answer = () => {
      asked++;
      expect(out.endsWith('Continue? [y/N]: ')).toBe(true);
      return 'n';
    };
    expect(runRedisCheckAof(disk, '/', ['redis-check-aof', '--fix', 'a.aof'], (t) => (out += t), { answer })).toBe(1);
    expect(asked).toBe(1);
    expect(out.endsWith('Continue? [y/N]: Aborting...\n')).toBe(true);
    expect(disk.stat('/a.aof').size).toBe(10);
  });

  it('prints a bad manifest as the server logs it, with the pid and time given', () => {
    const disk = new Disk(new Kernel({ seed: 1 }), 'h', DISK_PROFILES.ssd);
    disk.writeFile('/m.manifest', Buffer.from('file x seq 1 type z\n'));
    let out = '';
    expect(runRedisCheckAof(disk, '/', ['redis-check-aof', 'm.manifest'], (t) => (out += t), { pid: 9, nowMs: 1_767_225_600_000 })).toBe(1);
    expect(out).toBe(
      'Start checking Multi Part AOF\n' +
        '9:C 01 Jan 2026 00:00:00.000 # \n*** FATAL AOF MANIFEST FILE ERROR ***\n\n' +
        "9:C 01 Jan 2026 00:00:00.000 # Reading the manifest file, at line 1\n\n" +
        "9:C 01 Jan 2026 00:00:00.000 # >>> 'file x seq 1 type z'\n\n" +
        '9:C 01 Jan 2026 00:00:00.000 # Unknown AOF file type\n\n',
    );
  });
});
