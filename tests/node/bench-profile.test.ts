import { describe, expect, it } from 'vitest';
import { describeFrames, profiled, topFrames, type CpuProfile } from '../../bench/profile.js';
import { explainShortRows } from '../../bench/where.js';
import type { Row } from '../../bench/measure.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

/** root → a (2 samples), root → b → a (1 sample), b (1), (idle) (4), (garbage collector) (2). */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 5, 6] },
    { id: 2, callFrame: frame('a', 'file:///x/src/a.ts', 9) },
    { id: 3, callFrame: frame('b', 'file:///x/src/b.ts'), children: [4] },
    { id: 4, callFrame: frame('a', 'file:///x/src/a.ts', 9) },
    { id: 5, callFrame: frame('(idle)') },
    { id: 6, callFrame: frame('(garbage collector)') },
  ],
  samples: [2, 2, 4, 3, 5, 5, 5, 5, 6, 6],
};

describe("the bench's profile summary", () => {
  it('adds up a function under every caller and leaves idle samples out of the shares', () => {
    const { frames, busy, idle } = topFrames(PROFILE);
    expect(busy).toBe(6);
    expect(idle).toBe(4);
    expect(frames.map((f) => [f.name, f.place, f.share])).toEqual([
      ['a', 'a.ts', 3 / 6],
      ['(garbage collector)', '', 2 / 6],
      ['b', 'b.ts', 1 / 6],
    ]);
    expect(describeFrames(PROFILE, 2)).toBe('50.0% a (a.ts) · 33.3% (garbage collector); idle 40% of the samples');
  });

  it('profiles a function run in this process', async () => {
    const spin = (): number => {
      let x = 0;
      for (let i = 0; i < 1e7; i++) x = (x + i * 7) % 1000003;
      return x;
    };
    const { value, profile } = await profiled(spin);
    expect(value).toBe(spin());
    expect(topFrames(profile, 3).frames.map((f) => f.name)).toContain('spin');
  });

  it('explains only the rows short of their goal', async () => {
    const rows: Row[] = [
      { name: 'met', emulator: 2, reference: 1, unit: 'ops/s', referenceName: 'ref', goal: 1 },
      { name: 'short', emulator: 1, reference: 2, unit: 'ops/s', referenceName: 'ref', goal: 1 },
      { name: 'no goal', emulator: 1, reference: 2, unit: 'ops/s', referenceName: 'ref' },
    ];
    const asked: string[] = [];
    await explainShortRows(rows, (row) => {
      asked.push(row.name);
      return Promise.resolve(PROFILE);
    });
    expect(asked).toEqual(['short']);
    expect(rows.map((r) => r.where)).toEqual([undefined, describeFrames(PROFILE), undefined]);
  });
});
