import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { ErrorReply, MapReply, type Reply } from '../../../emulator/resp/reply.js';

const START_MS = 1_767_225_600_000;

function setup(config: Record<string, string> = {}) {
  const clock = new ManualClock(START_MS * 1000);
  const server = createServer({ clock, config });
  const c = server.connect();
  const propagated: string[][] = [];
  server.onPropagate((_db, argv) => propagated.push(argv));
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { clock, server, c, run, propagated };
}

function errorText(r: Reply): string | null {
  return r instanceof ErrorReply ? r.message : null;
}

describe('string commands: server.dirty', () => {
  // Each delta was read from INFO persistence (rdb_changes_since_last_save)
  // on redis-server 7.0.15 running the same sequence.
  const sequence: Array<[number, string[]]> = [
    [1, ['SET', 'k', 'v']],
    [0, ['SET', 'k', 'v', 'NX']],
    [1, ['SET', 'k', 'v', 'XX']],
    [1, ['SET', 'k', 'w', 'GET']],
    [0, ['SET', 'k', 'w', 'NX', 'GET']],
    [0, ['SET', 'k', 'v', 'EX', 'abc']],
    [0, ['SETNX', 'k', 'v']],
    [1, ['SETNX', 'n', 'v']],
    [1, ['SETEX', 's', '100', 'v']],
    [1, ['PSETEX', 'p', '100000', 'v']],
    [1, ['GETSET', 'k', 'z']],
    [1, ['GETSET', 'g', 'z']],
    [1, ['GETDEL', 'g']],
    [0, ['GETDEL', 'g']],
    [0, ['GETEX', 'k']],
    [1, ['GETEX', 'k', 'EX', '100']],
    [1, ['GETEX', 'k', 'PERSIST']],
    [0, ['GETEX', 'k', 'PERSIST']],
    [1, ['GETEX', 'k', 'EXAT', '1']],
    [0, ['GETEX', 'missing', 'EX', '10']],
    [3, ['MSET', 'a', '1', 'b', '2', 'a', '3']],
    [0, ['MSETNX', 'a', '1', 'c', '2']],
    [2, ['MSETNX', 'c', '1', 'd', '2']],
    [0, ['MSET', 'a', '1', 'b']],
    [1, ['APPEND', 'a', 'x']],
    [1, ['APPEND', 'new', 'x']],
    [1, ['APPEND', 'new', '']],
    [1, ['APPEND', 'e', '']],
    [0, ['SETRANGE', 'a', '0', '']],
    [0, ['SETRANGE', 'nope', '0', '']],
    [1, ['SETRANGE', 'a', '0', 'y']],
    [1, ['SETRANGE', 'r', '3', 'y']],
    [0, ['SETRANGE', 'a', '-1', 'y']],
    [1, ['INCR', 'i']],
    [1, ['INCRBY', 'i', '5']],
    [1, ['DECR', 'i']],
    [1, ['DECRBY', 'i', '2']],
    [0, ['INCR', 'a']],
    [0, ['INCRBY', 'i', 'x']],
    [1, ['INCRBYFLOAT', 'f', '1.5']],
    [0, ['INCRBYFLOAT', 'f', 'abc']],
    [0, ['INCRBYFLOAT', 'f', 'inf']],
    [0, ['GET', 'a']],
    [0, ['MGET', 'a', 'b']],
    [0, ['STRLEN', 'a']],
    [0, ['GETRANGE', 'a', '0', '1']],
    [0, ['LCS', 'a', 'b']],
    [0, ['SUBSTR', 'a', '0', '1']],
  ];

  it('counts changes the way src/t_string.c adds to server.dirty', () => {
    const { server, run } = setup();
    for (const [delta, argv] of sequence) {
      const before = server.dirty;
      run(...argv);
      expect([argv.join(' '), server.dirty - before]).toEqual([argv.join(' '), delta]);
    }
  });
});

