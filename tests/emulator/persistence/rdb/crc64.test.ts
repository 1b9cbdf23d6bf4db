import { describe, expect, it } from 'vitest';
import { Crc64, crc64 } from '../../../../emulator/persistence/rdb/crc64.js';

const ascii = (s: string) => new TextEncoder().encode(s);

describe('CRC64 Jones', () => {
  it('gives 0xe9c6d914c4b8d9ca for "123456789"', () => {
    expect(crc64(ascii('123456789'))).toBe(0xe9c6d914c4b8d9can);
  });

  it('is 0 for no bytes', () => {
    expect(crc64(new Uint8Array(0))).toBe(0n);
  });

  it('gives the same value fed in pieces', () => {
    const data = ascii('The quick brown fox jumps over the lazy dog, twice: the quick brown fox.');
    const whole = crc64(data);
    for (const cut of [1, 7, 8, 33, data.length - 1]) {
      const c = new Crc64().update(data, 0, cut).update(data, cut);
      expect(c.value).toBe(whole);
    }
  });

  it('stores the value as eight little-endian bytes', () => {
    const bytes = new Crc64().update(ascii('123456789')).bytesLE();
    expect(Array.from(bytes)).toEqual([0xca, 0xd9, 0xb8, 0xc4, 0x14, 0xd9, 0xc6, 0xe9]);
  });
});
