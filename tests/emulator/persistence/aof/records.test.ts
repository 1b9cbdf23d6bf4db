/**
 * AOF records against redis-server 7.0.15: the same commands sent to a
 * real server with appendonly yes and to the emulator, whose propagated
 * writes go through AofFeed, must leave the same bytes in the incremental
 * file. Absolute expiry times (PXAT, PEXPIREAT) come from each server's
 * clock: they are checked to agree within the test's run time and then
 * masked. Skipped, with a notice, when no real server is installed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../../differential/availability.js';
import { RawConnection, startRealRedis } from '../../../support/real-redis.js';
import { AofCommandReader } from '../../../../emulator/persistence/aof/reader.js';
import { AofFeed, aofRecord, selectRecord, timestampAnnotation } from '../../../../emulator/persistence/aof/records.js';
import { createServer } from '../../../../emulator/process/create-server.js';
import { ManualClock } from '../../../../emulator/sim/clock.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! aof records vs real: ${skipNotice()}\n`);
const itReal = HAVE_REAL_REDIS ? it : it.skip;

/**
 * Commands whose writes reach the AOF in the forms 7.0 gives them. Scripts
 * are left out: the emulator has no EVAL yet.
 */
const SCRIPT: string[][] = [
  ['set', 'a', '1'],
  ['SET', 'bin', 'x\x00\xff\r\n', 'KEEPTTL'],
  ['SET', 'empty', ''],
  ['SETEX', 'ex', '100', 'v'],
  ['PSETEX', 'px', '100000', 'v'],
  ['SET', 'sx', 'v', 'EX', '1000'],
  ['SET', 'spx', 'v', 'PX', '5000', 'GET'],
  ['SET', 'sxat', 'v', 'EXAT', '4102444800'],
  ['SET', 'spxat', 'v', 'PXAT', '4102444800123'],
  ['SET', 'sxx', 'v', 'XX'],
  ['SET', 'a', '2', 'GET'],
  ['EXPIRE', 'a', '50'],
  ['PEXPIRE', 'a', '50000'],
  ['EXPIREAT', 'a', '4102444800'],
  ['PEXPIREAT', 'a', '4102444800000'],
  ['PERSIST', 'a'],
  ['EXPIRE', 'a', '-1'],
  ['SET', 'g', 'v'],
  ['GETEX', 'g', 'EX', '100'],
  ['GETEX', 'g', 'PXAT', '4102444800000'],
  ['GETEX', 'g', 'PERSIST'],
  ['GETEX', 'g'],
  ['GETDEL', 'g'],
  ['DEL', 'missing'],
  ['INCR', 'n'],
  ['INCRBYFLOAT', 'f', '1.5'],
  ['APPEND', 'n', 'x'],
  ['SELECT', '3'],
  ['RPUSH', 'l', 'a', 'b', 'c', 'd'],
  ['LPOP', 'l'],
  ['BLPOP', 'l', '0'],
  ['LMOVE', 'l', 'l2', 'LEFT', 'RIGHT'],
  ['HSET', 'h', 'f', 'v'],
  ['HINCRBYFLOAT', 'h', 'x', '2.5'],
  ['SADD', 's', 'm'],
  ['ZADD', 'z', '1', 'a', '2', 'b'],
  ['ZPOPMIN', 'z'],
  ['SELECT', '0'],
  ['MULTI'],
  ['SET', 'm1', '1'],
  ['EXEC'],
  ['MULTI'],
  ['SET', 'm2', '1'],
  ['INCR', 'm2'],
  ['GET', 'm2'],
  ['EXEC'],
  ['RENAME', 'm1', 'm3'],
  ['COPY', 'm3', 'm4'],
  ['MOVE', 'm4', '5'],
  ['SWAPDB', '0', '5'],
  ['SELECT', '5'],
  ['SET', 'in5', 'v'],
  ['FLUSHDB'],
  ['SELECT', '0'],
  ['SET', 'last', 'v'],
];

function commandsOf(file: string): string[][] {
  const r = new AofCommandReader(Uint8Array.from(Buffer.from(file, 'latin1')));
  const out: string[][] = [];
  for (;;) {
    const c = r.next();
    if (c.kind !== 'command') {
      expect(c.kind).toBe('end');
      return out;
    }
    out.push(c.argv);
  }
}

