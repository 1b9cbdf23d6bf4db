import { describe, expect, it } from 'vitest';
import { ErrorReply, type Reply } from '../../../emulator/resp/reply.js';
import { createServer } from '../../../emulator/process/create-server.js';
import type { Client } from '../../../emulator/server/client.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

function start(seed = 1) {
  const clock = new ManualClock();
  const server = createServer({ clock, seed });
  const c: Client = server.connect();
  const propagated: string[][] = [];
  server.onPropagate((_db, argv) => propagated.push(argv));
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { server, clock, c, run, propagated };
}

describe('expiry in virtual time', () => {
  it('TTL counts down as the clock moves', () => {
    const { clock, run } = start();
    run('SET', 'k', 'v');
    run('EXPIRE', 'k', '100');
    expect(run('TTL', 'k')).toBe(100);
    clock.advanceMs(30_400);
    expect(run('TTL', 'k')).toBe(70);
    expect(run('PTTL', 'k')).toBe(69_600);
    clock.advanceMs(70_000);
    expect(run('TTL', 'k')).toBe(-2);
    expect(run('GET', 'k')).toBe(null);
  });

  it('PERSIST can undo an EXPIRE, then TTL gives -1', () => {
    const { clock, run } = start();
    run('SET', 'x', 'foo');
    run('EXPIRE', 'x', '100');
    expect(run('PERSIST', 'x')).toBe(1);
    expect(run('TTL', 'x')).toBe(-1);
    clock.advanceMs(200_000);
    expect(run('GET', 'x')).toBe('foo');
    expect(run('PERSIST', 'x')).toBe(0);
  });

  it('a key expires at its time plus one ms, not at its time', () => {
    const { clock, run } = start();
    run('SET', 'k', 'v', 'PX', '100');
    clock.advanceMs(100);
    expect(run('GET', 'k')).toBe('v');
    expect(run('PTTL', 'k')).toBe(0);
    clock.advanceMs(1);
    expect(run('GET', 'k')).toBe(null);
  });

  it('expired keys are never listed, but DBSIZE counts them until they are deleted', () => {
    const { server, clock, run } = start();
    server.activeExpireEnabled = false;
    run('SET', 'a', '1', 'PX', '10');
    run('SET', 'b', '1');
    clock.advanceMs(20);
    expect(run('KEYS', '*')).toEqual(['b']);
    expect(run('DBSIZE')).toBe(2);
    for (let i = 0; i < 20; i++) expect(run('RANDOMKEY')).toBe('b');
  });

  it('RANDOMKEY deletes the expired keys it draws', () => {
    const { server, clock, run } = start(7);
    server.activeExpireEnabled = false;
    for (let i = 0; i < 50; i++) run('SET', `e${i}`, 'v', 'PX', '10');
    run('SET', 'live', 'v');
    clock.advanceMs(20);
    expect(run('RANDOMKEY')).toBe('live');
    expect(server.stats.expiredKeys).toBeGreaterThan(0);
    expect(server.stats.expiredKeys).toBe(51 - (run('DBSIZE') as number));
  });

  it('RANDOMKEY draws every key, including ones that replaced others', () => {
    const { run } = start(3);
    for (let i = 0; i < 10; i++) run('SET', `k${i}`, 'v');
    run('RANDOMKEY');
    run('DEL', 'k0');
    run('SET', 'new', 'v');
    const seen = new Set<Reply>();
    for (let i = 0; i < 500; i++) seen.add(run('RANDOMKEY'));
    expect(seen.has('new')).toBe(true);
    expect(seen.has('k0')).toBe(false);
    expect(seen.size).toBe(10);
  });

  it('RANDOMKEY on a replica gives up after 100 expired draws when every key has a TTL', () => {
    const { server, clock, run } = start();
    server.activeExpireEnabled = false;
    run('SET', 'e', 'v', 'PX', '10');
    clock.advanceMs(20);
    server.replication.masterHost = '10.0.0.9';
    expect(run('RANDOMKEY')).toBe('e');
    expect(run('DBSIZE')).toBe(1);
  });

  it('EXPIRE is propagated as PEXPIREAT with options kept; a past time as DEL', () => {
    const { server, run, propagated } = start();
    const now = server.nowMs;
    run('SET', 'k', 'v');
    run('EXPIRE', 'k', '100', 'NX');
    run('PEXPIRE', 'k', '5000');
    run('EXPIREAT', 'k', '4102444800', 'GT');
    run('PEXPIREAT', 'k', '4102444800001');
    run('EXPIRE', 'k', '-1');
    expect(propagated).toEqual([
      ['SET', 'k', 'v'],
      ['PEXPIREAT', 'k', String(now + 100_000), 'NX'],
      ['PEXPIREAT', 'k', String(now + 5000)],
      ['PEXPIREAT', 'k', '4102444800000', 'GT'],
      ['PEXPIREAT', 'k', '4102444800001'],
      ['DEL', 'k'],
    ]);
  });

  it('SCAN: Lazy-expire should not be wrapped in MULTI/EXEC', () => {
    const { server, clock, run, propagated } = start();
    server.activeExpireEnabled = false;
    for (const cmd of ['SCAN', 'RANDOMKEY']) {
      run('FLUSHALL');
      run('SET', 'foo1', 'bar', 'PX', '1');
      run('SET', 'foo2', 'bar', 'PX', '1');
      clock.advanceMs(2);
      propagated.length = 0;
      run(...(cmd === 'SCAN' ? ['SCAN', '0'] : ['RANDOMKEY']));
      expect(propagated.map((a) => a[0])).toEqual(['DEL', 'DEL']);
    }
    // Inside a transaction they stay with the transaction.
    run('SET', 'foo1', 'bar', 'PX', '1');
    run('SET', 'foo2', 'bar', 'PX', '1');
    clock.advanceMs(2);
    propagated.length = 0;
    run('MULTI');
    run('SCAN', '0');
    run('EXEC');
    expect(propagated.map((a) => a[0])).toEqual(['MULTI', 'DEL', 'DEL', 'EXEC']);
  });

  it('an EXPIRE that changes nothing is not propagated', () => {
    const { run, propagated } = start();
    run('SET', 'k', 'v', 'EX', '100');
    propagated.length = 0;
    run('EXPIRE', 'k', '10', 'GT');
    run('EXPIRE', 'nokey', '10');
    run('PERSIST', 'nokey');
    expect(propagated).toEqual([]);
  });

  it('PEXPIREAT with big integer works, and reads back exactly', () => {
    const { run } = start();
    run('SET', 'foo', 'bar');
    expect(run('PEXPIREAT', 'foo', '9223372036854770000')).toBe(1);
    expect(run('PEXPIRETIME', 'foo')).toBe(9223372036854770000n);
    expect(run('EXPIRETIME', 'foo')).toBe(9223372036854770n);
    run('RENAME', 'foo', 'bar');
    expect(run('PEXPIRETIME', 'bar')).toBe(9223372036854770000n);
  });

  it('EXPIRE with big integer overflows when converted to milliseconds', () => {
    const { run } = start();
    run('SET', 'foo', 'bar');
    expect((run('EXPIRE', 'foo', '9223372036854776') as ErrorReply).message).toBe("ERR invalid expire time in 'expire' command");
    expect((run('PEXPIRE', 'foo', '9223372036854770000') as ErrorReply).message).toBe("ERR invalid expire time in 'pexpire' command");
    expect(run('TTL', 'foo')).toBe(-1);
  });
});

