/**
 * A log-linear latency histogram with the bucket layout of HdrHistogram,
 * which redis-benchmark uses (deps/hdr_histogram): values are kept with a
 * fixed number of significant decimal digits, so a recorded 31 us and 29 us
 * may share a bucket, and every figure the tool prints is a bucket's bound.
 * Matching the layout is what makes the printed percentiles land on the
 * same values as the real tool's (0.031, 0.039, 0.047 ... milliseconds).
 *
 * Layout: values below `subBucketCount << unitMagnitude` are counted in
 * steps of 2^unitMagnitude; each further bucket doubles the range and the
 * step, keeping `subBucketHalfCount` slots per bucket.
 *
 *   const h = new LatencyHistogram(10, 3_000_000, 3);
 *   h.record(31);
 *   h.valueAtPercentile(50);   // 31: the highest value of 31's bucket [24, 31]
 */
export class LatencyHistogram {
  readonly unitMagnitude: number;
  readonly subBucketHalfCountMagnitude: number;
  readonly subBucketCount: number;
  readonly subBucketHalfCount: number;
  private readonly subBucketMask: number;
  readonly countsLen: number;
  readonly counts: Float64Array;
  totalCount = 0;
  /** Smallest non-zero and largest value recorded, before bucketing. */
  private minValue = Infinity;
  private maxValue = 0;

  constructor(
    lowestDiscernibleValue: number,
    readonly highestTrackableValue: number,
    readonly significantFigures: number,
  ) {
    if (lowestDiscernibleValue < 1 || significantFigures < 1 || significantFigures > 5 || lowestDiscernibleValue * 2 > highestTrackableValue) {
      throw new RangeError('histogram bounds or precision out of range');
    }
    const singleUnitLimit = 2 * 10 ** significantFigures;
    const subBucketCountMagnitude = Math.ceil(Math.log(singleUnitLimit) / Math.log(2));
    this.subBucketHalfCountMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
    this.unitMagnitude = Math.trunc(Math.log(lowestDiscernibleValue) / Math.log(2));
    this.subBucketCount = 2 ** (this.subBucketHalfCountMagnitude + 1);
    this.subBucketHalfCount = this.subBucketCount / 2;
    this.subBucketMask = (this.subBucketCount - 1) * 2 ** this.unitMagnitude;
    let bucketCount = 1;
    for (let limit = this.subBucketCount * 2 ** this.unitMagnitude; limit <= highestTrackableValue; limit *= 2) bucketCount++;
    this.countsLen = (bucketCount + 1) * this.subBucketHalfCount;
    this.counts = new Float64Array(this.countsLen);
  }

  private bucketIndex(value: number): number {
    const bits = 32 - Math.clz32(value | this.subBucketMask);
    return bits - this.unitMagnitude - (this.subBucketHalfCountMagnitude + 1);
  }

  /** The slot a value is counted in. Values here stay below 2^31. */
  indexFor(value: number): number {
    const bucket = this.bucketIndex(value);
    const sub = value >>> (bucket + this.unitMagnitude);
    return ((bucket + 1) << this.subBucketHalfCountMagnitude) + sub - this.subBucketHalfCount;
  }

  /** The lowest value counted in a slot. */
  valueAtIndex(index: number): number {
    let bucket = (index >> this.subBucketHalfCountMagnitude) - 1;
    let sub = (index & (this.subBucketHalfCount - 1)) + this.subBucketHalfCount;
    if (bucket < 0) {
      sub -= this.subBucketHalfCount;
      bucket = 0;
    }
    return sub * 2 ** (bucket + this.unitMagnitude);
  }

  lowestEquivalent(value: number): number {
    const bucket = this.bucketIndex(value);
    const sub = value >>> (bucket + this.unitMagnitude);
    return sub * 2 ** (bucket + this.unitMagnitude);
  }

  /** The width of the slot holding `value`. */
  private rangeSize(value: number): number {
    const bucket = this.bucketIndex(value);
    const sub = value >>> (bucket + this.unitMagnitude);
    return 2 ** (this.unitMagnitude + (sub >= this.subBucketCount ? bucket + 1 : bucket));
  }

