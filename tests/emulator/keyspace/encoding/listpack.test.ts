import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeListpack, encodeListpack, listpackEntrySize, listpackHeaderValid } from '../../../../emulator/keyspace/encoding/listpack.js';

const hex = (a: Uint8Array) => Buffer.from(a).toString('hex');

describe('listpack', () => {
  it('encodes integers in the smallest form and strings by length, as lpEncodeGetType picks', () => {
    // The listpack redis-server 7.0.15 put in a DUMP of RPUSH l with these elements.
    const items = ['0', '127', '128', '-1', '4095', '4096', '-4096', '-4097', '32767', '32768', '-32769', '8388607', '8388608',
      '2147483647', '2147483648', '-9223372036854775808', '9223372036854775807', '01', '-0', 'x'.repeat(63), 'y'.repeat(64)];
    const expected =
      'e8000000150000017f01c08002dfff02cfff02f1001003d00002f1ffef03f1ff7f03f200800004f2ff7fff04f2ffff7f04f30000800005' +
      'f3ffffff7f05f4000000800000000009f4000000000000008009f4ffffffffffffff7f0982303103822d3003bf' +
      '78'.repeat(63) + '40e040' + '79'.repeat(64) + '42ff';
    expect(hex(encodeListpack(items))).toBe(expected);
  });

  it('sizes entries with their back-length', () => {
    expect(listpackEntrySize('5')).toBe(2);
    expect(listpackEntrySize('-5')).toBe(3);
    expect(listpackEntrySize('x'.repeat(63))).toBe(65);
    expect(listpackEntrySize('x'.repeat(64))).toBe(67);
    // 126 bytes of string and header: a one-byte back-length; 128: two.
    expect(listpackEntrySize('x'.repeat(124))).toBe(127);
    expect(listpackEntrySize('x'.repeat(126))).toBe(130);
    expect(listpackEntrySize('x'.repeat(4095))).toBe(4099);
    expect(listpackEntrySize('x'.repeat(4096))).toBe(4103);
    for (const s of ['', 'a', '9223372036854775808', 'x'.repeat(16380), 'x'.repeat(16378)]) {
      const lp = encodeListpack([s]);
      expect(listpackEntrySize(s)).toBe(lp.length - 7);
    }
  });

  it('round-trips any entries', () => {
    const entry = fc.oneof(
      fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 300 }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
      fc.integer({ min: -70000, max: 70000 }).map(String),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (entries) => {
        expect(decodeListpack(encodeListpack(entries))).toEqual(entries);
      }),
    );
  });

  it('round-trips entries whose back-length takes three bytes', () => {
    const entries = ['a', 'b'.repeat(20000), 'c'];
    expect(decodeListpack(encodeListpack(entries))).toEqual(entries);
  });

  it('records an unknown count past 65534 entries', () => {
    const entries = Array.from({ length: 65536 }, (_, i) => String(i % 100));
    const lp = encodeListpack(entries);
    expect(lp[4]! | (lp[5]! << 8)).toBe(0xffff);
    expect(decodeListpack(lp)).toEqual(entries);
  });

  it('rejects a wrong total, a missing terminator, a bad back-length and a wrong count', () => {
    const lp = encodeListpack(['a', '12', 'hello']);
    expect(listpackHeaderValid(lp)).toBe(true);
    const shortTotal = lp.slice();
    shortTotal[0]!--;
    expect(listpackHeaderValid(shortTotal)).toBe(false);
    expect(decodeListpack(shortTotal)).toBeNull();
    const noEnd = lp.slice();
    noEnd[noEnd.length - 1] = 0;
    expect(decodeListpack(noEnd)).toBeNull();
    const badBack = lp.slice();
    badBack[8] = 5;
    expect(decodeListpack(badBack)).toBeNull();
    const badCount = lp.slice();
    badCount[4] = 2;
    expect(decodeListpack(badCount)).toBeNull();
    expect(decodeListpack(Uint8Array.of(7, 0, 0, 0, 0, 0))).toBeNull();
    expect(decodeListpack(Uint8Array.of(7, 0, 0, 0, 0, 0, 0xff))).toEqual([]);
  });
});