describe('keyspace statistics', () => {
  it('TYPE, EXISTS, TTL and OBJECT count hits and misses; SCAN TYPE counts its lookups', () => {
    const { server, run } = start();
    run('SET', 'a', '1');
    run('SET', 'b', '1');
    const s = server.stats;
    s.keyspaceHits = 0;
    s.keyspaceMisses = 0;
    run('TYPE', 'a');
    run('EXISTS', 'a', 'nokey');
    run('TTL', 'nokey');
    run('OBJECT', 'ENCODING', 'a');
    expect([s.keyspaceHits, s.keyspaceMisses]).toEqual([3, 2]);
    run('SCAN', '0', 'TYPE', 'string');
    expect([s.keyspaceHits, s.keyspaceMisses]).toEqual([5, 2]);
    run('SCAN', '0', 'MATCH', 'zzz', 'TYPE', 'string');
    expect([s.keyspaceHits, s.keyspaceMisses]).toEqual([5, 2]);
  });

  it('DEL of an expired key counts as an expiry, not a deletion', () => {
    const { server, clock, run, propagated } = start();
    server.activeExpireEnabled = false;
    run('SET', 'k', 'v', 'PX', '10');
    clock.advanceMs(20);
    const dirty = server.dirty;
    expect(run('DEL', 'k')).toBe(0);
    expect(server.stats.expiredKeys).toBe(1);
    expect(server.dirty).toBe(dirty);
    expect(propagated.at(-1)).toEqual(['DEL', 'k']);
  });
});