/** Replaces each absolute time with the real one after checking they agree to within `toleranceMs`. */
function alignTimes(real: string, emulated: string, toleranceMs: number): string {
  const r = commandsOf(real);
  const e = commandsOf(emulated);
  expect(e.length).toBe(r.length);
  let aligned = '';
  for (let i = 0; i < e.length; i++) {
    const argv = [...e[i]!];
    for (let j = 1; j < argv.length; j++) {
      const cmd = argv[0]!.toUpperCase();
      const absolute = (cmd === 'SET' && argv[j - 1]!.toUpperCase() === 'PXAT') || (cmd === 'PEXPIREAT' && j === 2);
      if (absolute && argv[j] !== r[i]![j]) {
        expect(Math.abs(Number(argv[j]) - Number(r[i]![j])), `${r[i]!.join(' ')} vs ${argv.join(' ')}`).toBeLessThan(toleranceMs);
        argv[j] = r[i]![j]!;
      }
    }
    aligned += aofRecord(argv);
  }
  return aligned;
}

describe('AOF records', () => {
  it('writes SELECT when the database changes, and only then', () => {
    const feed = new AofFeed();
    expect(feed.append(0, ['SET', 'a', '1'])).toBe(selectRecord(0) + '*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n');
    expect(feed.append(0, ['DEL', 'a'])).toBe('*2\r\n$3\r\nDEL\r\n$1\r\na\r\n');
    expect(feed.append(12, ['DEL', 'a'])).toBe('*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n*2\r\n$3\r\nDEL\r\n$1\r\na\r\n');
    feed.forgetSelectedDb();
    expect(feed.append(12, ['DEL', 'a']).startsWith(selectRecord(12))).toBe(true);
  });

  it('annotates the time before the SELECT, once per second, when timestamps are on', () => {
    const feed = new AofFeed(true);
    expect(feed.append(0, ['SET', 'a', '1'], 1_767_225_600)).toBe(timestampAnnotation(1_767_225_600) + selectRecord(0) + aofRecord(['SET', 'a', '1']));
    expect(feed.append(0, ['SET', 'a', '1'], 1_767_225_600)).toBe(aofRecord(['SET', 'a', '1']));
    expect(feed.append(0, ['SET', 'a', '1'], 1_767_225_601)).toBe('#TS:1767225601\r\n' + aofRecord(['SET', 'a', '1']));
  });

  itReal('the emulator leaves the same bytes in the incr file as redis-server for the same commands', async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    try {
      const c = await RawConnection.open(real.port);
      const startMs = Date.now();
      for (const argv of SCRIPT) await c.command(argv);
      const tookMs = Date.now() - startMs;
      c.close();
      const realFile = readFileSync(join(real.dir, 'appendonlydir', 'appendonly.aof.1.incr.aof')).toString('latin1');

      const server = createServer({ clock: new ManualClock(startMs * 1000), config: { save: '' } });
      const feed = new AofFeed();
      let emulated = '';
      server.onPropagate((db, argv) => {
        emulated += feed.append(db, argv);
      });
      const client = server.connect();
      for (const argv of SCRIPT) server.execute(client, argv);

      expect(commandsOf(emulated).map((a) => a[0])).toEqual(commandsOf(realFile).map((a) => a[0]));
      const aligned = alignTimes(realFile, emulated, tookMs + 2000);
      expect(aligned).toBe(realFile);
    } finally {
      await real.stop();
    }
  }, 30_000);

  itReal('with aof-timestamp-enabled the file starts with the annotation, then SELECT', async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--aof-timestamp-enabled', 'yes']);
    try {
      const c = await RawConnection.open(real.port);
      await c.command(['SET', 'a', '1']);
      c.close();
      const file = readFileSync(join(real.dir, 'appendonlydir', 'appendonly.aof.1.incr.aof')).toString('latin1');
      const m = /^#TS:(\d+)\r\n/.exec(file);
      expect(m).not.toBeNull();
      const feed = new AofFeed(true);
      expect(feed.append(0, ['SET', 'a', '1'], Number(m![1]))).toBe(file);
    } finally {
      await real.stop();
    }
  });

  itReal('after BGREWRITEAOF the new incr file starts with SELECT', async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    try {
      const c = await RawConnection.open(real.port);
      await c.command(['SELECT', '2']);
      await c.command(['SET', 'a', '1']);
      await c.command(['BGREWRITEAOF']);
      for (let i = 0; i < 200; i++) {
        const info = (await c.command(['INFO', 'persistence'])) as string;
        if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info)) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await c.command(['SET', 'b', '2']);
      c.close();
      const file = readFileSync(join(real.dir, 'appendonlydir', 'appendonly.aof.2.incr.aof')).toString('latin1');
      const feed = new AofFeed();
      feed.append(2, ['SET', 'a', '1']);
      feed.forgetSelectedDb();
      expect(feed.append(2, ['SET', 'b', '2'])).toBe(file);
    } finally {
      await real.stop();
    }
  });
});
