/**
 * An indexable skip list ordered by (score, member), the structure behind a
 * sorted set (src/t_zset.c): O(log n) insert, delete, rank, access by rank
 * and range search. Members compare as bytes: byte strings are JS strings of
 * char codes 0..255, and JS string comparison then orders them like memcmp
 * with the shorter string first on a common prefix, as sdscmp does.
 *
 * Levels come from a small private xorshift generator with a fixed seed, so
 * the same operations always build the same list.
 */
export const SKIPLIST_MAX_LEVEL = 32;

export class ZNode {
  /** The next node on each level. */
  readonly next: Array<ZNode | null>;
  /** How many level-0 steps each `next` link jumps over. */
  readonly span: number[];
  backward: ZNode | null = null;

  constructor(
    readonly member: string,
    public score: number,
    level: number,
  ) {
    this.next = new Array<ZNode | null>(level).fill(null);
    this.span = new Array<number>(level).fill(0);
  }
}

/** A score interval; `minEx`/`maxEx` make an end exclusive. */
export interface ScoreRange {
  min: number;
  max: number;
  minEx: boolean;
  maxEx: boolean;
}

/**
 * A lexicographic bound: a byte string, or one of the two infinities that
 * ZRANGEBYLEX spells "-" (inf -1) and "+" (inf 1).
 */
export interface LexBound {
  s: string;
  inf: -1 | 0 | 1;
}

/** A lexicographic interval. The infinities are always exclusive, as in Redis. */
export interface LexRange {
  min: LexBound;
  max: LexBound;
  minEx: boolean;
  maxEx: boolean;
}

export function scoreGteMin(score: number, r: ScoreRange): boolean {
  return r.minEx ? score > r.min : score >= r.min;
}

export function scoreLteMax(score: number, r: ScoreRange): boolean {
  return r.maxEx ? score < r.max : score <= r.max;
}

/** Whether no score at all can be in the range (zslIsInRange's first test). */
export function scoreRangeEmpty(r: ScoreRange): boolean {
  return r.min > r.max || (r.min === r.max && (r.minEx || r.maxEx));
}

/** A member compared with a bound: negative, zero or positive. */
function cmpMemberBound(m: string, b: LexBound): number {
  if (b.inf !== 0) return -b.inf;
  return m < b.s ? -1 : m > b.s ? 1 : 0;
}

export function lexGteMin(m: string, r: LexRange): boolean {
  const c = cmpMemberBound(m, r.min);
  return r.minEx ? c > 0 : c >= 0;
}

export function lexLteMax(m: string, r: LexRange): boolean {
  const c = cmpMemberBound(m, r.max);
  return r.maxEx ? c < 0 : c <= 0;
}

/**
 * Whether no member at all can be in the range: min above max, or equal
 * with an exclusive end. Two equal infinities compare equal (they are the
 * same shared object in Redis) and are exclusive, so "- -" and "+ +" are empty.
 */
export function lexRangeEmpty(r: LexRange): boolean {
  const a = r.min;
  const b = r.max;
  let cmp: number;
  if (a.inf !== 0 && a.inf === b.inf) cmp = 0;
  else if (a.inf === -1 || b.inf === 1) cmp = -1;
  else if (a.inf === 1 || b.inf === -1) cmp = 1;
  else cmp = a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  return cmp > 0 || (cmp === 0 && (r.minEx || r.maxEx));
}

/** True when node sorts before (score, member). */
function before(node: ZNode, score: number, member: string): boolean {
  return node.score < score || (node.score === score && node.member < member);
}

// Scratch vectors for one operation at a time: the emulator runs one command
// at a time, and no operation calls another while it holds them.
const update = new Array<ZNode>(SKIPLIST_MAX_LEVEL);
const rankAt = new Array<number>(SKIPLIST_MAX_LEVEL).fill(0);

export class SkipList {
  readonly header = new ZNode('', 0, SKIPLIST_MAX_LEVEL);
  tail: ZNode | null = null;
  length = 0;
  private level = 1;
  private seed = 0x2545f491;

  /** A level with P(level > k) = 1/4^k, capped, as zslRandomLevel draws it. */
  private randomLevel(): number {
    let level = 1;
    for (;;) {
      let x = this.seed;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.seed = x >>> 0;
      if ((this.seed & 0xffff) < 0x4000 && level < SKIPLIST_MAX_LEVEL) level++;
      else return level;
    }
  }