describe('OBJECT IDLETIME', () => {
  it('counts seconds of the LRU clock since the last access', () => {
    const { clock, run } = start();
    run('SET', 'k', 'v');
    clock.advanceMs(5000);
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(5);
    // OBJECT, TYPE, EXISTS and TTL do not count as accesses; GET and TOUCH do.
    run('TYPE', 'k');
    run('EXISTS', 'k');
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(5);
    run('TOUCH', 'k');
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(0);
    clock.advanceMs(3000);
    run('GET', 'k');
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(0);
  });

  it('RENAME keeps the value and refreshes its access time', () => {
    const { clock, run } = start();
    run('SET', 'k', 'v');
    clock.advanceMs(5000);
    run('RENAME', 'k', 'k2');
    expect(run('OBJECT', 'IDLETIME', 'k2')).toBe(0);
  });
});

describe('OBJECT FREQ', () => {
  it('counts accesses logarithmically and decays by lfu-decay-time minutes', () => {
    const { clock, run } = start();
    run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu');
    run('SET', 'k', 'v');
    expect(run('OBJECT', 'FREQ', 'k')).toBe(5);
    run('CONFIG', 'SET', 'lfu-log-factor', '0');
    for (let i = 0; i < 10; i++) run('GET', 'k');
    expect(run('OBJECT', 'FREQ', 'k')).toBe(15);
    clock.advanceMs(3 * 60_000);
    expect(run('OBJECT', 'FREQ', 'k')).toBe(12);
    // The decay is applied when read; with none configured the stored counter shows.
    run('CONFIG', 'SET', 'lfu-decay-time', '0');
    clock.advanceMs(60 * 60_000);
    expect(run('OBJECT', 'FREQ', 'k')).toBe(15);
    for (let i = 0; i < 300; i++) run('GET', 'k');
    expect(run('OBJECT', 'FREQ', 'k')).toBe(255);
  });

  it('with the default log factor, growth slows down', () => {
    const { run } = start(5);
    run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu');
    run('SET', 'k', 'v');
    for (let i = 0; i < 1000; i++) run('GET', 'k');
    const freq = run('OBJECT', 'FREQ', 'k') as number;
    expect(freq).toBeGreaterThan(10);
    expect(freq).toBeLessThan(40);
  });
});

describe('COPY', () => {
  it('COPY for string ensures that copied data is independent of copying data', () => {
    const { run } = start();
    run('SET', 's', 'a'.repeat(100));
    run('SETRANGE', 's', '10', 'XYZ');
    run('COPY', 's', 's2');
    run('SETRANGE', 's2', '0', 'copy');
    run('SETRANGE', 's', '50', 'orig');
    expect(run('GETRANGE', 's', '0', '13')).toBe('aaaaaaaaaaXYZa');
    expect(run('GETRANGE', 's2', '0', '13')).toBe('copyaaaaaaXYZa');
    expect(run('GETRANGE', 's2', '50', '53')).toBe('aaaa');
    expect(run('OBJECT', 'ENCODING', 's2')).toBe('raw');
  });

  it('copies are independent for every type', () => {
    const { run } = start();
    run('RPUSH', 'l', 'a', 'b');
    run('SADD', 's', 'x');
    run('HSET', 'h', 'f', 'v');
    run('ZADD', 'z', '1', 'm');
    for (const k of ['l', 's', 'h', 'z']) expect(run('COPY', k, k + '2')).toBe(1);
    run('RPUSH', 'l2', 'c');
    run('SADD', 's2', 'y');
    run('HSET', 'h2', 'g', 'w');
    run('ZADD', 'z2', '5', 'm', '2', 'n');
    expect(run('LRANGE', 'l', '0', '-1')).toEqual(['a', 'b']);
    expect(run('SCARD', 's')).toBe(1);
    expect(run('HLEN', 'h')).toBe(1);
    expect(run('ZRANGE', 'z', '0', '-1')).toEqual(['m']);
    expect(run('ZCARD', 'z')).toBe(1);
    expect(run('ZRANK', 'z2', 'n')).toBe(0);
  });
});