  highestEquivalent(value: number): number {
    return this.lowestEquivalent(value) + this.rangeSize(value) - 1;
  }

  medianEquivalent(value: number): number {
    return this.lowestEquivalent(value) + Math.floor(this.rangeSize(value) / 2);
  }

  /** Counts one value; values outside the trackable range are dropped. */
  record(value: number): void {
    if (value < 0) return;
    const index = this.indexFor(value);
    if (index >= this.countsLen) return;
    this.counts[index]!++;
    this.totalCount++;
    if (value !== 0 && value < this.minValue) this.minValue = value;
    if (value > this.maxValue) this.maxValue = value;
  }

  /** Counts one value already known to be in range, at the slot from indexFor(). */
  recordAt(index: number, value: number): void {
    this.counts[index]!++;
    this.totalCount++;
    if (value !== 0 && value < this.minValue) this.minValue = value;
    if (value > this.maxValue) this.maxValue = value;
  }

  /** 0 when the first slot holds a value, else the lowest bound of the smallest value's slot. */
  min(): number {
    if (this.counts[0]! > 0) return 0;
    // Empty: the C library answers INT64_MAX, which a float rounds to 2^63.
    return this.minValue === Infinity ? 2 ** 63 : this.lowestEquivalent(this.minValue);
  }

  max(): number {
    return this.maxValue === 0 ? 0 : this.highestEquivalent(this.maxValue);
  }

  /**
   * The mean with each value taken at its slot's midpoint; NaN when empty
   * (the C library divides 0 by 0 too).
   */
  mean(): number {
    let total = 0;
    for (let i = 0; i < this.countsLen; i++) {
      const n = this.counts[i]!;
      if (n !== 0) total += n * this.medianEquivalent(this.valueAtIndex(i));
    }
    return total / this.totalCount;
  }

  /**
   * The highest value of the slot where the cumulative count first reaches
   * `percentile` of the total (rounded half up); the slot's lowest value for
   * the 0th percentile.
   */
  valueAtPercentile(percentile: number): number {
    const requested = percentile < 100 ? percentile : 100;
    let countAt = Math.floor((requested / 100) * this.totalCount + 0.5);
    if (countAt < 1) countAt = 1;
    let value = 0;
    let running = 0;
    for (let i = 0; i < this.countsLen; i++) {
      running += this.counts[i]!;
      if (running >= countAt) {
        value = this.valueAtIndex(i);
        break;
      }
    }
    return percentile === 0 ? this.lowestEquivalent(value) : this.highestEquivalent(value);
  }

  reset(): void {
    this.counts.fill(0);
    this.totalCount = 0;
    this.minValue = Infinity;
    this.maxValue = 0;
  }
}

/** One row of a distribution table: a percentile, the bound it reached, and the count so far. */
export interface DistributionRow {
  percentile: number;
  /** Highest value of the slot the row stopped at. */
  value: number;
  cumulative: number;
}

/** Walks the slots in order, as both of HdrHistogram's iterators do. */
class SlotWalk {
  index = -1;
  count = 0;
  cumulative = 0;
  value = 0;
  highest = 0;
  constructor(readonly h: LatencyHistogram) {}

  /** Steps to the next slot; false past the last one. */
  move(): boolean {
    this.index++;
    if (this.index >= this.h.countsLen) return false;
    this.count = this.h.counts[this.index]!;
    this.cumulative += this.count;
    this.value = this.h.valueAtIndex(this.index);
    this.highest = this.h.highestEquivalent(this.value);
    return true;
  }

  /** Steps only while counted values remain. */
  step(): boolean {
    if (this.cumulative >= this.h.totalCount || this.index >= this.h.countsLen) return false;
    this.move();
    return true;
  }
}

/**
 * The rows of HdrHistogram's percentile iteration with one tick per half
 * distance: percentiles 0, 50, 75, 87.5, ... each halving the distance to
 * 100, each reported at the first slot whose cumulative share reaches it,
 * then a final row at 100%. A slot that reaches several percentiles yields
 * one row for each (redis-benchmark prints only the first of equal counts).
 */
