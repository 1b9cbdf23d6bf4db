import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Deque } from '../../../emulator/keyspace/deque.js';

type Op =
  | { op: 'pushHead' | 'pushTail'; v: number }
  | { op: 'popHead' | 'popTail' }
  | { op: 'insertAt' | 'set'; at: number; v: number }
  | { op: 'removeAt'; at: number }
  | { op: 'dropHead' | 'dropTail'; n: number }
  | { op: 'filterOdd' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constantFrom('pushHead' as const, 'pushTail' as const), v: fc.integer() }),
  fc.record({ op: fc.constantFrom('popHead' as const, 'popTail' as const) }),
  fc.record({ op: fc.constantFrom('insertAt' as const, 'set' as const), at: fc.nat(), v: fc.integer() }),
  fc.record({ op: fc.constant('removeAt' as const), at: fc.nat() }),
  fc.record({ op: fc.constantFrom('dropHead' as const, 'dropTail' as const), n: fc.nat(40) }),
  fc.record({ op: fc.constant('filterOdd' as const) }),
);

/** Applies an operation to the deque and to a plain array; returns what each gave back. */
function apply(d: Deque<number>, model: number[], o: Op): [unknown, unknown] {
  switch (o.op) {
    case 'pushHead':
      d.pushHead(o.v);
      model.unshift(o.v);
      return [0, 0];
    case 'pushTail':
      d.pushTail(o.v);
      model.push(o.v);
      return [0, 0];
    case 'popHead':
      return [d.popHead(), model.shift()];
    case 'popTail':
      return [d.popTail(), model.pop()];
    case 'insertAt': {
      const at = o.at % (model.length + 1);
      d.insertAt(at, o.v);
      model.splice(at, 0, o.v);
      return [0, 0];
    }
    case 'set': {
      if (model.length === 0) return [0, 0];
      const at = o.at % model.length;
      d.set(at, o.v);
      model[at] = o.v;
      return [0, 0];
    }
    case 'removeAt': {
      if (model.length === 0) return [0, 0];
      const at = o.at % model.length;
      d.removeAt(at);
      model.splice(at, 1);
      return [0, 0];
    }
    case 'dropHead':
      d.dropHead(o.n);
      model.splice(0, o.n);
      return [0, 0];
    case 'dropTail':
      d.dropTail(o.n);
      model.splice(Math.max(0, model.length - o.n), o.n);
      return [0, 0];
    case 'filterOdd': {
      const before = model.length;
      const kept = model.filter((v) => v % 2 === 0);
      model.length = 0;
      model.push(...kept);
      return [d.filter((v) => v % 2 === 0), before - kept.length];
    }
  }
}

describe('Deque', () => {
  it('pushes and pops at both ends', () => {
    const d = new Deque<string>();
    d.pushTail('b');
    d.pushHead('a');
    d.pushTail('c');
    expect(d.toArray()).toEqual(['a', 'b', 'c']);
    expect(d.popHead()).toBe('a');
    expect(d.popTail()).toBe('c');
    expect(d.popTail()).toBe('b');
    expect(d.popTail()).toBeUndefined();
    expect(d.popHead()).toBeUndefined();
    expect(d.length).toBe(0);
  });

  it('grows past its capacity across the wrap-around point', () => {
    const d = new Deque<number>(4);
    for (let i = 1; i <= 3; i++) d.pushHead(-i);
    for (let i = 0; i < 100; i++) d.pushTail(i);
    expect(d.length).toBe(103);
    expect(d.get(0)).toBe(-3);
    expect(d.get(102)).toBe(99);
    expect(d.slice(0, 5)).toEqual([-3, -2, -1, 0, 1]);
  });

  it('inserts and removes in the middle from whichever side is shorter', () => {
    const d = Deque.from(['a', 'b', 'c', 'd', 'e']);
    d.insertAt(1, 'x');
    d.insertAt(5, 'y');
    expect(d.toArray()).toEqual(['a', 'x', 'b', 'c', 'd', 'y', 'e']);
    d.removeAt(1);
    d.removeAt(4);
    expect(d.toArray()).toEqual(['a', 'b', 'c', 'd', 'e']);
    d.insertAt(0, 'h');
    d.insertAt(6, 't');
    expect(d.toArray()).toEqual(['h', 'a', 'b', 'c', 'd', 'e', 't']);
  });

  it('filter keeps order and reports how many it removed', () => {
    const d = Deque.from([1, 2, 3, 4, 5, 6]);
    expect(d.filter((v, i) => v % 2 === 0 || i === 0)).toBe(2);
    expect(d.toArray()).toEqual([1, 2, 4, 6]);
  });

  it('gives memory back after a large list drains', () => {
    const d = new Deque<number>();
    for (let i = 0; i < 10_000; i++) d.pushTail(i);
    const capacity = (): number => (d as unknown as { items: unknown[] }).items.length;
    const peak = capacity();
    d.dropHead(9_990);
    expect(d.toArray()).toEqual([9990, 9991, 9992, 9993, 9994, 9995, 9996, 9997, 9998, 9999]);
    expect(capacity()).toBeLessThanOrEqual(64);
    expect(capacity()).toBeLessThan(peak);
  });

  it('behaves like an array under any sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), (ops) => {
        const d = new Deque<number>();
        const model: number[] = [];
        for (const o of ops) {
          const [got, want] = apply(d, model, o);
          expect(got).toEqual(want);
          expect(d.length).toBe(model.length);
        }
        expect(d.toArray()).toEqual(model);
        expect([...d]).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});
