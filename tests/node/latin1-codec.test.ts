import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bytesFromArray, bytesToArray, useHostByteCodec } from '../../emulator/resp/bytes.js';
import { ByteWriter } from '../../emulator/keyspace/encoding/byte-writer.js';
import { BufferBlock } from '../../emulator/replication/backlog.js';
import { latin1Codec } from '../../src/node/latin1-codec.js';

/** Every conversion, done by the emulator's loops or by Node's Latin-1. */
function convert(a: Uint8Array, withHost: boolean): { text: string; back: Uint8Array; written: Uint8Array; block: string } {
  useHostByteCodec(withHost ? latin1Codec : null);
  const text = bytesFromArray(a, 1, a.length);
  const w = new ByteWriter(4);
  w.byte(0x2a);
  w.str(text);
  // A replication buffer block takes the middle of the string after a byte of its own.
  const block = new BufferBlock(0, 1, text.length + 1);
  block.append('*', 0, 1);
  block.append(text, 1, Math.max(0, text.length - 2));
  return { text, back: bytesToArray(text), written: w.finish(), block: block.bytesFrom(0) };
}

describe("the Node server's byte conversion", () => {
  afterEach(() => useHostByteCodec(null));

  it('gives the same strings and bytes as the loops, for every byte value and for lengths on both sides of the threshold', () => {
    const all = new Uint8Array(2 * 256 + 1).map((_, i) => (i * 101) & 0xff);
    expect(convert(all, true)).toEqual(convert(all, false));
    expect(new Set(convert(all, true).text).size).toBe(256);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 3000 }), (a) => {
        const host = convert(a, true);
        const loops = convert(a, false);
        expect(host.text).toBe(loops.text);
        expect(host.back).toEqual(loops.back);
        expect(host.written).toEqual(loops.written);
        expect(host.block).toBe(loops.block);
        expect(host.block).toBe('*' + loops.text.slice(1, -1));
        expect(Array.from(host.back)).toEqual(Array.from(a.subarray(1)));
      }),
      { numRuns: 60 },
    );
  });
});
