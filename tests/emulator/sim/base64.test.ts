import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../../../emulator/sim/base64.js';
import { Random } from '../../../emulator/sim/random.js';

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

describe('base64', () => {
  it('matches the RFC 4648 test vectors', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, coded] of vectors) {
      expect(encodeBase64(ascii(plain))).toBe(coded);
      expect(decodeBase64(coded)).toEqual(ascii(plain));
    }
  });

  it('round-trips every byte value and sizes around the slice boundary', () => {
    const r = new Random(3);
    for (const n of [1, 2, 3, 255, 256, 0x6000 - 1, 0x6000, 0x6000 + 1, 100_000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (n === 256 ? i : r.below(256)));
      expect(decodeBase64(encodeBase64(bytes))).toEqual(bytes);
    }
  });

  it('refuses text that is not base64', () => {
    expect(() => decodeBase64('abc')).toThrow(SyntaxError);
    expect(() => decodeBase64('ab!d')).toThrow(SyntaxError);
  });
});
