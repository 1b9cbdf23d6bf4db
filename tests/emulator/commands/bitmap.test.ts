import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { StringObject } from '../../../emulator/keyspace/values.js';
import { ErrorReply, type Reply } from '../../../emulator/resp/reply.js';
import { bitInByte, findBit, popcount } from '../../../emulator/commands/bitmap-bits.js';

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

describe('bitmap helpers', () => {
  it('popcount counts the set bits of a byte range', () => {
    expect(popcount('\xff\x00\x0f\x80', 0, 4)).toBe(13);
    expect(popcount('\xff\x00\x0f\x80', 1, 3)).toBe(4);
    expect(popcount('', 0, 0)).toBe(0);
  });

  it('bitInByte finds the first bit from the most significant one', () => {
    expect(bitInByte(0x80, 1)).toBe(0);
    expect(bitInByte(0x01, 1)).toBe(7);
    expect(bitInByte(0x00, 1)).toBe(-1);
    expect(bitInByte(0x7f, 0)).toBe(0);
    expect(bitInByte(0xfe, 0)).toBe(7);
    expect(bitInByte(0xff, 0)).toBe(8);
  });

  it('findBit takes the string as followed by zeros when looking for a 0', () => {
    expect(findBit('\x00\x00\x10', 0, 3, 1)).toBe(19);
    expect(findBit('\x00\x00\x00', 0, 3, 1)).toBe(-1);
    expect(findBit('\xff\xff', 0, 2, 0)).toBe(16);
    expect(findBit('\xff\xff\xef', 1, 2, 0)).toBe(11);
    expect(findBit('', 0, 0, 0)).toBe(0);
  });
});

