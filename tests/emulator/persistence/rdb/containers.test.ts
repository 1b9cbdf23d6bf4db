import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeIntset, encodeIntset } from '../../../../emulator/persistence/rdb/intset.js';
import { decodeZiplist, encodeZiplist } from '../../../../emulator/persistence/rdb/ziplist.js';
import { decodeZipmap, encodeZipmap } from '../../../../emulator/persistence/rdb/zipmap.js';

const hex = (a: Uint8Array) => Buffer.from(a).toString('hex');
const byteString = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 400 });

describe('intset', () => {
  it('uses the smallest width and sorts, as in a DUMP from redis-server', () => {
    // SADD s 1 -40000 5 on redis-server 7.0.15: a 32-bit intset.
    expect(hex(encodeIntset(['1', '-40000', '5']))).toBe('0400000003000000c063ffff0100000005000000');
    expect(hex(encodeIntset(['2', '1']))).toBe('0200000002000000' + '0100' + '0200');
    expect(encodeIntset(['9223372036854775807', '0'])[0]).toBe(8);
  });

  it('round-trips and checks order only when deep', () => {
    const members = ['-9223372036854775808', '-1', '0', '70000', '9223372036854775807'];
    expect(decodeIntset(encodeIntset(members), true)).toEqual(members);
    const unordered = Uint8Array.of(2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 1, 0);
    expect(decodeIntset(unordered, false)).toEqual(['2', '1']);
    expect(decodeIntset(unordered, true)).toBeNull();
  });

  it('rejects an unknown width, a size that disagrees with the count, and no members', () => {
    expect(decodeIntset(Uint8Array.of(3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0), false)).toBeNull();
    expect(decodeIntset(Uint8Array.of(2, 0, 0, 0, 2, 0, 0, 0, 1, 0), false)).toBeNull();
    expect(decodeIntset(Uint8Array.of(2, 0, 0, 0, 0, 0, 0, 0), false)).toBeNull();
    expect(decodeIntset(Uint8Array.of(2, 0, 0), false)).toBeNull();
  });
});

describe('ziplist', () => {
  it('lays out the two-entry example of src/ziplist.c', () => {
    expect(hex(encodeZiplist(['2', '5']))).toBe('0f0000000c0000000200' + '00f3' + '02f6' + 'ff');
  });

  it('round-trips strings and every integer encoding', () => {
    const entries = ['0', '12', '13', '-1', '-128', '-129', '32767', '-32768', '8388607', '-8388608', '2147483647', '-2147483649',
      '9223372036854775807', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(16384), '', 'abc', '01'];
    expect(decodeZiplist(encodeZiplist(entries))).toEqual(entries);
  });

  it('round-trips any entries, with previous lengths past 253 bytes', () => {
    fc.assert(
      fc.property(fc.array(byteString, { maxLength: 20 }), (entries) => {
        expect(decodeZiplist(encodeZiplist(entries))).toEqual(entries);
      }),
    );
  });

  it('rejects a wrong previous length, tail offset or count', () => {
    const zl = encodeZiplist(['a', 'b', 'c']);
    const badPrev = zl.slice();
    badPrev[13] = 9;
    expect(decodeZiplist(badPrev)).toBeNull();
    const badTail = zl.slice();
    badTail[4]!++;
    expect(decodeZiplist(badTail)).toBeNull();
    const badCount = zl.slice();
    badCount[8] = 2;
    expect(decodeZiplist(badCount)).toBeNull();
  });
});

describe('zipmap', () => {
  it('lays out the example of src/zipmap.c', () => {
    expect(Buffer.from(encodeZipmap([['foo', 'bar'], ['hello', 'world']])).toString('latin1')).toBe(
      '\x02\x03foo\x03\x00bar\x05hello\x05\x00world\xff',
    );
  });

  it('round-trips pairs with long lengths and skips free space', () => {
    const pairs: Array<[string, string]> = [['f', 'v'.repeat(300)], ['k'.repeat(254), '']];
    expect(decodeZipmap(encodeZipmap(pairs))).toEqual(pairs);
    const withFree = Uint8Array.from(Buffer.from('\x01\x01f\x01\x02vXX\xff', 'latin1'));
    expect(decodeZipmap(withFree)).toEqual([['f', 'v']]);
  });

  it('rejects an empty zipmap and a count that disagrees', () => {
    expect(decodeZipmap(Uint8Array.of(0, 0xff))).toBeNull();
    expect(decodeZipmap(Uint8Array.from(Buffer.from('\x02\x01f\x01\x00v\xff', 'latin1')))).toBeNull();
  });
});
