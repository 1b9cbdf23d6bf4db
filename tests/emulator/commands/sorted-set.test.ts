import { describe, expect, it } from 'vitest';
import { ZSetValue } from '../../../emulator/keyspace/values.js';
import { DoubleReply, ErrorReply, type Reply } from '../../../emulator/resp/reply.js';
import type { RedisServer } from '../../../emulator/server/server.js';
import { createServer } from '../../../emulator/process/create-server.js';
import type { Client } from '../../../emulator/server/client.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

function start(seed = 1): { server: RedisServer; c: Client; run: (...argv: string[]) => Reply; propagated: string[][] } {
  const server = createServer({ clock: new ManualClock(), seed });
  const c = server.connect();
  const propagated: string[][] = [];
  server.onPropagate((_db, argv) => propagated.push(argv));
  return { server, c, run: (...argv) => server.execute(c, argv), propagated };
}

function zsetAt(server: RedisServer, key: string): ZSetValue {
  return server.dbs[0]!.dict.get(key) as ZSetValue;
}

/** The flat reply of a WITHSCORES range as [member, score text] pairs. */
function pairs(r: Reply): Array<[string, string]> {
  const a = r as Reply[];
  const out: Array<[string, string]> = [];
  for (let i = 0; i < a.length; i += 2) out.push([a[i] as string, String((a[i + 1] as DoubleReply).value)]);
  return out;
}

