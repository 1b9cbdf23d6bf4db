import { describe, expect, it } from 'vitest';
import { CONTAINER_PACKED, CONTAINER_PLAIN, quicklistLayout, quicklistNodes } from '../../../../emulator/keyspace/encoding/quicklist.js';
import { decodeListpack } from '../../../../emulator/keyspace/encoding/listpack.js';
import { lzfDecompress } from '../../../../emulator/keyspace/encoding/lzf.js';

const defaults = { fill: -2, compressDepth: 0, packedThreshold: 1 << 30 };

describe('quicklist nodes', () => {
  it('fills 8 KB nodes by the estimate of _quicklistNodeAllowInsert', () => {
    // Each "element-N" entry takes about 12 bytes; the estimate adds the raw
    // length and 8 to the node's bytes and stops past 8192.
    const items = Array.from({ length: 3000 }, (_, i) => `element-${i}`);
    const spans = quicklistLayout(items, defaults);
    expect(spans.reduce((n, s) => n + s.count, 0)).toBe(3000);
    for (const s of spans.slice(0, -1)) expect(s.bytes).toBeLessThanOrEqual(8192);
    const first = spans[0]!;
    // The next element would have pushed the estimate past 8192.
    expect(first.bytes + items[first.count]!.length + 8).toBeGreaterThan(8192);
  });

  it('counts entries for a positive fill, within the 8 KB safety limit', () => {
    const spans = quicklistLayout(Array.from({ length: 23 }, (_, i) => String(i)), { ...defaults, fill: 5 });
    expect(spans.map((s) => s.count)).toEqual([5, 5, 5, 5, 3]);
    const big = quicklistLayout(['x'.repeat(5000), 'y'.repeat(5000), 'z'], { ...defaults, fill: 100 });
    expect(big.map((s) => s.count)).toEqual([1, 2]);
  });

  it('uses the byte limits of -1 to -5', () => {
    const items = Array.from({ length: 8000 }, (_, i) => `item${String(i).padStart(5, '0')}`);
    const perNode = (fill: number) => quicklistLayout(items, { ...defaults, fill })[0]!.count;
    expect(perNode(-1)).toBeLessThan(perNode(-2));
    expect(perNode(-2)).toBeLessThan(perNode(-3));
    expect(perNode(-5)).toBeGreaterThan(perNode(-4));
  });

  it('puts elements from the packed threshold up in plain nodes of their own', () => {
    const nodes = quicklistNodes(['a', 'b'.repeat(100), 'c', 'd'.repeat(99)], { ...defaults, packedThreshold: 100 });
    expect(nodes.map((n) => [n.container, n.count])).toEqual([
      [CONTAINER_PACKED, 1],
      [CONTAINER_PLAIN, 1],
      [CONTAINER_PACKED, 2],
    ]);
    expect(Buffer.from(nodes[1]!.blob).toString('latin1')).toBe('b'.repeat(100));
    expect(decodeListpack(nodes[2]!.blob)).toEqual(['c', 'd'.repeat(99)]);
  });

  it('compresses the nodes more than list-compress-depth from both ends', () => {
    const items = Array.from({ length: 3000 }, (_, i) => `compressible-${i % 10}-value`);
    const nodes = quicklistNodes(items, { ...defaults, compressDepth: 1 });
    expect(nodes.length).toBeGreaterThan(3);
    expect(nodes[0]!.compressed).toBeNull();
    expect(nodes[nodes.length - 1]!.compressed).toBeNull();
    for (const n of nodes.slice(1, -1)) {
      expect(n.compressed).not.toBeNull();
      expect(lzfDecompress(n.compressed!, n.blob.length)).toEqual(n.blob);
    }
    // With no more than twice the depth in nodes, nothing is compressed.
    const few = quicklistNodes(items.slice(0, 1300), { ...defaults, compressDepth: 2 });
    expect(few.length).toBe(4);
    expect(few.every((n) => n.compressed === null)).toBe(true);
  });
});
