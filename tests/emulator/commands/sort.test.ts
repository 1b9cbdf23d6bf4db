import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { partialQuickSort } from '../../../emulator/commands/generic-partial-sort.js';
import { sortScore } from '../../../emulator/commands/sort.js';
import type { Reply } from '../../../emulator/resp/reply.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

function start() {
  const server = createServer({ clock: new ManualClock() });
  const c = server.connect();
  return { server, run: (...argv: string[]): Reply => server.execute(c, argv) };
}

describe('sortScore (strtod as SORT uses it)', () => {
  it('reads what strtod reads, up to a NUL byte', () => {
    expect(sortScore('1.5')).toBe(1.5);
    expect(sortScore('  7')).toBe(7);
    expect(sortScore('')).toBe(0);
    expect(sortScore('+5')).toBe(5);
    expect(sortScore('.5')).toBe(0.5);
    expect(sortScore('5.')).toBe(5);
    expect(sortScore('0x10')).toBe(16);
    expect(sortScore('0x1p-1')).toBe(0.5);
    expect(sortScore('-inf')).toBe(-Infinity);
    expect(sortScore('Infinity')).toBe(Infinity);
    expect(sortScore('5\x00junk')).toBe(5);
    expect(sortScore('0e-999')).toBe(0);
    expect(sortScore('0x1p-1074')).toBe(5e-324);
  });

  it('refuses junk, NaN and results out of range', () => {
    for (const bad of ['7 ', '  ', 'abc', 'nan', 'NaN(12)', '1e', '1e+', '0x', '0x1p', '1.8e308', '1e-310', '1e-400', '4.9e-324', '0x1p1024', '0x3p-1075']) {
      expect(sortScore(bad)).toBeNull();
    }
  });
});

describe('partialQuickSort (pqsort)', () => {
  it('puts the requested range in order, like a full sort does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 120 }), fc.nat(), fc.nat(), (values, a, b) => {
        const n = values.length;
        if (n === 0) return;
        const from = a % n;
        const to = from + (b % (n - from));
        const items = values.slice();
        partialQuickSort(items, (x, y) => x - y, from, to);
        const sorted = values.slice().sort((x, y) => x - y);
        expect(items.slice(from, to + 1)).toEqual(sorted.slice(from, to + 1));
        expect(items.slice().sort((x, y) => x - y)).toEqual(sorted);
      }),
    );
  });

  it('sorts everything when the range is everything', () => {
    const items = [5, 3, 9, 1, 7, 2, 8, 6, 4, 0];
    partialQuickSort(items, (x, y) => x - y, 0, 9);
    expect(items).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('SORT', () => {
  it('SORT ALPHA against integer encoded strings', () => {
    const { run } = start();
    run('LPUSH', 'mylist', '2', '1', '3', '10');
    expect(run('SORT', 'mylist', 'ALPHA')).toEqual(['1', '10', '2', '3']);
  });

  it('SORT sorted set BY nosort should retain ordering', () => {
    const { run } = start();
    run('ZADD', 'zset', '1', 'a', '5', 'b', '2', 'c', '10', 'd', '3', 'e');
    expect(run('SORT', 'zset', 'BY', 'nosort', 'ASC')).toEqual(['a', 'c', 'e', 'b', 'd']);
    expect(run('SORT', 'zset', 'BY', 'nosort', 'DESC')).toEqual(['d', 'b', 'e', 'c', 'a']);
    expect(run('SORT', 'zset', 'BY', 'nosort', 'DESC', 'LIMIT', '1', '2')).toEqual(['b', 'e']);
  });

  it('SORT with BY <constant> and STORE should still order output', () => {
    const { run } = start();
    run('SADD', 'myset', 'a', 'b', 'c', 'd', 'aa', 'aaa', 'azz');
    expect(run('SORT', 'myset', 'ALPHA', 'BY', '_', 'STORE', 'mylist')).toBe(7);
    expect(run('LRANGE', 'mylist', '0', '-1')).toEqual(['a', 'aa', 'aaa', 'azz', 'b', 'c', 'd']);
  });

  it('SORT BY sub-sorts lexicographically if score is the same', () => {
    const { run } = start();
    run('SADD', 'myset', 'b', 'a', 'c');
    expect(run('SORT', 'myset', 'BY', 'score:*')).toEqual(['a', 'b', 'c']);
  });

  it('SORT of a sorted set converts it to a skiplist for good', () => {
    const { run } = start();
    run('ZADD', 'z', '1', 'a');
    run('SORT_RO', 'z', 'ALPHA');
    expect(run('OBJECT', 'ENCODING', 'z')).toBe('skiplist');
  });

  it('STORE counts each stored element as a change', () => {
    const { server, run } = start();
    run('RPUSH', 'l', '3', '1', '2');
    const dirty = server.dirty;
    run('SORT', 'l', 'GET', '#', 'GET', 'x_*', 'STORE', 'out');
    expect(server.dirty - dirty).toBe(6);
    expect(run('LRANGE', 'out', '0', '-1')).toEqual(['1', '', '2', '', '3', '']);
  });
});
