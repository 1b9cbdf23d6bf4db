/**
 * An indexable skip list ordered by (score, member), the structure behind a
 * sorted set: O(log n) insert, delete, rank and access by rank. Members
 * compare as bytes (byte strings compare like memcmp).
 *
 * Levels come from a small private xorshift generator with a fixed seed, so
 * the same operations always build the same list.
 */
const MAX_LEVEL = 32;

export class ZNode {
  readonly next: Array<ZNode | null>;
  readonly span: number[];
  backward: ZNode | null = null;

  constructor(
    public member: string,
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
 * A lexicographic interval over members. `min`/`max` are byte strings;
 * null means -inf (for min) or +inf (for max), i.e. "-" and "+".
 */
export interface LexRange {
  min: string | null;
  max: string | null;
  minEx: boolean;
  maxEx: boolean;
  /** "+" as min or "-" as max: an empty range. */
  minIsPlusInf?: boolean;
  maxIsMinusInf?: boolean;
}

function before(score: number, member: string, node: ZNode): boolean {
  // True when node sorts before (score, member).
  return node.score < score || (node.score === score && node.member < member);
}

export function scoreGteMin(score: number, r: ScoreRange): boolean {
  return r.minEx ? score > r.min : score >= r.min;
}
export function scoreLteMax(score: number, r: ScoreRange): boolean {
  return r.maxEx ? score < r.max : score <= r.max;
}
export function lexGteMin(m: string, r: LexRange): boolean {
  if (r.minIsPlusInf) return false;
  if (r.min === null) return true;
  return r.minEx ? m > r.min : m >= r.min;
}
export function lexLteMax(m: string, r: LexRange): boolean {
  if (r.maxIsMinusInf) return false;
  if (r.max === null) return true;
  return r.maxEx ? m < r.max : m <= r.max;
}

export class SkipList {
  readonly header = new ZNode('', 0, MAX_LEVEL);
  tail: ZNode | null = null;
  length = 0;
  private level = 1;
  private seed = 0x2545f491;

  private randomLevel(): number {
    let level = 1;
    for (;;) {
      // xorshift32
      let x = this.seed;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.seed = x >>> 0;
      if ((this.seed & 0xffff) < 0xffff / 4 && level < MAX_LEVEL) level++;
      else return level;
    }
  }

  insert(score: number, member: string): ZNode {
    const update = new Array<ZNode>(MAX_LEVEL);
    const rank = new Array<number>(MAX_LEVEL);
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      rank[i] = i === this.level - 1 ? 0 : rank[i + 1]!;
      let nx = x.next[i];
      while (nx && before(score, member, nx)) {
        rank[i]! += x.span[i]!;
        x = nx;
        nx = x.next[i];
      }
      update[i] = x;
    }
    const level = this.randomLevel();
    if (level > this.level) {
      for (let i = this.level; i < level; i++) {
        rank[i] = 0;
        update[i] = this.header;
        this.header.span[i] = this.length;
      }
      this.level = level;
    }
    const node = new ZNode(member, score, level);
    for (let i = 0; i < level; i++) {
      const u = update[i]!;
      node.next[i] = u.next[i]!;
      u.next[i] = node;
      node.span[i] = u.span[i]! - (rank[0]! - rank[i]!);
      u.span[i] = rank[0]! - rank[i]! + 1;
    }
    for (let i = level; i < this.level; i++) update[i]!.span[i]!++;
    node.backward = update[0] === this.header ? null : update[0]!;
    if (node.next[0]) node.next[0].backward = node;
    else this.tail = node;
    this.length++;
    return node;
  }

  private unlink(x: ZNode, update: ZNode[]): void {
    for (let i = 0; i < this.level; i++) {
      const u = update[i]!;
      if (u.next[i] === x) {
        u.span[i]! += x.span[i]! - 1;
        u.next[i] = x.next[i]!;
      } else {
        u.span[i]!--;
      }
    }
    if (x.next[0]) x.next[0].backward = x.backward;
    else this.tail = x.backward;
    while (this.level > 1 && this.header.next[this.level - 1] === null) this.level--;
    this.length--;
  }

  /** Removes (score, member); returns whether it was there. */
  delete(score: number, member: string): boolean {
    const update = new Array<ZNode>(MAX_LEVEL);
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && before(score, member, nx)) {
        x = nx;
        nx = x.next[i];
      }
      update[i] = x;
    }
    const target = x.next[0];
    if (target && target.score === score && target.member === member) {
      this.unlink(target, update);
      return true;
    }
    return false;
  }

  /** Moves a member to a new score, in place when its position holds. */
  updateScore(curScore: number, member: string, newScore: number): ZNode {
    const update = new Array<ZNode>(MAX_LEVEL);
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && before(curScore, member, nx)) {
        x = nx;
        nx = x.next[i];
      }
      update[i] = x;
    }
    const node = x.next[0]!;
    const prev = node.backward;
    const next = node.next[0];
    if ((prev === null || prev.score < newScore || (prev.score === newScore && prev.member < member)) &&
        (next === null || next.score > newScore || (next.score === newScore && next.member > member))) {
      node.score = newScore;
      return node;
    }
    this.unlink(node, update);
    return this.insert(newScore, member);
  }

  /** 1-based rank of (score, member), or 0 when absent. */
  rank(score: number, member: string): number {
    let r = 0;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && (nx.score < score || (nx.score === score && nx.member <= member))) {
        r += x.span[i]!;
        x = nx;
        nx = x.next[i];
      }
      if (x !== this.header && x.member === member) return r;
    }
    return 0;
  }

  /** The node at a 1-based rank, or null. */
  byRank(rank: number): ZNode | null {
    if (rank < 1 || rank > this.length) return null;
    let traversed = 0;
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && traversed + x.span[i]! <= rank) {
        traversed += x.span[i]!;
        x = nx;
        nx = x.next[i];
      }
      if (traversed === rank) return x;
    }
    return null;
  }

  first(): ZNode | null {
    return this.header.next[0] ?? null;
  }

  /** The first node with score in range, or null. */
  firstInRange(r: ScoreRange): ZNode | null {
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && !scoreGteMin(nx.score, r)) {
        x = nx;
        nx = x.next[i];
      }
    }
    const n = x.next[0];
    return n && scoreLteMax(n.score, r) ? n : null;
  }

  /** The last node with score in range, or null. */
  lastInRange(r: ScoreRange): ZNode | null {
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && scoreLteMax(nx.score, r)) {
        x = nx;
        nx = x.next[i];
      }
    }
    return x !== this.header && scoreGteMin(x.score, r) ? x : null;
  }

  firstInLexRange(r: LexRange): ZNode | null {
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && !lexGteMin(nx.member, r)) {
        x = nx;
        nx = x.next[i];
      }
    }
    const n = x.next[0];
    return n && lexLteMax(n.member, r) ? n : null;
  }

  lastInLexRange(r: LexRange): ZNode | null {
    let x = this.header;
    for (let i = this.level - 1; i >= 0; i--) {
      let nx = x.next[i];
      while (nx && lexLteMax(nx.member, r)) {
        x = nx;
        nx = x.next[i];
      }
    }
    return x !== this.header && lexGteMin(x.member, r) ? x : null;
  }

  /** 1-based rank of a node known to be in the list. */
  rankOf(node: ZNode): number {
    return this.rank(node.score, node.member);
  }

  *[Symbol.iterator](): IterableIterator<ZNode> {
    for (let x = this.header.next[0]; x; x = x.next[0]) yield x;
  }
}
