import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readDecoder } from '../../src/node/byte-decoder.js';
import { bytesFromArray } from '../../emulator/resp/bytes.js';

describe('the TCP server byte decoder', () => {
  it('decodes any range of any bytes, across reads and repeated strings', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.uint8Array({ maxLength: 3000 }), fc.array(fc.tuple(fc.nat(), fc.nat(40)), { maxLength: 30 })), { maxLength: 8 }),
        (reads) => {
          const decode = readDecoder();
          for (const [bytes, ranges] of reads) {
            for (const [at, len] of ranges) {
              const start = bytes.length === 0 ? 0 : at % bytes.length;
              const end = Math.min(bytes.length, start + len);
              expect(decode(bytes, start, end)).toBe(bytesFromArray(bytes, start, end));
            }
            // The reader may reuse its buffer: what was decoded must not change with it.
            bytes.fill(0x41);
          }
        },
      ),
    );
  });

  it('hands back the same string for a repeated short argument', () => {
    const decode = readDecoder();
    const a = decode(new Uint8Array([71, 69, 84]), 0, 3);
    const b = decode(new Uint8Array([120, 71, 69, 84]), 1, 4);
    expect(a).toBe('GET');
    expect(b).toBe(a);
  });
});