describe('string commands: keyspace hits and misses', () => {
  it('reads count each key they look up, writes count nothing (as measured on 7.0.15)', () => {
    const { server, run } = setup();
    // [argv, hits, misses], deltas of INFO stats on redis-server 7.0.15 running the same sequence.
    const steps: Array<[string[], number, number]> = [
      [['SET', 'k', 'v'], 0, 0],
      [['LPUSH', 'l', 'x'], 0, 0],
      [['GET', 'k'], 1, 0],
      [['GET', 'nope'], 0, 1],
      [['GET', 'l'], 1, 0],
      [['SET', 'k', 'w', 'GET'], 1, 0],
      [['SET', 'nope2', 'w', 'GET'], 0, 1],
      [['SET', 'l', 'w', 'GET'], 1, 0],
      [['SET', 'k', 'v', 'NX', 'GET'], 1, 0],
      [['SETNX', 'k', 'v'], 0, 0],
      [['GETSET', 'k', 'z'], 1, 0],
      [['GETSET', 'g', 'z'], 0, 1],
      [['GETDEL', 'g'], 1, 0],
      [['GETDEL', 'g'], 0, 1],
      [['GETEX', 'k'], 1, 0],
      [['GETEX', 'nope'], 0, 1],
      [['GETEX', 'k', 'EX', '100'], 1, 0],
      [['GETEX', 'k', 'FOO'], 0, 0],
      [['MGET', 'k', 'nope', 'l'], 2, 1],
      [['MSET', 'a', '1', 'b', '2'], 0, 0],
      [['MSETNX', 'a', '1', 'c', '2'], 0, 0],
      [['APPEND', 'a', 'x'], 0, 0],
      [['STRLEN', 'a'], 1, 0],
      [['STRLEN', 'nope'], 0, 1],
      [['STRLEN', 'l'], 1, 0],
      [['GETRANGE', 'a', '0', '1'], 1, 0],
      [['GETRANGE', 'nope', '0', '1'], 0, 1],
      [['GETRANGE', 'a', 'x', '1'], 0, 0],
      [['SUBSTR', 'a', '0', '1'], 1, 0],
      [['SETRANGE', 'a', '0', 'y'], 0, 0],
      [['INCR', 'i'], 0, 0],
      [['INCRBYFLOAT', 'f', '1'], 0, 0],
      [['LCS', 'a', 'b'], 2, 0],
      [['LCS', 'a', 'nope'], 1, 1],
      [['LCS', 'l', 'a'], 2, 0],
      [['LCS', 'a', 'l'], 2, 0],
      [['LCS', 'a', 'b', 'FOO'], 2, 0],
    ];
    for (const [argv, hits, misses] of steps) {
      const h = server.stats.keyspaceHits;
      const m = server.stats.keyspaceMisses;
      run(...argv);
      expect([argv.join(' '), server.stats.keyspaceHits - h, server.stats.keyspaceMisses - m]).toEqual([argv.join(' '), hits, misses]);
    }
  });
});

