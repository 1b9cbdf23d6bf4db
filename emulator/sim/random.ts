/**
 * A small seeded PRNG (xoshiro128**), the only source of randomness in the
 * emulator. Same seed, same sequence, on every platform.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // Spread the seed over the four words with splitmix32 so that nearby
    // seeds give unrelated sequences.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** A float in [0, 1) with 53 random bits. */
  nextFloat(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** An integer in [0, n) for 0 < n <= 2^53. */
  below(n: number): number {
    if (n <= 0x1_0000_0000) {
      // Rejection sampling keeps the distribution exact.
      const limit = 0x1_0000_0000 - (0x1_0000_0000 % n);
      for (;;) {
        const x = this.nextU32();
        if (x < limit) return x % n;
      }
    }
    return Math.floor(this.nextFloat() * n);
  }

  /** The generator's state, for checkpoints. */
  state(): [number, number, number, number] {
    return [this.a, this.b, this.c, this.d];
  }

  static fromState(state: readonly [number, number, number, number]): Random {
    const r = new Random(0);
    [r.a, r.b, r.c, r.d] = state;
    return r;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
