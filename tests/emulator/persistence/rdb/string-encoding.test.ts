import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../../../emulator/persistence/rdb/bytes.js';
import { ByteWriter } from '../../../../emulator/keyspace/encoding/byte-writer.js';
import { lengthSize, readBlob, readLength, readString, writeLength, writeString } from '../../../../emulator/persistence/rdb/string-encoding.js';

const hex = (a: Uint8Array) => Buffer.from(a).toString('hex');

function written(f: (w: ByteWriter) => void): Uint8Array {
  const w = new ByteWriter();
  f(w);
  return w.finish();
}

describe('RDB lengths', () => {
  it('uses 6, 14, 32 and 64 bits', () => {
    expect(hex(written((w) => writeLength(w, 63)))).toBe('3f');
    expect(hex(written((w) => writeLength(w, 64)))).toBe('4040');
    expect(hex(written((w) => writeLength(w, 16383)))).toBe('7fff');
    expect(hex(written((w) => writeLength(w, 16384)))).toBe('8000004000');
    expect(hex(written((w) => writeLength(w, 2 ** 32)))).toBe('810000000100000000');
    for (const n of [0, 63, 64, 16383, 16384, 2 ** 32 - 1, 2 ** 32, 2 ** 40]) {
      const bytes = written((w) => writeLength(w, n));
      expect(bytes.length).toBe(lengthSize(n));
      expect(readLength(new ByteReader(bytes))).toBe(n);
    }
  });
});

describe('RDB strings', () => {
  it('stores canonical integers of up to 11 characters as int8, int16 or int32', () => {
    expect(hex(written((w) => writeString(w, '-1', true)))).toBe('c0ff');
    expect(hex(written((w) => writeString(w, '128', true)))).toBe('c18000');
    expect(hex(written((w) => writeString(w, '-32769', true)))).toBe('c2ff7fffff');
    expect(hex(written((w) => writeString(w, '2147483648', true)))).toBe('0a32313437343833363438');
    expect(hex(written((w) => writeString(w, '007', true)))).toBe('03303037');
    expect(hex(written((w) => writeString(w, '-0', true)))).toBe('022d30');
    expect(hex(written((w) => writeString(w, '', true)))).toBe('00');
  });

  it('compresses only past 20 bytes, and only when it saves 4', () => {
    expect(written((w) => writeString(w, 'a'.repeat(20), true))[0]).toBe(20);
    expect(written((w) => writeString(w, 'a'.repeat(21), true))[0]).toBe(0xc3);
    expect(written((w) => writeString(w, 'a'.repeat(21), false))[0]).toBe(21);
    expect(written((w) => writeString(w, 'abcdefghijklmnopqrstu', true))[0]).toBe(21);
  });

  it('reads back every form, as strings or as bytes', () => {
    for (const s of ['', 'x', '-128', '32767', '-2147483648', 'a'.repeat(500), '\x00\xff'.repeat(40)]) {
      const bytes = written((w) => writeString(w, s, true));
      expect(readString(new ByteReader(bytes))).toBe(s);
      expect(Buffer.from(readBlob(new ByteReader(bytes))).toString('latin1')).toBe(s);
    }
  });
});
