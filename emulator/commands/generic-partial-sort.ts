/**
 * The partial quicksort SORT uses when BY and LIMIT are both given (Redis's
 * pqsort, from src/pqsort.c): Bentley and McIlroy's three-way quicksort that
 * only recurses into the parts overlapping the wanted index range. Elements
 * outside the range end up in no particular order, and elements that compare
 * equal are reordered in the algorithm's own way; SORT's output shows both,
 * so the exact sequence of comparisons and swaps is kept here.
 *
 *   partialQuickSort(items, compare, 5, 9); // items[5..9] are now in order
 */
export function partialQuickSort<T>(items: T[], compare: (a: T, b: T) => number, from: number, to: number): void {
  sortRun(items, 0, items.length, compare, from, to);
}

function sortRun<T>(a: T[], base: number, n: number, cmp: (x: T, y: T) => number, from: number, to: number): void {
  const swap = (i: number, j: number): void => {
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  };
  const median3 = (i: number, j: number, k: number): number =>
    cmp(a[i]!, a[j]!) < 0
      ? cmp(a[j]!, a[k]!) < 0
        ? j
        : cmp(a[i]!, a[k]!) < 0
          ? k
          : i
      : cmp(a[j]!, a[k]!) > 0
        ? j
        : cmp(a[i]!, a[k]!) < 0
          ? i
          : k;

  for (;;) {
    if (n < 7) {
      // Insertion sort for short runs.
      for (let m = base + 1; m < base + n; m++) {
        for (let l = m; l > base && cmp(a[l - 1]!, a[l]!) > 0; l--) swap(l, l - 1);
      }
      return;
    }
    // Pivot: the middle element, the median of three for mid-sized runs,
    // Tukey's ninther for long ones.
    let mid = base + Math.floor(n / 2);
    if (n > 7) {
      let lo = base;
      let hi = base + n - 1;
      if (n > 40) {
        const d = Math.floor(n / 8);
        lo = median3(lo, lo + d, lo + 2 * d);
        mid = median3(mid - d, mid, mid + d);
        hi = median3(hi - 2 * d, hi - d, hi);
      }
      mid = median3(lo, mid, hi);
    }
    swap(base, mid);

    // Three-way partition: elements equal to the pivot collect at both ends
    // ([base, pa) and (pd, end)), smaller ones after the left group, larger
    // ones before the right group.
    let pa = base + 1;
    let pb = pa;
    let pc = base + n - 1;
    let pd = pc;
    for (;;) {
      while (pb <= pc) {
        const r = cmp(a[pb]!, a[base]!);
        if (r > 0) break;
        if (r === 0) swap(pa++, pb);
        pb++;
      }
      while (pb <= pc) {
        const r = cmp(a[pc]!, a[base]!);
        if (r < 0) break;
        if (r === 0) swap(pc, pd--);
        pc--;
      }
      if (pb > pc) break;
      swap(pb++, pc--);
    }
    // Move the equal groups to the middle.
    const end = base + n;
    let r = Math.min(pa - base, pb - pa);
    for (let k = 0; k < r; k++) swap(base + k, pb - r + k);
    r = Math.min(pd - pc, end - pd - 1);
    for (let k = 0; k < r; k++) swap(pb + k, end - r + k);

    const leftLen = pb - pa;
    if (leftLen > 1 && overlaps(base, base + leftLen - 1, from, to)) sortRun(a, base, leftLen, cmp, from, to);
    const rightLen = pd - pc;
    if (rightLen <= 1) return;
    base = end - rightLen;
    n = rightLen;
    if (!overlaps(base, base + n - 1, from, to)) return;
  }
}

/**
 * Whether a run [start, end] may hold part of the wanted range [from, to].
 * A run is skipped only when both bounds lie before it or both after it,
 * which also decides the empty ranges (to = from - 1) LIMIT can produce.
 */
function overlaps(start: number, end: number, from: number, to: number): boolean {
  return !((from < start && to < start) || (from > end && to > end));
}