describe('sorted set commands', () => {
  it('ZMPOP propagates as the ZPOPMIN or ZPOPMAX with count it amounts to', () => {
    const { run, propagated } = start();
    run('ZADD', 'z', '1', 'a', '2', 'b', '3', 'c');
    propagated.length = 0;
    run('ZMPOP', '2', 'nokey', 'z', 'MAX', 'COUNT', '10');
    run('ZMPOP', '1', 'z', 'MIN');
    expect(propagated).toEqual([['ZPOPMAX', 'z', '3']]);
    expect(run('EXISTS', 'z')).toBe(0);
  });

  it('writes that change nothing are not propagated', () => {
    const { run, propagated } = start();
    run('ZADD', 'z', '1', 'a');
    propagated.length = 0;
    run('ZADD', 'z', '1', 'a');
    run('ZADD', 'z', 'XX', '5', 'nope');
    run('ZREM', 'z', 'nope');
    run('ZREMRANGEBYSCORE', 'z', '10', '20');
    run('ZPOPMIN', 'z', '0');
    run('ZUNIONSTORE', 'dst', '1', 'nokey');
    expect(propagated).toEqual([]);
    run('ZINCRBY', 'z', '1', 'a');
    expect(propagated).toEqual([['ZINCRBY', 'z', '1', 'a']]);
  });

  it('a listpack stores -0 as 0; a skip list keeps it', () => {
    const { server, run } = start();
    run('ZADD', 'lp', '-0', 'a');
    expect(Object.is(zsetAt(server, 'lp').dict.get('a'), 0)).toBe(true);
    run('CONFIG', 'SET', 'zset-max-listpack-entries', '0');
    run('ZADD', 'sl', '-0', 'a');
    expect(Object.is(zsetAt(server, 'sl').dict.get('a'), -0)).toBe(true);
    run('CONFIG', 'SET', 'zset-max-listpack-entries', '128');
    run('ZUNIONSTORE', 'u', '1', 'sl');
    expect(zsetAt(server, 'u').encoding).toBe('listpack');
    expect(Object.is(zsetAt(server, 'u').dict.get('a'), 0)).toBe(true);
    expect(Object.is(zsetAt(server, 'u').list.first()!.score, 0)).toBe(true);
  });

  it('ZSCAN over a skip list returns every member once across calls', () => {
    const { run } = start();
    run('CONFIG', 'SET', 'zset-max-listpack-entries', '16');
    const members: string[] = [];
    for (let i = 0; i < 500; i++) members.push('m' + i);
    run('ZADD', 'z', ...members.flatMap((m, i) => [String(i), m]));
    const seen = new Map<string, string>();
    let cursor = '0';
    let calls = 0;
    do {
      const [next, items] = run('ZSCAN', 'z', cursor, 'COUNT', '7') as [string, string[]];
      for (let i = 0; i < items.length; i += 2) {
        expect(seen.has(items[i]!)).toBe(false);
        seen.set(items[i]!, items[i + 1]!);
      }
      cursor = next;
      calls++;
    } while (cursor !== '0' && calls < 1000);
    expect(cursor).toBe('0');
    expect(seen.size).toBe(500);
    expect(seen.get('m42')).toBe('42');
  });

  it('ZRANDMEMBER is deterministic for a seed and picks every member', () => {
    const a = start(7);
    const b = start(7);
    const args = ['ZADD', 'z'];
    for (let i = 0; i < 300; i++) args.push(String(i), 'm' + i);
    a.run(...args);
    b.run(...args);
    expect(a.run('ZRANDMEMBER', 'z', '-50')).toEqual(b.run('ZRANDMEMBER', 'z', '-50'));
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) for (const m of a.run('ZRANDMEMBER', 'z', '-100') as string[]) seen.add(m);
    expect(seen.size).toBe(300);
    for (const count of ['5', '150', '299']) {
      const got = a.run('ZRANDMEMBER', 'z', count) as string[];
      expect(new Set(got).size).toBe(Number(count));
    }
  });

  it('keeps ranks, ranges and counts right on a large set', () => {
    const { server, run } = start();
    const args = ['ZADD', 'big'];
    for (let i = 0; i < 50_000; i++) args.push(String(i * 2), 'm' + String(i).padStart(5, '0'));
    expect(run(...args)).toBe(50_000);
    expect(zsetAt(server, 'big').encoding).toBe('skiplist');
    expect(run('ZRANK', 'big', 'm31415')).toBe(31415);
    expect(run('ZREVRANK', 'big', 'm31415')).toBe(50_000 - 1 - 31415);
    expect(run('ZCOUNT', 'big', '(100', '200')).toBe(50);
    expect(run('ZRANGE', 'big', '40000', '40002')).toEqual(['m40000', 'm40001', 'm40002']);
    expect(run('ZRANGEBYSCORE', 'big', '(99990', '+inf', 'LIMIT', '2', '2')).toEqual(['m49998', 'm49999']);
    expect(run('ZREVRANGEBYSCORE', 'big', '+inf', '-inf', 'LIMIT', '49999', '5')).toEqual(['m00000']);
    expect(run('ZREMRANGEBYRANK', 'big', '10', '19')).toBe(10);
    expect(run('ZRANK', 'big', 'm00020')).toBe(10);
    expect(run('ZADD', 'big', '-1', 'm49999')).toBe(0);
    expect(run('ZRANGE', 'big', '0', '0')).toEqual(['m49999']);
  });

  it('ZINCRBY leading to NaN is an error and changes nothing', () => {
    const { server, run } = start();
    run('ZADD', 'z', 'inf', 'a');
    const dirty = server.dirty;
    expect(run('ZINCRBY', 'z', '-inf', 'a')).toEqual(new ErrorReply('ERR resulting score is not a number (NaN)'));
    expect(server.dirty).toBe(dirty);
    expect((run('ZSCORE', 'z', 'a') as DoubleReply).value).toBe(Infinity);
  });

  it('ZUNIONSTORE with infinite weights scores inf * 0 as 0', () => {
    const { run } = start();
    run('ZADD', 'a', '0', 'x', 'inf', 'y');
    run('ZADD', 'b', '0', 'x', '-inf', 'y');
    run('ZUNIONSTORE', 'u', '2', 'a', 'b', 'WEIGHTS', 'inf', 'inf');
    expect(pairs(run('ZRANGE', 'u', '0', '-1', 'WITHSCORES'))).toEqual([
      ['x', '0'],
      ['y', '0'],
    ]);
  });
});
