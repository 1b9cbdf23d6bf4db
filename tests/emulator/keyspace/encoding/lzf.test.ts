import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lzfCompress, lzfDecompress } from '../../../../emulator/keyspace/encoding/lzf.js';

const latin1 = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const hex = (a: Uint8Array) => Buffer.from(a).toString('hex');

describe('LZF', () => {
  // Expected bytes are what redis-server 7.0.15 wrote in DUMP payloads of
  // these strings (after the type byte, the 0xC3 marker and both lengths).
  it('compresses a run of one byte as Redis does', () => {
    expect(hex(lzfCompress(latin1('a'.repeat(30)), 26)!)).toBe('016161e01100016161');
  });

  it('compresses repeated phrases as Redis does', () => {
    const input = 'abcabcabcabcabcabcabcabcabcabcabcabc-the quick brown fox jumps over the lazy dog-abcabc';
    expect(hex(lzfCompress(latin1(input), input.length - 4)!)).toBe(
      '0361626361e017021f2d74686520717569636b2062726f776e20666f78206a756d7073206f76657220401e086c617a7920646f672d404d016263',
    );
  });

  it('gives up when the output would not fit', () => {
    const noise = latin1('q8#kZ!v0@Lp2$wX9&mR4^tB6*nY1(cF3)jH5');
    expect(lzfCompress(noise, noise.length - 4)).toBeNull();
    expect(lzfCompress(new Uint8Array(0), 10)).toBeNull();
    expect(lzfCompress(latin1('aaaa'), 0)).toBeNull();
  });

  it('round-trips any bytes it manages to compress', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 3000 }), (xs) => {
        const input = Uint8Array.from(xs.map((x) => 97 + x));
        const packed = lzfCompress(input, input.length + 64);
        expect(packed).not.toBeNull();
        expect(lzfDecompress(packed!, input.length)).toEqual(input);
      }),
    );
  });

  it('round-trips binary data with long matches and far offsets', () => {
    const input = new Uint8Array(20000);
    for (let i = 0; i < input.length; i++) input[i] = (i * 7919) % 251 ^ (i >> 9);
    input.copyWithin(12000, 3000, 9000);
    const packed = lzfCompress(input, input.length * 2)!;
    expect(lzfDecompress(packed, input.length)).toEqual(input);
  });

  it('rejects a back reference before the start, a truncated input and a wrong length', () => {
    expect(lzfDecompress(Uint8Array.of(0x20, 0x05), 10)).toBeNull();
    expect(lzfDecompress(Uint8Array.of(0x05, 0x61), 6)).toBeNull();
    expect(lzfDecompress(Uint8Array.of(0x00, 0x61), 2)).toBeNull();
    expect(lzfDecompress(Uint8Array.of(0x01, 0x61, 0x62), 1)).toBeNull();
  });
});
