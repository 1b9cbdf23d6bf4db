/**
 * DEBUG OBJECT's serializedlength against the real server, for values of
 * every encoding, which an RDB file holds with their strings and blobs
 * LZF-compressed when rdbcompression allows and it saves at least four
 * bytes (a dense HyperLogLog shrinks from 12 KB to a few hundred bytes),
 * and the shape of its made-up address.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { EmulatorBackend, RealBackend, type Backend } from './backends.js';

const SETUP = [
  ['SET', 'short', 'abc'],
  ['SET', 'int', '12345'],
  ['SET', 'x21', 'x'.repeat(21)],
  ['SET', 'x100', 'x'.repeat(100)],
  ['SET', 'mixed', 'The quick brown fox jumps over the lazy dog, twice: the quick brown fox'],
  ['PFADD', 'hll', 'a', 'b', 'c'],
  ['PFDEBUG', 'TODENSE', 'hll'],
  ['RPUSH', 'list', 'a', 'b', 'c'],
  ['RPUSH', 'longlist', ...Array.from({ length: 300 }, (_, i) => `item-${i}-${'y'.repeat(40)}`)],
  ['RPUSH', 'bigitem', 'z'.repeat(10000), 'a'],
  ['SADD', 'intset', '1', '2', '3'],
  ['SADD', 'set', ...Array.from({ length: 20 }, (_, i) => `member-${i}-${'q'.repeat(25)}`)],
  ['HSET', 'hash', 'f', 'v', 'g', 'w'.repeat(50)],
  ['HSET', 'bighash', ...Array.from({ length: 300 }, (_, i) => [`f${i}`, 'v'.repeat(10)]).flat()],
  ['ZADD', 'zset', '1', 'a', '2', 'b'.repeat(60)],
  ['ZADD', 'skiplist', ...Array.from({ length: 200 }, (_, i) => [String(i), `m${i}${'k'.repeat(30)}`]).flat()],
];
const KEYS = ['short', 'int', 'x21', 'x100', 'mixed', 'hll', 'list', 'longlist', 'bigitem', 'intset', 'set', 'hash', 'bighash', 'zset', 'skiplist'];

async function lengths(b: Backend): Promise<string[]> {
  for (const argv of SETUP) await b.command(1, argv);
  const out: string[] = [];
  for (const compression of ['yes', 'no']) {
    await b.command(1, ['CONFIG', 'SET', 'rdbcompression', compression]);
    for (const k of KEYS) {
      const reply = await b.command(1, ['DEBUG', 'OBJECT', k]);
      out.push(`${compression} ${k} ${/serializedlength:(\d+)/.exec(reply)?.[1] ?? reply}`);
    }
  }
  return out;
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'DEBUG OBJECT' : `DEBUG OBJECT (${skipNotice()})`, () => {
  it('gives the serialized length of a value as an RDB file holds it, compressed or not', async () => {
    const real = await RealBackend.start();
    const emu = new EmulatorBackend();
    try {
      const [a, b] = [await lengths(real), await lengths(emu)];
      expect(b).toEqual(a);
    } finally {
      await Promise.all([real.close(), emu.close()]);
    }
  });

  it('prints a value address as one hexadecimal number', async () => {
    const emu = new EmulatorBackend();
    for (const k of ['a', 'b', 'c', 'hll', 'short', 'x100', '']) await emu.command(1, ['SET', k, 'v']);
    for (const k of ['a', 'b', 'c', 'hll', 'short', 'x100', '']) expect(await emu.command(1, ['DEBUG', 'OBJECT', k])).toMatch(/^\+Value at:0x[0-9a-f]{12} /);
    await emu.close();
  });
});
