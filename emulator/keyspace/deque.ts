/**
 * A growable ring buffer: O(1) push and pop at both ends, O(1) access by
 * index, O(n) insertion and removal in the middle (as in Redis's quicklist).
 */
/** Buffers this small are never shrunk: resizing them would cost more than it saves. */
const MIN_SHRINK_CAPACITY = 16;

export class Deque<T> {
  private items: Array<T | undefined>;
  private head = 0;
  private len = 0;
  private mask: number;

  constructor(capacity = 4) {
    let cap = 4;
    while (cap < capacity) cap *= 2;
    this.items = new Array(cap);
    this.mask = cap - 1;
  }

  static from<T>(values: Iterable<T>): Deque<T> {
    const arr = Array.from(values);
    const d = new Deque<T>(arr.length + 1);
    for (let i = 0; i < arr.length; i++) d.items[i] = arr[i];
    d.len = arr.length;
    return d;
  }

  get length(): number {
    return this.len;
  }

  private grow(): void {
    this.resize(this.items.length * 2);
  }

  /**
   * Halves the buffer once it is three quarters empty, so that a list that
   * was long once does not hold its peak memory forever (Redis frees
   * quicklist nodes as they empty). Growing again needs the length to double,
   * so the two never chase each other.
   */
  private shrinkIfSparse(): void {
    const cap = this.items.length;
    if (cap > MIN_SHRINK_CAPACITY && this.len * 4 <= cap) this.resize(cap / 2);
  }

  private resize(cap: number): void {
    const old = this.items;
    const next = new Array<T | undefined>(cap);
    for (let i = 0; i < this.len; i++) next[i] = old[(this.head + i) & this.mask];
    this.items = next;
    this.head = 0;
    this.mask = cap - 1;
  }

  pushTail(v: T): void {
    if (this.len === this.items.length) this.grow();
    this.items[(this.head + this.len) & this.mask] = v;
    this.len++;
  }

  pushHead(v: T): void {
    if (this.len === this.items.length) this.grow();
    this.head = (this.head - 1) & this.mask;
    this.items[this.head] = v;
    this.len++;
  }

  popHead(): T | undefined {
    if (this.len === 0) return undefined;
    const v = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.len--;
    this.shrinkIfSparse();
    return v;
  }

  popTail(): T | undefined {
    if (this.len === 0) return undefined;
    const i = (this.head + this.len - 1) & this.mask;
    const v = this.items[i];
    this.items[i] = undefined;
    this.len--;
    this.shrinkIfSparse();
    return v;
  }

  /** The element at index i (0 = head); i must be in range. */
  get(i: number): T {
    return this.items[(this.head + i) & this.mask] as T;
  }

  set(i: number, v: T): void {
    this.items[(this.head + i) & this.mask] = v;
  }

  /** Inserts before index i (i may equal length). */
  insertAt(i: number, v: T): void {
    if (i === 0) return this.pushHead(v);
    if (i === this.len) return this.pushTail(v);
    if (this.len === this.items.length) this.grow();
    if (i < this.len / 2) {
      this.head = (this.head - 1) & this.mask;
      for (let k = 0; k < i; k++) this.set(k, this.get(k + 1));
    } else {
      for (let k = this.len; k > i; k--) this.items[(this.head + k) & this.mask] = this.items[(this.head + k - 1) & this.mask];
    }
    this.len++;
    this.set(i, v);
  }

  /** Removes the element at index i. */
  removeAt(i: number): void {
    if (i === 0) {
      this.popHead();
      return;
    }
    if (i === this.len - 1) {
      this.popTail();
      return;
    }
    if (i < this.len / 2) {
      for (let k = i; k > 0; k--) this.set(k, this.get(k - 1));
      this.popHead();
    } else {
      for (let k = i; k < this.len - 1; k++) this.set(k, this.get(k + 1));
      this.popTail();
    }
  }

  /**
   * Keeps only the elements whose index satisfies keep(index, value), in
   * order; returns how many were removed. O(n).
   */
  filter(keep: (v: T, i: number) => boolean): number {
    let w = 0;
    const n = this.len;
    for (let r = 0; r < n; r++) {
      const v = this.get(r);
      if (keep(v, r)) {
        if (w !== r) this.set(w, v);
        w++;
      }
    }
    for (let k = w; k < n; k++) this.items[(this.head + k) & this.mask] = undefined;
    this.len = w;
    this.shrinkIfSparse();
    return n - w;
  }

  /** Removes `count` elements from the head. */
  dropHead(count: number): void {
    for (let i = 0; i < count && this.len > 0; i++) this.popHead();
  }

  /** Removes `count` elements from the tail. */
  dropTail(count: number): void {
    for (let i = 0; i < count && this.len > 0; i++) this.popTail();
  }

  /** Elements [start, end) as an array. */
  slice(start: number, end: number): T[] {
    const out = new Array<T>(Math.max(0, end - start));
    for (let i = start; i < end; i++) out[i - start] = this.get(i);
    return out;
  }

  toArray(): T[] {
    return this.slice(0, this.len);
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.len; i++) yield this.get(i);
  }
}