describe('bitmap commands: server.dirty', () => {
  // Deltas of rdb_changes_since_last_save on redis-server 7.0.15 running the same sequence.
  const sequence: Array<[number, string[]]> = [
    [1, ['SETBIT', 'k', '0', '1']],
    [0, ['SETBIT', 'k', '0', '1']],
    [0, ['SETBIT', 'k', '7', '0']],
    [1, ['SETBIT', 'k', '8', '0']],
    [1, ['SETBIT', 'k', '0', '0']],
    [0, ['SETBIT', 'k', '-1', '1']],
    [0, ['GETBIT', 'k', '0']],
    [0, ['BITCOUNT', 'k']],
    [0, ['BITPOS', 'k', '1']],
    [1, ['BITFIELD', 'f', 'SET', 'u8', '0', '0']],
    [0, ['BITFIELD', 'f', 'SET', 'u8', '0', '0']],
    [2, ['BITFIELD', 'f', 'SET', 'u8', '0', '0', 'SET', 'u8', '0', '1', 'SET', 'u8', '0', '1', 'INCRBY', 'u8', '0', '0', 'INCRBY', 'u8', '0', '1']],
    [3, ['BITFIELD', 'f', 'SET', 'u8', '8', '0', 'SET', 'u8', '8', '0', 'SET', 'u8', '0', '2']],
    [0, ['BITFIELD', 'f', 'OVERFLOW', 'FAIL', 'INCRBY', 'u8', '0', '300']],
    [0, ['BITFIELD', 'nf', 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', '0', '10']],
    [0, ['BITFIELD', 'f', 'GET', 'u8', '0']],
    [0, ['BITFIELD_RO', 'f', 'GET', 'u8', '0']],
    [1, ['BITOP', 'OR', 'd', 'k']],
    [1, ['BITOP', 'OR', 'd', 'missing']],
    [0, ['BITOP', 'OR', 'd', 'missing']],
    [0, ['BITOP', 'NOT', 'd', 'k', 'k']],
  ];

  it('counts changes the way src/bitops.c adds to server.dirty', () => {
    const { server, run } = setup();
    for (const [delta, argv] of sequence) {
      const before = server.dirty;
      run(...argv);
      expect([argv.join(' '), server.dirty - before]).toEqual([argv.join(' '), delta]);
    }
  });
});

describe('bitmap commands: propagation', () => {
  it('propagates the writes that changed something, as they were sent', () => {
    // The same sequence on redis-server 7.0.15 wrote exactly these commands to its AOF.
    const { run, propagated } = setup();
    run('SETBIT', 'pk', '3', '1');
    run('SETBIT', 'pk', '3', '1');
    run('SETBIT', 'pk', '3', '0');
    run('BITFIELD', 'pnf', 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', '0', '10');
    run('BITFIELD', 'pk', 'SET', 'u8', '0', '0');
    run('BITFIELD', 'pk', 'GET', 'u8', '0');
    run('BITFIELD', 'pk', 'SET', 'u8', '0', '7', 'GET', 'u8', '0');
    run('BITOP', 'NOT', 'pd', 'pk');
    run('BITOP', 'AND', 'pd', 'missing');
    run('BITOP', 'AND', 'pd', 'missing');
    run('BITFIELD_RO', 'pk', 'GET', 'u8', '0');
    expect(propagated).toEqual([
      ['SETBIT', 'pk', '3', '1'],
      ['SETBIT', 'pk', '3', '0'],
      ['BITFIELD', 'pk', 'SET', 'u8', '0', '7', 'GET', 'u8', '0'],
      ['BITOP', 'NOT', 'pd', 'pk'],
      ['BITOP', 'AND', 'pd', 'missing'],
    ]);
  });

  it('BITFIELD whose writes all fail creates the key without propagating it', () => {
    const { run, propagated } = setup();
    expect(run('BITFIELD', 'k', 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', '0', '10')).toEqual([null]);
    expect(run('GET', 'k')).toBe('\x00');
    expect(propagated).toEqual([]);
  });
});

describe('bitmap commands: offsets', () => {
  it('SETBIT with out of range bit offset', () => {
    const { run } = setup();
    expect(errorText(run('SETBIT', 'k', String(4 * 1024 * 1024 * 1024), '1'))).toBe('ERR bit offset is not an integer or out of range');
    expect(errorText(run('SETBIT', 'k', '-1', '1'))).toBe('ERR bit offset is not an integer or out of range');
  });

  it('the offset limit follows proto-max-bulk-len', () => {
    const { run } = setup({ 'proto-max-bulk-len': '1mb' });
    expect(run('SETBIT', 'k', String(8 * 1024 * 1024 - 1), '1')).toBe(0);
    expect(errorText(run('SETBIT', 'k', String(8 * 1024 * 1024), '1'))).toBe('ERR bit offset is not an integer or out of range');
    expect(errorText(run('BITFIELD', 'k', 'GET', 'u8', '#1048576'))).toBe('ERR bit offset is not an integer or out of range');
  });

  it('commands from the primary are obeyed past proto-max-bulk-len', () => {
    const { c, run } = setup({ 'proto-max-bulk-len': '1mb' });
    c.role = 'master';
    // The primary's client is never answered; the write shows to others.
    run('SETBIT', 'k', String(8 * 1024 * 1024), '1');
    c.role = 'normal';
    expect(run('STRLEN', 'k')).toBe(1024 * 1024 + 1);
  });

  it('BITFIELD #N offsets wrap around like a 64-bit multiplication', () => {
    const { run } = setup();
    run('SET', 'k', 'AB');
    expect(run('BITFIELD', 'k', 'GET', 'u8', '#2305843009213693952', 'GET', 'u8', '#2305843009213693953')).toEqual([65, 66]);
  });
});

describe('bitmap commands: editing in place', () => {
  it('SETBIT on a long string edits the same object instead of copying it', () => {
    const { server, run } = setup();
    run('SETBIT', 'big', String(8 * 4 * 1024 * 1024 - 1), '1');
    const o = server.dbs[0]!.lookupNoTouch('big');
    expect(o).toBeInstanceOf(StringObject);
    for (let i = 0; i < 20_000; i++) run('SETBIT', 'big', String((i * 7919) % (8 * 4 * 1024 * 1024)), String(i & 1));
    // The same object after 20,000 edits: nothing copied the 4 MB.
    expect(server.dbs[0]!.lookupNoTouch('big')).toBe(o);
    expect(run('STRLEN', 'big')).toBe(4 * 1024 * 1024);
  });

  it('SETBIT against integer-encoded key leaves a raw string', () => {
    const { run } = setup();
    run('SET', 'k', '1');
    expect(run('OBJECT', 'ENCODING', 'k')).toBe('int');
    expect(run('SETBIT', 'k', '6', '1')).toBe(0);
    expect(run('GET', 'k')).toBe('3');
    expect(run('OBJECT', 'ENCODING', 'k')).toBe('raw');
  });
});

describe('BITFIELD', () => {
  it('BITFIELD signed SET and GET basics', () => {
    const { run } = setup();
    expect(run('BITFIELD', 'bits', 'SET', 'i8', '0', '-100')).toEqual([0]);
    expect(run('BITFIELD', 'bits', 'SET', 'i8', '0', '101')).toEqual([-100]);
    expect(run('BITFIELD', 'bits', 'GET', 'i8', '0')).toEqual([101]);
  });

  it('BITFIELD 64-bit fields reply with bigints beyond the safe range', () => {
    const { run } = setup();
    expect(run('BITFIELD', 'w', 'SET', 'i64', '0', '-9223372036854775808', 'GET', 'i64', '0', 'GET', 'u63', '0')).toEqual([
      0,
      -9223372036854775808n,
      4611686018427387904n,
    ]);
  });

  it('BITFIELD overflow SAT of a SET far below a signed range saturates upwards, as in C', () => {
    const { run } = setup();
    expect(run('BITFIELD', 'k', 'OVERFLOW', 'SAT', 'SET', 'i8', '0', '-9223372036854775808', 'GET', 'i8', '0')).toEqual([0, 127]);
  });

  it('BITFIELD_RO fails when write option is used', () => {
    const { run } = setup();
    expect(errorText(run('BITFIELD_RO', 'k', 'GET', 'u8', '0', 'SET', 'u8', '0', '1'))).toBe(
      'ERR BITFIELD_RO only supports the GET subcommand',
    );
  });
});
