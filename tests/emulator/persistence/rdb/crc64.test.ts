import { describe, expect, it } from 'vitest';
import { Crc64, crc64 } from '../../../../emulator/persistence/rdb/crc64.js';
import { WASM_WINDOW_BYTES, wasmCrc64Ready } from '../../../../emulator/persistence/rdb/crc64-wasm.js';
// Loading the seldom-used code registers the WebAssembly step for long sums.
import '../../../../emulator/commands/on-demand-handlers.js';

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

  it('sums a long run (the WebAssembly step, over two of its windows) as the bitwise definition does', () => {
    const data = new Uint8Array(WASM_WINDOW_BYTES + 1003);
    for (let i = 0, x = 11; i < data.length; i++) data[i] = x = (x * 181 + 113) & 0xff;
    // Odd starts and ends: the window's eight-byte steps and its byte-at-a-time tail.
    for (const [start, end] of [[3, data.length - 5], [1, 513]] as const) {
      const expected = bitwise(data, start, end);
      expect(crc64(data, start, end), `bytes ${start}..${end}`).toBe(expected);
      // The same bytes in pieces too short for WebAssembly take the JavaScript loop.
      const pieces = new Crc64();
      for (let at = start; at < end; at += 300) pieces.update(data, at, Math.min(end, at + 300));
      expect(pieces.value).toBe(expected);
    }
    expect(wasmCrc64Ready()).toBe(true);
  });

  it('keeps two running sums apart when their long pieces interleave', () => {
    const a = new Uint8Array(5000).map((_, i) => (i * 31) & 0xff);
    const b = new Uint8Array(5000).map((_, i) => (i * 17 + 5) & 0xff);
    const ca = new Crc64();
    const cb = new Crc64();
    for (let at = 0; at < 5000; at += 1000) {
      ca.update(a, at, at + 1000);
      cb.update(b, at, at + 1000);
    }
    expect(ca.value).toBe(bitwise(a, 0, a.length));
    expect(cb.value).toBe(bitwise(b, 0, b.length));
  });

  it('stores the value as eight little-endian bytes', () => {
    const bytes = new Crc64().update(ascii('123456789')).bytesLE();
    expect(Array.from(bytes)).toEqual([0xca, 0xd9, 0xb8, 0xc4, 0x14, 0xd9, 0xc6, 0xe9]);
  });
});