describe('string commands: propagation', () => {
  it('SETEX, PSETEX and SET with an expiry propagate as SET PXAT', () => {
    const { run, propagated } = setup();
    run('SETEX', 'a', '100', 'v');
    run('PSETEX', 'b', '1500', 'v');
    run('SET', 'c', 'v', 'EX', '10', 'GET');
    run('SET', 'd', 'v', 'EXAT', '2000000000');
    expect(propagated).toEqual([
      ['SET', 'a', 'v', 'PXAT', String(START_MS + 100_000)],
      ['SET', 'b', 'v', 'PXAT', String(START_MS + 1500)],
      ['SET', 'c', 'v', 'PXAT', String(START_MS + 10_000)],
      ['SET', 'd', 'v', 'PXAT', '2000000000000'],
    ]);
  });

  it('SET with GET propagates without the GET options', () => {
    const { run, propagated } = setup();
    run('SET', 'k', 'v', 'get', 'KEEPTTL', 'GET', 'XX');
    run('SET', 'k', 'w', 'GET');
    run('SET', 'k', 'x');
    expect(propagated).toEqual([
      ['SET', 'k', 'w'],
      ['SET', 'k', 'x'],
    ]);
  });

  it('SET that does not set propagates nothing', () => {
    const { run, propagated } = setup();
    run('SET', 'k', 'v');
    run('SET', 'k', 'w', 'NX');
    run('SETNX', 'k', 'w');
    run('SET', 'k', 'v', 'EX', '0');
    expect(propagated).toEqual([['SET', 'k', 'v']]);
  });

  it('GETEX propagates as PEXPIREAT, PERSIST or DEL', () => {
    const { run, propagated } = setup();
    run('SET', 'k', 'v');
    propagated.length = 0;
    run('GETEX', 'k');
    run('GETEX', 'k', 'EX', '10');
    run('GETEX', 'k', 'PERSIST');
    run('GETEX', 'k', 'PERSIST');
    run('GETEX', 'k', 'PXAT', '1000');
    expect(propagated).toEqual([['PEXPIREAT', 'k', String(START_MS + 10_000)], ['PERSIST', 'k'], ['DEL', 'k']]);
  });

  it('GETEX in the past propagates UNLINK under lazyfree-lazy-expire', () => {
    const { run, propagated } = setup({ 'lazyfree-lazy-expire': 'yes' });
    run('SET', 'k', 'v');
    run('GETEX', 'k', 'EXAT', '1');
    expect(propagated[1]).toEqual(['UNLINK', 'k']);
  });

  it('GETDEL propagates as DEL, or UNLINK under lazyfree-lazy-user-del', () => {
    const a = setup();
    a.run('SET', 'k', 'v');
    a.run('GETDEL', 'k');
    a.run('GETDEL', 'k');
    expect(a.propagated).toEqual([['SET', 'k', 'v'], ['DEL', 'k']]);
    const b = setup({ 'lazyfree-lazy-user-del': 'yes' });
    b.run('SET', 'k', 'v');
    b.run('GETDEL', 'k');
    expect(b.propagated[1]).toEqual(['UNLINK', 'k']);
  });

  it('GETSET propagates as SET and INCRBYFLOAT as SET KEEPTTL with the result', () => {
    const { run, propagated } = setup();
    run('GETSET', 'k', 'v');
    run('INCRBYFLOAT', 'f', '0.1');
    run('INCRBYFLOAT', 'f', '2.0e1');
    run('INCRBY', 'i', '5');
    expect(propagated).toEqual([
      ['SET', 'k', 'v'],
      ['SET', 'f', '0.1', 'KEEPTTL'],
      ['SET', 'f', '20.1', 'KEEPTTL'],
      ['INCRBY', 'i', '5'],
    ]);
  });
});

describe('string commands: encodings', () => {
  it('APPEND and SETRANGE leave raw strings, INCRBYFLOAT leaves embstr', () => {
    const { run } = setup();
    const enc = (k: string) => run('OBJECT', 'ENCODING', k);
    run('SET', 'a', '123');
    run('APPEND', 'a', '4');
    expect(enc('a')).toBe('raw');
    run('APPEND', 'b', '12');
    expect(enc('b')).toBe('int');
    run('SETRANGE', 'c', '0', '12');
    expect(enc('c')).toBe('raw');
    run('SET', 'd', '10');
    run('SETRANGE', 'd', '0', '');
    expect(enc('d')).toBe('int');
    run('INCRBYFLOAT', 'e', '1');
    expect(enc('e')).toBe('embstr');
    run('INCR', 'e');
    expect(enc('e')).toBe('int');
    run('INCRBYFLOAT', 'f', '1e50');
    expect(enc('f')).toBe('raw');
  });
});