export function percentileRows(h: LatencyHistogram, ticksPerHalfDistance = 1): DistributionRow[] {
  const rows: DistributionRow[] = [];
  const walk = new SlotWalk(h);
  const total = h.totalCount;
  let target = 0;
  let reported = 0;
  let seenLast = false;
  for (;;) {
    if (walk.cumulative >= total) {
      if (seenLast) break;
      seenLast = true;
      rows.push({ percentile: 100, value: walk.highest, cumulative: walk.cumulative });
      reported = 100;
      continue;
    }
    if (walk.index === -1 && !walk.step()) break;
    let emitted = false;
    do {
      const current = (100 * walk.cumulative) / total;
      if (walk.count !== 0 && target <= current) {
        rows.push({ percentile: target, value: walk.highest, cumulative: walk.cumulative });
        reported = target;
        const halvings = Math.trunc(Math.log(100 / (100 - target)) / Math.log(2)) + 1;
        target += 100 / (ticksPerHalfDistance * 2 ** halvings);
        emitted = true;
        break;
      }
    } while (walk.step());
    // Running out of slots without reaching the target repeats the last
    // state, as the C iterator does; it cannot loop, the next turn ends.
    if (!emitted) rows.push({ percentile: reported, value: walk.highest, cumulative: walk.cumulative });
  }
  return rows;
}

/**
 * The rows of HdrHistogram's linear iteration as redis-benchmark drives it:
 * reporting levels every `unitsPerStep` (100 us), widened to `widerUnits`
 * (1 ms) once a row's value passes `widenAbove` (2 ms). Each row is the
 * first slot at or past a level's slot; percentiles are the share of the
 * total counted so far.
 */
export function linearRows(h: LatencyHistogram, unitsPerStep = 100, widenAbove = 2000, widerUnits = 1000): DistributionRow[] {
  const rows: DistributionRow[] = [];
  const walk = new SlotWalk(h);
  const total = h.totalCount;
  let units = unitsPerStep;
  let level = units;
  let levelLowest = h.lowestEquivalent(level);
  for (;;) {
    const more =
      walk.cumulative < total || (walk.index < h.countsLen && h.valueAtIndex(walk.index + 1) > levelLowest);
    if (!more) break;
    for (;;) {
      if (walk.value >= levelLowest) {
        level += units;
        levelLowest = h.lowestEquivalent(level);
        break;
      }
      if (!walk.move()) break;
    }
    rows.push({ percentile: (walk.cumulative / total) * 100, value: walk.highest, cumulative: walk.cumulative });
    if (walk.highest > widenAbove) units = widerUnits;
    if (walk.index >= h.countsLen) break;
  }
  return rows;
}

/**
 * The rows of HdrHistogram's logarithmic iteration (hdr_iter_log_init):
 * reporting levels at `firstUnits`, then each `base` times the one before.
 * A row is taken at the first slot at or past a level's slot, with that
 * slot's highest value and the count up to and including it; once the
 * slots run out, the last state is repeated, as the C iterator does.
 * Rows whose cumulative count did not grow are kept: callers that want
 * only the growing ones (LATENCY HISTOGRAM) drop them.
 */
export function logRows(h: LatencyHistogram, firstUnits: number, base: number): DistributionRow[] {
  const rows: DistributionRow[] = [];
  const walk = new SlotWalk(h);
  const total = h.totalCount;
  let level = firstUnits;
  let levelLowest = h.lowestEquivalent(level);
  for (;;) {
    const more =
      walk.cumulative < total || (walk.index < h.countsLen && h.valueAtIndex(walk.index + 1) > levelLowest);
    if (!more) break;
    for (;;) {
      if (walk.value >= levelLowest) {
        level *= base;
        levelLowest = h.lowestEquivalent(level);
        break;
      }
      if (!walk.move()) break;
    }
    rows.push({ percentile: total === 0 ? 0 : (walk.cumulative / total) * 100, value: walk.highest, cumulative: walk.cumulative });
    if (walk.index >= h.countsLen) break;
  }
  return rows;
}
