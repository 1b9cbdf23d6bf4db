import { describe, expect, it } from 'vitest';
import { HashValue } from '../../../emulator/keyspace/values.js';
import { ErrorReply, MapReply, type Reply } from '../../../emulator/resp/reply.js';
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

function fill(run: (...argv: string[]) => Reply, key: string, n: number): Map<string, string> {
  const m = new Map<string, string>();
  const args: string[] = [];
  for (let i = 0; i < n; i++) {
    m.set(`f${i}`, `v${i}`);
    args.push(`f${i}`, `v${i}`);
  }
  run('HSET', key, ...args);
  return m;
}

function hashAt(server: RedisServer, key: string): HashValue {
  return server.dbs[0]!.dict.get(key) as HashValue;
}

describe('hash encodings', () => {
  it('HSET of an existing field keeps its listpack position; a new one is appended', () => {
    const { run } = start();
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3');
    run('HSET', 'h', 'a', '10', 'd', '4');
    run('HDEL', 'h', 'b');
    run('HSET', 'h', 'b', '20');
    expect((run('HGETALL', 'h') as MapReply).flat).toEqual(['a', '10', 'c', '3', 'd', '4', 'b', '20']);
  });

  it('converts to a hash table when an argument is too long, before inserting', () => {
    const { server, run } = start();
    run('CONFIG', 'SET', 'hash-max-listpack-value', '8');
    run('HSET', 'h', 'a', '12345678');
    expect(hashAt(server, 'h').encoding).toBe('listpack');
    run('HSET', 'h', 'a', '123456789');
    expect(hashAt(server, 'h').encoding).toBe('hashtable');
    run('HDEL', 'h', 'a');
    run('HSET', 'k', 'a', '1', 'long-field', '1');
    run('HDEL', 'k', 'long-field');
    expect(hashAt(server, 'k').encoding).toBe('hashtable');
  });

  it('converts after the insert that passes hash-max-listpack-entries, and never back', () => {
    const { server, run } = start();
    run('CONFIG', 'SET', 'hash-max-listpack-entries', '3');
    fill(run, 'h', 3);
    expect(hashAt(server, 'h').encoding).toBe('listpack');
    run('HSET', 'h', 'x', 'y');
    expect(hashAt(server, 'h').encoding).toBe('hashtable');
    run('HDEL', 'h', 'x', 'f0', 'f1');
    expect(hashAt(server, 'h').encoding).toBe('hashtable');
  });

  it('HINCRBYFLOAT results longer than the value limit convert the hash', () => {
    const { server, run } = start();
    run('HSET', 'h', 'f', '1');
    const r = run('HINCRBYFLOAT', 'h', 'f', '1e70') as string;
    expect(r).toMatch(/^1\d{70}$/);
    expect(hashAt(server, 'h').encoding).toBe('hashtable');
  });
});

describe('hash commands', () => {
  it('HINCRBYFLOAT is propagated as HSET of the result', () => {
    const { run, propagated } = start();
    expect(run('HINCRBYFLOAT', 'h', 'f', '1.23')).toBe('1.23');
    expect(run('HINCRBYFLOAT', 'h', 'f', '0.77')).toBe('2');
    expect(propagated).toEqual([
      ['HSET', 'h', 'f', '1.23'],
      ['HSET', 'h', 'f', '2'],
    ]);
  });

  it('HINCRBY against values that are not integers', () => {
    const { run } = start();
    run('HSET', 'h', 'a', ' 1', 'b', '1 ', 'c', '1.0');
    for (const f of ['a', 'b', 'c']) {
      expect((run('HINCRBY', 'h', f, '1') as ErrorReply).message).toBe('ERR hash value is not an integer');
    }
    expect((run('HINCRBYFLOAT', 'h', 'a', '1') as ErrorReply).message).toBe('ERR hash value is not a float');
  });

  it('HSET counts every pair as a change; HDEL only the fields removed', () => {
    const { server, run } = start();
    let before = server.dirty;
    run('HSET', 'h', 'a', '1', 'a', '1', 'b', '2');
    expect(server.dirty - before).toBe(3);
    before = server.dirty;
    run('HDEL', 'h', 'a', 'missing');
    expect(server.dirty - before).toBe(1);
    before = server.dirty;
    run('HSETNX', 'h', 'b', 'x');
    expect(server.dirty).toBe(before);
  });

  it('HSCAN over a hash table returns every field present for the whole scan', () => {
    const { run } = start();
    run('CONFIG', 'SET', 'hash-max-listpack-entries', '16');
    const all = fill(run, 'h', 500);
    const seen = new Map<string, string>();
    let cursor = '0';
    let calls = 0;
    do {
      const [next, flat] = run('HSCAN', 'h', cursor, 'COUNT', '7') as [string, string[]];
      for (let i = 0; i < flat.length; i += 2) seen.set(flat[i]!, flat[i + 1]!);
      // Churn that must not hide the original fields.
      run('HSET', 'h', `new${calls}`, 'x');
      run('HDEL', 'h', `new${calls - 3}`);
      cursor = next;
      calls++;
    } while (cursor !== '0' && calls < 1000);
    expect(cursor).toBe('0');
    for (const [f, v] of all) expect(seen.get(f)).toBe(v);
  });

  it('HSCAN MATCH filters fields after COUNT picked them', () => {
    const { run } = start();
    run('HSET', 'h', 'foo', '1', 'bar', '2', 'fab', '3');
    expect(run('HSCAN', 'h', '0', 'MATCH', 'f*')).toEqual(['0', ['foo', '1', 'fab', '3']]);
  });
});

