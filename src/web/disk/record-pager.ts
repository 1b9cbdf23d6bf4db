/**
 * Pages of a file's records (an RDB's keys, an AOF's commands), read on
 * demand: a page is read from where it starts, and where each page starts
 * is learnt either by reading the page before it or by a background scan
 * through the whole file. The scan runs in slices the caller bounds in
 * time, so a file of a million records never holds the page for long, and
 * it feeds every record to a summary as it goes.
 *
 *   const pager = new RecordPager((from) => new AofEntryReader(bytes, from), 200);
 *   pager.page(0);                                   // the first 200 entries, at once
 *   while (!pager.scan(() => performance.now() < deadline)) await nextTask();
 */
export interface RecordReader<R, S> {
  /** The next record, or null at the end. */
  next(): R | null;
  /** Where the reader stands, to start another reader there. */
  state(): S;
}

/** Records read between two looks at the caller's clock. */
const SCAN_BATCH = 64;

export class RecordPager<R, S> {
  /** Where each known page starts; null is the start of the file. */
  private readonly starts: Array<S | null> = [null];
  private scanner: RecordReader<R, S> | null = null;
  private scannedCount = 0;
  private scanFinished = false;

  constructor(
    private readonly open: (from: S | null) => RecordReader<R, S>,
    readonly pageSize: number,
    /** Called with every record the scan reads, in order, and its index. */
    private readonly onScanned?: (record: R, index: number) => void,
  ) {}

  /** Pages whose start is known: page(k) can be read for k below this. */
  get knownPages(): number {
    return this.starts.length;
  }

  /** Records the scan has read so far. */
  get scanned(): number {
    return this.scannedCount;
  }

  get scanDone(): boolean {
    return this.scanFinished;
  }

  /** The number of pages, once the scan has read the whole file; null before. */
  get totalPages(): number | null {
    return this.scanFinished ? Math.max(1, Math.ceil(this.scannedCount / this.pageSize)) : null;
  }

  /** The records of page k, or null when where it starts is not known yet. */
  page(k: number): R[] | null {
    if (k < 0 || k >= this.starts.length) return null;
    const reader = this.open(this.starts[k]!);
    const out: R[] = [];
    while (out.length < this.pageSize) {
      const r = reader.next();
      if (r === null) return out;
      out.push(r);
    }
    if (this.starts.length === k + 1) this.starts.push(reader.state());
    return out;
  }

  /**
   * Reads on through the file while `more()` says so; returns whether the
   * whole file has been read.
   */
  scan(more: () => boolean): boolean {
    const reader = (this.scanner ??= this.open(null));
    while (!this.scanFinished && more()) {
      for (let i = 0; i < SCAN_BATCH; i++) {
        const r = reader.next();
        if (r === null) {
          this.scanFinished = true;
          break;
        }
        this.onScanned?.(r, this.scannedCount);
        this.scannedCount++;
        if (this.scannedCount % this.pageSize === 0 && this.starts.length === this.scannedCount / this.pageSize) this.starts.push(reader.state());
      }
    }
    return this.scanFinished;
  }
}