describe('string commands: replies', () => {
  it('GETRANGE against huge and negative indexes', () => {
    const { run } = setup();
    run('SET', 'r', 'This is a string');
    expect(run('GETRANGE', 'r', '-9223372036854775807', '-9223372036854775808')).toBe('');
    expect(run('GETRANGE', 'r', '-9223372036854775808', '-9223372036854775807')).toBe('T');
    expect(run('GETRANGE', 'r', '0', '9223372036854775807')).toBe('This is a string');
    expect(run('GETRANGE', 'r', '-3', '-1')).toBe('ing');
    expect(run('GETRANGE', 'r', '5', '3')).toBe('');
    expect(run('GETRANGE', 'missing', '0', '-1')).toBe('');
  });

  it('SETRANGE pads with zero bytes and checks proto-max-bulk-len', () => {
    const { run } = setup({ 'proto-max-bulk-len': '1048576' });
    expect(run('SETRANGE', 'k', '3', 'ab')).toBe(5);
    expect(run('GET', 'k')).toBe('\0\0\0ab');
    expect(errorText(run('SETRANGE', 'k', '1048575', 'ab'))).toBe('ERR string exceeds maximum allowed size (proto-max-bulk-len)');
    expect(errorText(run('SETRANGE', 'k', '9223372036854775807', 'x'))).toBe('ERR string exceeds maximum allowed size (proto-max-bulk-len)');
    expect(errorText(run('SETRANGE', 'k', '-1', 'x'))).toBe('ERR offset is out of range');
  });

  it('SETRANGE and APPEND edit in place and reads see every edit', () => {
    const { run } = setup();
    run('SET', 'k', 'hello');
    expect(run('SETRANGE', 'k', '0', 'J')).toBe(5);
    expect(run('APPEND', 'k', '!')).toBe(6);
    expect(run('GETRANGE', 'k', '0', '1')).toBe('Je');
    expect(run('SETRANGE', 'k', '8', 'x')).toBe(9);
    expect(run('GET', 'k')).toBe('Jello!\0\0x');
    expect(run('SETRANGE', 'k', '1', 'E')).toBe(9);
    expect(run('STRLEN', 'k')).toBe(9);
    expect(run('GETRANGE', 'k', '-3', '-1')).toBe('\0\0x');
    expect(run('GET', 'k')).toBe('JEllo!\0\0x');
    let expected = 'JEllo!\0\0x';
    for (let i = 0; i < 2000; i++) {
      run('APPEND', 'k', 'ab');
      run('SETRANGE', 'k', String(i), 'z');
      expected = (expected + 'ab').slice(0, i) + 'z' + (expected + 'ab').slice(i + 1);
    }
    expect(run('GET', 'k')).toBe(expected);
    run('COPY', 'k', 'copy');
    run('SETRANGE', 'k', '0', 'Q');
    expect(run('GETRANGE', 'copy', '0', '0')).toBe('z');
  });

  it('INCRBY overflow and DECRBY of the smallest int64', () => {
    const { run } = setup();
    run('SET', 'm', '9223372036854775807');
    expect(errorText(run('INCR', 'm'))).toBe('ERR increment or decrement would overflow');
    expect(errorText(run('DECRBY', 'm', '-9223372036854775808'))).toBe('ERR decrement would overflow');
    expect(run('DECRBY', 'm', '9223372036854775807')).toBe(0);
    expect(run('DECRBY', 'm', '9223372036854775807')).toBe(-9223372036854775807n);
  });

  it('LCS IDX answers a map of matches and len', () => {
    const { run } = setup();
    run('MSET', 'a', 'ohmytext', 'b', 'mynewtext');
    expect(run('LCS', 'a', 'b')).toBe('mytext');
    expect(run('LCS', 'a', 'b', 'LEN')).toBe(6);
    const r = run('LCS', 'a', 'b', 'IDX', 'MINMATCHLEN', '4', 'WITHMATCHLEN');
    expect(r).toBeInstanceOf(MapReply);
    expect((r as MapReply).flat).toEqual(['matches', [[[4, 7], [5, 8], 4]], 'len', 6]);
  });

  it('GETEX option conflicts are syntax errors', () => {
    const { run } = setup();
    run('SET', 'k', 'v');
    for (const opts of [['EX', '1', 'PX', '1'], ['PERSIST', 'EX', '1'], ['KEEPTTL'], ['NX'], ['GET'], ['EX']]) {
      expect(errorText(run('GETEX', 'k', ...opts))).toBe('ERR syntax error');
    }
    expect(errorText(run('GETEX', 'k', 'EX', '0'))).toBe("ERR invalid expire time in 'getex' command");
  });
});
