/**
 * MEMORY USAGE against redis-server 7.0.15: the estimates must stay within
 * 30% of the real server's figures for values of every type, encoding and
 * size. A few small values have exact sizes that are checked without a
 * real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../differential/availability.js';
import { RawConnection, startRealRedis, type RealRedis } from '../../support/real-redis.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import type { Reply } from '../../../emulator/resp/reply.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! memory-estimate: ${skipNotice()}\n`);

function emulator() {
  const server = createServer({ clock: new ManualClock(1_767_225_600_000_000), config: { save: '' } });
  const c = server.connect();
  return (...argv: string[]): Reply => server.execute(c, argv);
}

const range = <T,>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** Values as the commands that build them; each key is measured with default and full sampling. */
const VALUES: Array<[string, string[][]]> = [
  ['int', [['SET', 'k', '12345']]],
  ['embstr', [['SET', 'k', 'hello world']]],
  ['raw', [['SET', 'k', 'x'.repeat(1000)]]],
  ['big raw', [['SET', 'k', 'x'.repeat(100000)]]],
  ['small list', [['RPUSH', 'k', 'a', 'b', 'c']]],
  ['long list', [['RPUSH', 'k', ...range(5000, (i) => `element-${i}`)]]],
  ['list of integers', [['RPUSH', 'k', ...range(3000, String)]]],
  ['list of big elements', [['RPUSH', 'k', ...range(20, (i) => 'v'.repeat(3000 + i))]]],
  ['intset', [['SADD', 'k', ...range(300, String)]]],
  ['small hashtable set', [['SADD', 'k', 'a', 'b', 'c']]],
  ['hashtable set', [['SADD', 'k', ...range(1000, (i) => `member:${i}`)]]],
  ['listpack zset', [['ZADD', 'k', ...range(100, (i) => [String(i * 1.5), `m${i}`]).flat()]]],
  ['skiplist zset', [['ZADD', 'k', ...range(2000, (i) => [String(i), `member:${i}`]).flat()]]],
  ['listpack hash', [['HSET', 'k', ...range(100, (i) => [`f${i}`, `value-${i}`]).flat()]]],
  ['hashtable hash', [['HSET', 'k', ...range(2000, (i) => [`field:${i}`, `value:${i}`]).flat()]]],
  ['hash of long values', [['HSET', 'k', ...range(50, (i) => [`f${i}`, 'v'.repeat(200)]).flat()]]],
  ['compressed list', [['CONFIG', 'SET', 'list-compress-depth', '1'], ['RPUSH', 'k', ...range(5000, (i) => `compressible-${i % 7}`)]]],
];

describe('MEMORY USAGE without a real server', () => {
  it('gives the sizes redis-server 7.0.15 gives for small values', () => {
    // Measured on redis-server 7.0.15 (jemalloc 5.3.0).
    const cases: Array<[string[], number]> = [
      [['SET', 'i', '123'], 48],
      [['SET', 'e', 'hello'], 64],
      [['SET', 'r', 'x'.repeat(100)], 160],
      [['RPUSH', 'l', 'a'], 144],
      [['SADD', 'si', '1', '2', '3'], 64],
      [['SADD', 'sh', 'a', 'b', 'c'], 232],
      [['SADD', 'sh8', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], 424],
      [['ZADD', 'zl', '1', 'a'], 64],
      [['HSET', 'hl', 'f', 'v'], 64],
    ];
    const run = emulator();
    for (const [cmd, bytes] of cases) {
      run(...cmd);
      expect(run('MEMORY', 'USAGE', cmd[1]!), cmd.join(' ')).toBe(bytes);
    }
    run('CONFIG', 'SET', 'zset-max-listpack-entries', '0');
    run('ZADD', 'zs', '1', 'a');
    expect(run('MEMORY', 'USAGE', 'zs')).toBeGreaterThanOrEqual(904);
    run('CONFIG', 'SET', 'hash-max-listpack-entries', '0');
    run('HSET', 'hh', 'f', 'v');
    expect(run('MEMORY', 'USAGE', 'hh')).toBe(176);
  });
});

describe.skipIf(!HAVE_REAL_REDIS)('MEMORY USAGE against redis-server 7.0.15', () => {
  let real: RealRedis;
  let c: RawConnection;
  beforeAll(async () => {
    real = await startRealRedis();
    c = await RawConnection.open(real.port);
  });
  afterAll(async () => {
    c?.close();
    await real?.stop();
  });

  for (const [name, commands] of VALUES) {
    it(`stays within 30% for a ${name}`, async () => {
      await c.command(['FLUSHALL']);
      await c.command(['CONFIG', 'SET', 'list-compress-depth', '0']);
      const run = emulator();
      for (const cmd of commands) {
        await c.command(cmd);
        run(...cmd);
      }
      for (const samples of [[], ['SAMPLES', '0']]) {
        const expected = (await c.command(['MEMORY', 'USAGE', 'k', ...samples])) as number;
        const got = run('MEMORY', 'USAGE', 'k', ...samples) as number;
        expect(Math.abs(got - expected) / expected, `${name} ${samples.join(' ')}: ${got} vs ${expected}`).toBeLessThanOrEqual(0.3);
      }
    });
  }
});
