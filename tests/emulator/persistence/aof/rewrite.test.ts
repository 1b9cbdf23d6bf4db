/**
 * The pure-AOF base a rewrite writes with aof-use-rdb-preamble no, against
 * redis-server 7.0.15: for the same dataset, each key's commands must be
 * the same bytes. Redis walks keys in the order of its hash table, seeded
 * at random at startup, so keys are compared one by one, not in file
 * order; values are kept in encodings whose order is deterministic.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../../differential/availability.js';
import { RawConnection, startRealRedis } from '../../../support/real-redis.js';
import { AofCommandReader } from '../../../../emulator/persistence/aof/reader.js';
import { aofRecord } from '../../../../emulator/persistence/aof/records.js';
import { rewriteAof } from '../../../../emulator/persistence/aof/rewrite.js';
import { snapshotDatabases } from '../../../../emulator/persistence/rdb-dataset.js';
import { createServer } from '../../../../emulator/process/create-server.js';
import { ManualClock } from '../../../../emulator/sim/clock.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! aof rewrite vs real: ${skipNotice()}\n`);
const itReal = HAVE_REAL_REDIS ? it : it.skip;

const DATASET: string[][] = [
  ['SET', 'int', '12345'],
  ['SET', 'raw', 'x'.repeat(100)],
  ['SET', 'bin', 'a\x00\xff\r\n'],
  ['SET', 'empty', ''],
  ['RPUSH', 'list', ...Array.from({ length: 150 }, (_, i) => (i % 3 === 0 ? String(i) : `item${i}`))],
  ['SADD', 'intset', '5', '-3', '100', '1', '9223372036854775807', '-9223372036854775808'],
  ['HSET', 'hash', 'f1', 'v1', 'f2', '2', 'f3', ''],
  ['ZADD', 'zset', '2', 'b', '1', 'a', '1', 'c', '-1.5', 'd', 'inf', 'e', '0.1', 'f'],
  ['SET', 'ttl', 'v'],
  ['PEXPIREAT', 'ttl', '4102444800123'],
  ['SELECT', '4'],
  ['SET', 'four', '4'],
];

/** Each key's commands, per database, from a base file. */
function byKey(file: string): Map<string, string> {
  const r = new AofCommandReader(Uint8Array.from(Buffer.from(file, 'latin1')));
  const out = new Map<string, string>();
  let db = '';
  for (;;) {
    const c = r.next();
    if (c.kind !== 'command') {
      expect(c.kind).toBe('end');
      return out;
    }
    if (c.argv[0] === 'SELECT') {
      db = c.argv[1]!;
      continue;
    }
    const id = `${db}/${c.argv[1]}`;
    out.set(id, (out.get(id) ?? '') + aofRecord(c.argv));
  }
}

describe('AOF rewrite', () => {
  it('cuts long values into commands of at most 64 items, and annotates and loads functions first', () => {
    const server = createServer({ clock: new ManualClock(1_767_225_600_000 * 1000), config: { save: '' } });
    const c = server.connect();
    server.execute(c, ['HSET', 'h', ...Array.from({ length: 130 }, (_, i) => [`f${i}`, `v${i}`]).flat()]);
    const text = rewriteAof(snapshotDatabases(server), { functions: ['#!lua name=x\nreturn 1'], timestampSeconds: 1_767_225_600 }) as string;
    expect(text.startsWith('#TS:1767225600\r\n*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$21\r\n#!lua name=x\nreturn 1\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n')).toBe(true);
    const hmsets = text.split('$5\r\nHMSET\r\n').slice(1);
    expect(text.match(/\*(\d+)\r\n\$5\r\nHMSET/g)).toEqual(['*130\r\n$5\r\nHMSET', '*130\r\n$5\r\nHMSET', '*6\r\n$5\r\nHMSET']);
    expect(hmsets.length).toBe(3);
  });

  itReal('writes each key as redis-server does with aof-use-rdb-preamble no', async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--aof-use-rdb-preamble', 'no']);
    try {
      const conn = await RawConnection.open(real.port);
      for (const argv of DATASET) await conn.command(argv);
      await conn.command(['BGREWRITEAOF']);
      for (let i = 0; i < 200; i++) {
        const info = (await conn.command(['INFO', 'persistence'])) as string;
        if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info)) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      conn.close();
      const realBase = readFileSync(join(real.dir, 'appendonlydir', 'appendonly.aof.2.base.aof')).toString('latin1');

      const server = createServer({ clock: new ManualClock(1_767_225_600_000 * 1000), config: { save: '' } });
      const c = server.connect();
      for (const argv of DATASET) server.execute(c, argv);
      const emulated = rewriteAof(snapshotDatabases(server)) as string;

      expect(byKey(emulated)).toEqual(byKey(realBase));
      expect(emulated.length).toBe(realBase.length);
    } finally {
      await real.stop();
    }
  }, 30_000);
});