  /** Inserts (score, member); the caller guarantees the member is not present. */
  insert(score: number, member: string): ZNode {
    const node = new ZNode(member, score, this.randomLevel());
    this.link(node);
    return node;
  }

  /** Links a node that is in no list at its place by (score, member), keeping its level. */
  private link(node: ZNode): void {
    const score = node.score;
    const member = node.member;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let r = i === this.level - 1 ? 0 : rankAt[i + 1]!;
      let nx = x.next[i]!;
      while (nx !== null && before(nx, score, member)) {
        r += x.span[i]!;
        x = nx;
        nx = x.next[i]!;
      }
      rankAt[i] = r;
      update[i] = x;
    }
    const level = node.next.length;
    if (level > this.level) {
      for (let i = this.level; i < level; i++) {
        rankAt[i] = 0;
        update[i] = this.header;
        this.header.span[i] = this.length;
      }
      this.level = level;
    }
    const r0 = rankAt[0]!;
    for (let i = 0; i < level; i++) {
      const u = update[i]!;
      node.next[i] = u.next[i]!;
      u.next[i] = node;
      node.span[i] = u.span[i]! - (r0 - rankAt[i]!);
      u.span[i] = r0 - rankAt[i]! + 1;
    }
    for (let i = level; i < this.level; i++) update[i]!.span[i]!++;
    node.backward = update[0] === this.header ? null : update[0]!;
    const after = node.next[0]!;
    if (after !== null) after.backward = node;
    else this.tail = node;
    this.length++;
  }

  /** Unlinks x, given the last node before it on every level (zslDeleteNode). */
  private unlink(x: ZNode): void {
    for (let i = 0; i < this.level; i++) {
      const u = update[i]!;
      if (u.next[i] === x) {
        u.span[i]! += x.span[i]! - 1;
        u.next[i] = x.next[i]!;
      } else {
        u.span[i]!--;
      }
    }
    const after = x.next[0]!;
    if (after !== null) after.backward = x.backward;
    else this.tail = x.backward;
    while (this.level > 1 && this.header.next[this.level - 1] === null) this.level--;
    this.length--;
  }

  /** Fills `update` with the last node before (score, member) on each level; returns the level-0 one. */
  private seek(score: number, member: string): ZNode {
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && before(nx, score, member)) {
        x = nx;
        nx = x.next[i]!;
      }
      update[i] = x;
    }
    return x;
  }

  /** Removes (score, member); returns whether it was there. */
  delete(score: number, member: string): boolean {
    const target = this.seek(score, member).next[0]!;
    if (target !== null && target.score === score && target.member === member) {
      this.unlink(target);
      return true;
    }
    return false;
  }

  /**
   * Moves a member to a new score. The node stays where it is when it would
   * still sit between its neighbours; otherwise it is unlinked and linked
   * again at its new place with the same level, which is as random there as
   * anywhere (zslUpdateScore, without a new allocation).
   */
  updateScore(curScore: number, member: string, newScore: number): ZNode {
    const node = this.seek(curScore, member).next[0]!;
    if (node === null || node.score !== curScore || node.member !== member) {
      throw new Error('skiplist: updateScore of a member that is not in the list');
    }
    const prev = node.backward;
    const next = node.next[0]!;
    if ((prev === null || prev.score < newScore) && (next === null || next.score > newScore)) {
      node.score = newScore;
      return node;
    }
    this.unlink(node);
    node.score = newScore;
    this.link(node);
    return node;
  }

  /** 1-based rank of (score, member), or 0 when absent (zslGetRank). */
  rank(score: number, member: string): number {
    let r = 0;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && (nx.score < score || (nx.score === score && nx.member <= member))) {
        r += x.span[i]!;
        x = nx;
        nx = x.next[i]!;
      }
      if (x !== this.header && x.score === score && x.member === member) return r;
    }
    return 0;
  }

  /** The node at a 1-based rank, or null. */
  byRank(rank: number): ZNode | null {
    if (rank < 1 || rank > this.length) return null;
    let traversed = 0;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && traversed + x.span[i]! <= rank) {
        traversed += x.span[i]!;
        x = nx;
        nx = x.next[i]!;
      }
      if (traversed === rank) return x;
    }
    return null;
  }

  first(): ZNode | null {
    return this.header.next[0]!;
  }

  /** The first node with a score in range, or null (zslFirstInRange). */
  firstInRange(r: ScoreRange): ZNode | null {
    if (scoreRangeEmpty(r)) return null;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && !scoreGteMin(nx.score, r)) {
        x = nx;
        nx = x.next[i]!;
      }
    }
    const n = x.next[0]!;
    return n !== null && scoreLteMax(n.score, r) ? n : null;
  }

  /** The last node with a score in range, or null (zslLastInRange). */
  lastInRange(r: ScoreRange): ZNode | null {
    if (scoreRangeEmpty(r)) return null;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && scoreLteMax(nx.score, r)) {
        x = nx;
        nx = x.next[i]!;
      }
    }
    return x !== this.header && scoreGteMin(x.score, r) ? x : null;
  }

  /**
   * Whether the list can hold members of the range at all, from its ends
   * (zslIsInLexRange). Only meaningful when all scores are equal; it is kept
   * so that the searches below answer as Redis's do on any list.
   */
  private mayHoldLex(r: LexRange): boolean {
    if (lexRangeEmpty(r)) return false;
    const last = this.tail;
    if (last === null || !lexGteMin(last.member, r)) return false;
    const first = this.header.next[0]!;
    return first !== null && lexLteMax(first.member, r);
  }

  /** The first node whose member is in the lex range, or null (zslFirstInLexRange). */
  firstInLexRange(r: LexRange): ZNode | null {
    if (!this.mayHoldLex(r)) return null;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && !lexGteMin(nx.member, r)) {
        x = nx;
        nx = x.next[i]!;
      }
    }
    const n = x.next[0]!;
    return n !== null && lexLteMax(n.member, r) ? n : null;
  }

  /** The last node whose member is in the lex range, or null (zslLastInLexRange). */
  lastInLexRange(r: LexRange): ZNode | null {
    if (!this.mayHoldLex(r)) return null;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && lexLteMax(nx.member, r)) {
        x = nx;
        nx = x.next[i]!;
      }
    }
    return x !== this.header && lexGteMin(x.member, r) ? x : null;
  }

  /**
   * Removes the nodes from the first one the descent `past` stops at, while
   * `keep` accepts them; calls `removed` for each. Returns how many.
   */
  private deleteRun(past: (n: ZNode) => boolean, keep: (n: ZNode) => boolean, removed: (n: ZNode) => void): number {
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && past(nx)) {
        x = nx;
        nx = x.next[i]!;
      }
      update[i] = x;
    }
    let n = x.next[0]!;
    let count = 0;
    while (n !== null && keep(n)) {
      const after = n.next[0]!;
      this.unlink(n);
      removed(n);
      count++;
      n = after;
    }
    return count;
  }

  /** Removes every node with a score in range (zslDeleteRangeByScore). */
  deleteRangeByScore(r: ScoreRange, removed: (n: ZNode) => void): number {
    return this.deleteRun(
      (n) => !scoreGteMin(n.score, r),
      (n) => scoreLteMax(n.score, r),
      removed,
    );
  }

  /** Removes the run of nodes from the first member >= min while <= max (zslDeleteRangeByLex). */
  deleteRangeByLex(r: LexRange, removed: (n: ZNode) => void): number {
    return this.deleteRun(
      (n) => !lexGteMin(n.member, r),
      (n) => lexLteMax(n.member, r),
      removed,
    );
  }

  /** Removes the nodes of 1-based ranks start..end inclusive (zslDeleteRangeByRank). */
  deleteRangeByRank(start: number, end: number, removed: (n: ZNode) => void): number {
    let traversed = 0;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i]!;
      while (nx !== null && traversed + x.span[i]! < start) {
        traversed += x.span[i]!;
        x = nx;
        nx = x.next[i]!;
      }
      update[i] = x;
    }
    traversed++;
    let n = x.next[0]!;
    let count = 0;
    while (n !== null && traversed <= end) {
      const after = n.next[0]!;
      this.unlink(n);
      removed(n);
      count++;
      traversed++;
      n = after;
    }
    return count;
  }

  *[Symbol.iterator](): IterableIterator<ZNode> {
    for (let x = this.header.next[0]!; x !== null; x = x.next[0]!) yield x;
  }
}
