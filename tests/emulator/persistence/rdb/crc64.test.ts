import { describe, expect, it } from 'vitest';
import { Crc64, crc64 } from '../../../../emulator/persistence/rdb/crc64.js';

const ascii = (s: string) => new TextEncoder().encode(s);

/** The CRC bit by bit, straight from its definition: the reference for the table-driven loop. */
function bitwise(bytes: Uint8Array, start: number, end: number): bigint {
  let poly = 0n;
  for (let i = 0, v = 0xad93d23594c935a9n; i < 64; i++, v >>= 1n) poly = (poly << 1n) | (v & 1n);
  let crc = 0n;
  for (let i = start; i < end; i++) {
    crc ^= BigInt(bytes[i]!);
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
  }
  return crc;
}

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

  it('agrees with the bitwise definition at every length and alignment around the eight-byte steps', () => {
    const data = new Uint8Array(64);
    for (let i = 0, x = 7; i < data.length; i++) data[i] = x = (x * 181 + 113) & 0xff;
    for (let start = 0; start < 9; start++) {
      for (let end = start; end <= data.length; end++) {
        expect(crc64(data, start, end), `bytes ${start}..${end}`).toBe(bitwise(data, start, end));
      }
    }
  });

  it('stores the value as eight little-endian bytes', () => {
    const bytes = new Crc64().update(ascii('123456789')).bytesLE();
    expect(Array.from(bytes)).toEqual([0xca, 0xd9, 0xb8, 0xc4, 0x14, 0xd9, 0xc6, 0xe9]);
  });
});
