import { describe, expect, it } from 'vitest';
import { ErrorReply, NULL_ARRAY, type Reply } from '../../../emulator/resp/reply.js';
import type { RedisServer } from '../../../emulator/server/server.js';
import { createServer } from '../../../emulator/process/create-server.js';
import type { Client } from '../../../emulator/server/client.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

function start(): { server: RedisServer; c: Client; run: (...argv: string[]) => Reply; propagated: string[][] } {
  const server = createServer({ clock: new ManualClock() });
  const c = server.connect();
  const propagated: string[][] = [];
  server.onPropagate((_db, argv) => propagated.push(argv));
  return { server, c, run: (...argv) => server.execute(c, argv), propagated };
}

describe('list commands', () => {
  it('LPOS RANK with negative rank', () => {
    const { run } = start();
    run('RPUSH', 'l', 'a', 'b', 'c', '1', '2', '3', 'c', 'c');
    expect(run('LPOS', 'l', 'c', 'RANK', '-1')).toBe(7);
    expect(run('LPOS', 'l', 'c', 'RANK', '-3')).toBe(2);
    expect(run('LPOS', 'l', 'c', 'RANK', '-4')).toBe(null);
    expect(run('LPOS', 'l', 'c', 'RANK', '-2', 'COUNT', '0')).toEqual([6, 2]);
  });

  it('LPOS RANK -9223372036854775808 behaves like the C overflow: every match, COUNT ignored', () => {
    const { run } = start();
    run('RPUSH', 'l', 'a', 'b', 'a', 'c', 'a');
    expect(run('LPOS', 'l', 'a', 'RANK', '-9223372036854775808')).toBe(4);
    expect(run('LPOS', 'l', 'a', 'RANK', '-9223372036854775808', 'COUNT', '2')).toEqual([4, 2, 0]);
  });

  it('LPOS RANK zero is an error with the exact text', () => {
    const { run } = start();
    const r = run('LPOS', 'l', 'a', 'RANK', '0');
    expect(r).toBeInstanceOf(ErrorReply);
    expect((r as ErrorReply).message).toBe(
      "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list",
    );
  });

  it('LREM with a negative count removes from the tail', () => {
    const { run } = start();
    run('RPUSH', 'l', 'a', 'x', 'a', 'y', 'a', 'z', 'a');
    expect(run('LREM', 'l', '-2', 'a')).toBe(2);
    expect(run('LRANGE', 'l', '0', '-1')).toEqual(['a', 'x', 'a', 'y', 'z']);
    expect(run('LREM', 'l', '1', 'a')).toBe(1);
    expect(run('LRANGE', 'l', '0', '-1')).toEqual(['x', 'a', 'y', 'z']);
  });

  it('LMOVE of a single element onto the same list keeps the key', () => {
    const { run } = start();
    run('RPUSH', 'l', 'only');
    expect(run('LMOVE', 'l', 'l', 'LEFT', 'RIGHT')).toBe('only');
    expect(run('LRANGE', 'l', '0', '-1')).toEqual(['only']);
  });

  it('pops with a count return the tail last-first and delete the emptied key', () => {
    const { server, run } = start();
    run('RPUSH', 'l', '1', '2', '3', '4');
    expect(run('RPOP', 'l', '3')).toEqual(['4', '3', '2']);
    expect(run('LPOP', 'l', '5')).toEqual(['1']);
    expect(server.dbs[0]!.dict.has('l')).toBe(false);
    expect(run('LPOP', 'l', '1')).toBe(NULL_ARRAY);
    expect(run('LPOP', 'l')).toBe(null);
  });

  it('counts dirty changes per element, as Redis does', () => {
    const { server, run } = start();
    const dirty = (): number => server.dirty;
    let before = dirty();
    run('RPUSH', 'l', 'a', 'b', 'c', 'd', 'e');
    expect(dirty() - before).toBe(5);
    before = dirty();
    run('LPOP', 'l', '2');
    expect(dirty() - before).toBe(2);
    before = dirty();
    run('LPOP', 'l', '0');
    run('LREM', 'l', '0', 'missing');
    run('LINSERT', 'l', 'BEFORE', 'missing', 'x');
    expect(dirty()).toBe(before);
    run('LTRIM', 'l', '1', '1');
    expect(dirty() - before).toBe(2);
  });

  it('LMPOP propagates as LPOP/RPOP with the number actually popped', () => {
    const { run, propagated } = start();
    run('RPUSH', 'a', '1', '2', '3');
    propagated.length = 0;
    expect(run('LMPOP', '2', 'missing', 'a', 'RIGHT', 'COUNT', '10')).toEqual(['a', ['3', '2', '1']]);
    expect(propagated).toEqual([['RPOP', 'a', '3']]);
    propagated.length = 0;
    expect(run('LMPOP', '1', 'a', 'LEFT')).toBe(NULL_ARRAY);
    expect(propagated).toEqual([]);
  });

  it('LPOP with count 0 is not propagated', () => {
    const { run, propagated } = start();
    run('RPUSH', 'l', 'a');
    propagated.length = 0;
    expect(run('LPOP', 'l', '0')).toEqual([]);
    expect(propagated).toEqual([]);
  });

  it('a 100k element list pushes, indexes and pops quickly', () => {
    const { run } = start();
    const values = Array.from({ length: 1000 }, (_, i) => String(i));
    for (let i = 0; i < 100; i++) run('RPUSH', 'l', ...values);
    expect(run('LLEN', 'l')).toBe(100_000);
    // How long these take is npm run bench's to say (a shared machine's milliseconds are noise); the list comes out whole.
    for (let i = 0; i < 50_000; i++) {
      run('LINDEX', 'l', String(i));
      run('LPUSH', 'l', 'x');
      run('RPOP', 'l');
    }
    expect(run('LLEN', 'l')).toBe(100_000);
  });
});

