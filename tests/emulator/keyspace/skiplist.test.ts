import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SkipList, type LexBound, type LexRange, type ScoreRange, type ZNode } from '../../../emulator/keyspace/skiplist.js';

interface Entry {
  score: number;
  member: string;
}

function cmp(a: Entry, b: Entry): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  return a.member < b.member ? -1 : a.member > b.member ? 1 : 0;
}

/**
 * Checks every structural invariant: level-0 order, backward links, tail,
 * length, and that each link's span is the number of level-0 steps it skips.
 */
function checkInvariants(list: SkipList): void {
  const problems: string[] = [];
  const nodes: ZNode[] = [];
  let prev: ZNode | null = null;
  for (let n = list.first(); n !== null; n = n.next[0]!) {
    if (n.backward !== prev) problems.push(`backward link of ${n.member}`);
    if (prev && cmp(prev, n) >= 0) problems.push(`order at ${n.member}`);
    nodes.push(n);
    prev = n;
  }
  if (list.tail !== prev) problems.push('tail');
  if (list.length !== nodes.length) problems.push('length');
  const position = new Map<ZNode, number>(nodes.map((n, i) => [n, i + 1]));
  position.set(list.header, 0);
  for (const [node, pos] of position) {
    for (let i = 0; i < node.next.length; i++) {
      const nx = node.next[i];
      if (nx && node.span[i] !== position.get(nx)! - pos) problems.push(`span ${i} after ${node.member}`);
    }
  }
  expect(problems).toEqual([]);
}

function modelOf(list: SkipList): Entry[] {
  return [...list].map((n) => ({ score: n.score, member: n.member }));
}

const memberArb = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\x00', '\xff'), maxLength: 3 });
const scoreArb = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(-Infinity, Infinity, 0.5, -0));

type Op = { op: 'set'; score: number; member: string } | { op: 'del'; member: string };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('set' as const), score: scoreArb, member: memberArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('del' as const), member: memberArb }) },
);

/** Applies operations to a list the way a sorted set does (a dict of scores beside it). */
function build(ops: Op[]): { list: SkipList; dict: Map<string, number> } {
  const list = new SkipList();
  const dict = new Map<string, number>();
  for (const o of ops) {
    const cur = dict.get(o.member);
    if (o.op === 'set') {
      if (cur === undefined) list.insert(o.score, o.member);
      else if (cur !== o.score) list.updateScore(cur, o.member, o.score);
      else continue;
      dict.set(o.member, o.score);
    } else if (cur !== undefined) {
      expect(list.delete(cur, o.member)).toBe(true);
      dict.delete(o.member);
    }
  }
  return { list, dict };
}

function sortedModel(dict: Map<string, number>): Entry[] {
  return [...dict].map(([member, score]) => ({ score, member })).sort(cmp);
}