describe('HRANDFIELD', () => {
  for (const encoding of ['listpack', 'hashtable']) {
    describe(`with ${encoding} encoding`, () => {
      const setup = (seed: number) => {
        const t = start(seed);
        if (encoding === 'hashtable') t.run('CONFIG', 'SET', 'hash-max-listpack-entries', '4');
        const all = fill(t.run, 'h', 30);
        expect(hashAt(t.server, 'h').encoding).toBe(encoding);
        return { ...t, all };
      };

      it('a positive count returns distinct fields of the hash', () => {
        const { run, all } = setup(3);
        for (const count of [1, 2, 5, 10, 29]) {
          const r = run('HRANDFIELD', 'h', String(count)) as string[];
          expect(r).toHaveLength(count);
          expect(new Set(r).size).toBe(count);
          for (const f of r) expect(all.has(f)).toBe(true);
        }
      });

      it('a count covering the hash returns all of it, in order', () => {
        const { run, all } = setup(4);
        expect(run('HRANDFIELD', 'h', '30')).toEqual([...all.keys()]);
        expect(run('HRANDFIELD', 'h', '1000')).toEqual([...all.keys()]);
      });

      it('a negative count returns exactly that many fields, repeats allowed', () => {
        const { run, all } = setup(5);
        const r = run('HRANDFIELD', 'h', '-200') as string[];
        expect(r).toHaveLength(200);
        for (const f of r) expect(all.has(f)).toBe(true);
        expect(new Set(r).size).toBeLessThan(200);
      });

      it('WITHVALUES pairs each field with its own value, flat in RESP2 and nested in RESP3', () => {
        const { run, c, all } = setup(6);
        const flat = run('HRANDFIELD', 'h', '-7', 'WITHVALUES') as string[];
        expect(flat).toHaveLength(14);
        for (let i = 0; i < flat.length; i += 2) expect(all.get(flat[i]!)).toBe(flat[i + 1]);
        c.resp = 3;
        const nested = run('HRANDFIELD', 'h', '7', 'WITHVALUES') as string[][];
        expect(nested).toHaveLength(7);
        expect(new Set(nested.map((p) => p[0])).size).toBe(7);
        for (const [f, v] of nested) expect(all.get(f!)).toBe(v);
      });

      it('every field comes up over many draws', () => {
        const { run, all } = setup(7);
        const counts = new Map<string, number>();
        for (let i = 0; i < 3000; i++) {
          const f = run('HRANDFIELD', 'h') as string;
          counts.set(f, (counts.get(f) ?? 0) + 1);
        }
        expect(counts.size).toBe(all.size);
        for (const n of counts.values()) expect(n).toBeGreaterThan(40);
      });
    });
  }

  it('is deterministic for a given seed', () => {
    const a = start(42);
    const b = start(42);
    fill(a.run, 'h', 20);
    fill(b.run, 'h', 20);
    expect(a.run('HRANDFIELD', 'h', '-10')).toEqual(b.run('HRANDFIELD', 'h', '-10'));
    expect(a.run('HRANDFIELD', 'h', '5', 'WITHVALUES')).toEqual(b.run('HRANDFIELD', 'h', '5', 'WITHVALUES'));
  });

  it('refuses a repeat count too large to build', () => {
    const { run } = start();
    fill(run, 'h', 2);
    const r = run('HRANDFIELD', 'h', '-100000000');
    expect(r).toBeInstanceOf(ErrorReply);
  });
});

describe('keyspace hits and misses', () => {
  it('hash reads count the key they look up, writes count nothing (as measured on 7.0.15)', () => {
    const { server, run } = start();
    run('HSET', 'h', 'a', '1', 'b', '2');
    run('SET', 'str', 'v');
    const steps: Array<[string[], number, number]> = [
      [['HSET', 'h', 'c', '3'], 0, 0],
      [['HSETNX', 'h', 'c', '4'], 0, 0],
      [['HGET', 'h', 'a'], 1, 0],
      [['HGET', 'nokey', 'a'], 1, 1],
      [['HMGET', 'h', 'a', 'b'], 2, 1],
      [['HMGET', 'nokey', 'a'], 2, 2],
      [['HDEL', 'h', 'c'], 2, 2],
      [['HLEN', 'h'], 3, 2],
      [['HSTRLEN', 'h', 'a'], 4, 2],
      [['HEXISTS', 'h', 'a'], 5, 2],
      [['HKEYS', 'h'], 6, 2],
      [['HVALS', 'nokey'], 6, 3],
      [['HGETALL', 'h'], 7, 3],
      [['HINCRBY', 'h', 'n', '1'], 7, 3],
      [['HINCRBYFLOAT', 'h', 'f', '1'], 7, 3],
      [['HRANDFIELD', 'h'], 8, 3],
      [['HRANDFIELD', 'h', '2'], 9, 3],
      [['HRANDFIELD', 'nokey', '2'], 9, 4],
      [['HSCAN', 'h', '0'], 10, 4],
      [['HSCAN', 'nokey', '0'], 10, 5],
      [['HGET', 'str', 'a'], 11, 5],
    ];
    const base = { hits: server.stats.keyspaceHits, misses: server.stats.keyspaceMisses };
    for (const [argv, hits, misses] of steps) {
      run(...argv);
      expect([argv.join(' '), server.stats.keyspaceHits - base.hits, server.stats.keyspaceMisses - base.misses]).toEqual([argv.join(' '), hits, misses]);
    }
  });
});