describe('keyspace hits and misses', () => {
  it('list reads count the key they look up, writes count nothing (as measured on 7.0.15)', () => {
    const { server, run } = start();
    run('RPUSH', 'l', 'a', 'b', 'c');
    run('SET', 'str', 'v');
    const steps: Array<[string[], number, number]> = [
      [['LPUSH', 'l', 'x'], 0, 0],
      [['LPUSH', 'nokey', 'x'], 0, 0],
      [['DEL', 'nokey'], 0, 0],
      [['LPUSHX', 'nokey', 'x'], 0, 0],
      [['LPOP', 'l'], 0, 0],
      [['LPOP', 'nokey'], 0, 0],
      [['RPOP', 'l', '1'], 0, 0],
      [['LLEN', 'l'], 1, 0],
      [['LLEN', 'nokey'], 1, 1],
      [['LRANGE', 'l', '0', '-1'], 2, 1],
      [['LRANGE', 'nokey', '0', '-1'], 2, 2],
      [['LINDEX', 'l', '0'], 3, 2],
      [['LINDEX', 'nokey', '0'], 3, 3],
      [['LSET', 'l', '0', 'y'], 3, 3],
      [['LINSERT', 'l', 'BEFORE', 'y', 'z'], 3, 3],
      [['LREM', 'l', '1', 'z'], 3, 3],
      [['LTRIM', 'l', '0', '-1'], 3, 3],
      [['LPOS', 'l', 'y'], 4, 3],
      [['LPOS', 'nokey', 'y'], 4, 4],
      [['LMOVE', 'l', 'l2', 'LEFT', 'LEFT'], 4, 4],
      [['RPOPLPUSH', 'l2', 'l'], 4, 4],
      [['LMPOP', '2', 'nokey', 'l', 'LEFT'], 4, 4],
      [['LRANGE', 'str', '0', '1'], 5, 4],
    ];
    const base = { hits: server.stats.keyspaceHits, misses: server.stats.keyspaceMisses };
    for (const [argv, hits, misses] of steps) {
      run(...argv);
      expect([argv.join(' '), server.stats.keyspaceHits - base.hits, server.stats.keyspaceMisses - base.misses]).toEqual([argv.join(' '), hits, misses]);
    }
  });
});