describe('SkipList', () => {
  it('keeps (score, member) order, spans and links through random inserts, updates and deletes', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const { list, dict } = build(ops);
        checkInvariants(list);
        expect(modelOf(list)).toEqual(sortedModel(dict));
      }),
      { numRuns: 300 },
    );
  });

  it('rank and byRank agree with the sorted order', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 150 }), (ops) => {
        const { list, dict } = build(ops);
        const model = sortedModel(dict);
        model.forEach((e, i) => {
          expect(list.rank(e.score, e.member)).toBe(i + 1);
          const n = list.byRank(i + 1)!;
          expect([n.score, n.member]).toEqual([e.score, e.member]);
        });
        expect(list.byRank(0)).toBeNull();
        expect(list.byRank(model.length + 1)).toBeNull();
        expect(list.rank(42, 'absent')).toBe(0);
        if (model.length && Number.isFinite(model[0]!.score)) expect(list.rank(model[0]!.score + 1, model[0]!.member)).toBe(0);
      }),
    );
  });

  it('finds the ends of score ranges, exclusive or not', () => {
    const rangeArb = fc.record({
      min: scoreArb,
      max: scoreArb,
      minEx: fc.boolean(),
      maxEx: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 100 }), rangeArb, (ops, r: ScoreRange) => {
        const { list, dict } = build(ops);
        const inRange = sortedModel(dict).filter(
          (e) => (r.minEx ? e.score > r.min : e.score >= r.min) && (r.maxEx ? e.score < r.max : e.score <= r.max),
        );
        const first = list.firstInRange(r);
        const last = list.lastInRange(r);
        expect(first && first.member).toBe(inRange.length ? inRange[0]!.member : null);
        expect(last && last.member).toBe(inRange.length ? inRange[inRange.length - 1]!.member : null);
      }),
    );
  });

  it('finds the ends of lex ranges when all scores are equal', () => {
    const boundArb: fc.Arbitrary<{ b: LexBound; ex: boolean }> = fc.oneof(
      fc.constant({ b: { s: '', inf: -1 as const }, ex: true }),
      fc.constant({ b: { s: '', inf: 1 as const }, ex: true }),
      fc.record({ b: fc.record({ s: memberArb, inf: fc.constant(0 as const) }), ex: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(memberArb, { maxLength: 40 }), boundArb, boundArb, (members, lo, hi) => {
        const list = new SkipList();
        for (const m of members) list.insert(0, m);
        const r: LexRange = { min: lo.b, max: hi.b, minEx: lo.ex, maxEx: hi.ex };
        const key = (b: LexBound, m: string): number => (b.inf !== 0 ? -b.inf : m < b.s ? -1 : m > b.s ? 1 : 0);
        const inRange = [...members].sort().filter((m) => {
          const a = key(r.min, m);
          const b = key(r.max, m);
          return (r.minEx ? a > 0 : a >= 0) && (r.maxEx ? b < 0 : b <= 0);
        });
        expect(list.firstInLexRange(r)?.member ?? null).toBe(inRange[0] ?? null);
        expect(list.lastInLexRange(r)?.member ?? null).toBe(inRange.length ? inRange[inRange.length - 1]! : null);
      }),
    );
  });

  it('deletes ranges by rank, score and lex, reporting each removed node', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 100 }), fc.nat(30), fc.nat(30), (ops, a, b) => {
        const { list, dict } = build(ops);
        const model = sortedModel(dict);
        const start = Math.min(a, b) + 1;
        const end = Math.max(a, b) + 1;
        const removed: string[] = [];
        const n = list.deleteRangeByRank(start, end, (node) => removed.push(node.member));
        const expected = model.slice(start - 1, end).map((e) => e.member);
        expect(removed).toEqual(expected);
        expect(n).toBe(expected.length);
        checkInvariants(list);
        expect(list.length).toBe(model.length - expected.length);
      }),
    );
    const list = new SkipList();
    for (let i = 0; i < 10; i++) list.insert(i, 'm' + i);
    const gone: string[] = [];
    expect(list.deleteRangeByScore({ min: 2, max: 5, minEx: true, maxEx: false }, (n) => gone.push(n.member))).toBe(3);
    expect(gone).toEqual(['m3', 'm4', 'm5']);
    checkInvariants(list);
    const lex = new SkipList();
    for (const m of ['a', 'b', 'c', 'd', 'e']) lex.insert(0, m);
    const r: LexRange = { min: { s: 'b', inf: 0 }, max: { s: 'd', inf: 0 }, minEx: false, maxEx: true };
    expect(lex.deleteRangeByLex(r, () => {})).toBe(2);
    expect([...lex].map((n) => n.member)).toEqual(['a', 'd', 'e']);
    checkInvariants(lex);
  });

  it('orders members as unsigned bytes with the shorter prefix first', () => {
    const list = new SkipList();
    for (const m of ['\xff', 'a\x00', '', 'a', '\x00', '\x7f', '\x80']) list.insert(1, m);
    expect([...list].map((n) => n.member)).toEqual(['', '\x00', 'a', 'a\x00', '\x7f', '\x80', '\xff']);
  });

  it('updates a score in place when the order holds and moves the node otherwise', () => {
    const list = new SkipList();
    const a = list.insert(1, 'a');
    list.insert(5, 'b');
    expect(list.updateScore(1, 'a', 2)).toBe(a);
    expect(list.updateScore(2, 'a', 10).member).toBe('a');
    expect([...list].map((n) => n.member)).toEqual(['b', 'a']);
    expect(() => list.updateScore(3, 'a', 4)).toThrow();
    checkInvariants(list);
  });

  it('stays balanced: 100,000 members are reached in few steps', () => {
    const list = new SkipList();
    for (let i = 0; i < 100_000; i++) list.insert(i, 'm' + i);
    checkInvariants(list);
    expect(list.rank(54321, 'm54321')).toBe(54322);
    expect(list.byRank(99_999)!.member).toBe('m99998');
    const n = list.firstInRange({ min: 77777.5, max: Infinity, minEx: false, maxEx: false });
    expect(n!.member).toBe('m77778');
  });
});
