import { cString } from '../numbers/c-string.js';
/**
 * Cursors for SCAN, HSCAN, SSCAN and ZSCAN over hash-table encoded data.
 *
 * Redis walks its hash table by a reverse-binary cursor. Here a cursor names
 * a live iterator over the collection (a JavaScript Map or Set iterates in
 * insertion order and survives insertions and deletions), which gives the
 * same guarantee: an element present for the whole scan is returned at least
 * once. The numbers are opaque, as in Redis; an unknown cursor ends the scan.
 */
export interface ScanCursorTable {
  /** Starts or resumes a scan; returns up to `count` items and the next cursor (0 when done). */
  scan<T>(cursor: bigint, target: object, start: () => Iterator<T>, count: number): { next: bigint; items: T[] };
}

interface Live {
  target: object;
  it: Iterator<unknown>;
}

/** At most this many scans in progress are remembered; the oldest are dropped. */
const MAX_LIVE_CURSORS = 4096;

export class ScanCursors implements ScanCursorTable {
  private readonly live = new Map<bigint, Live>();
  private nextId = 1n;

  scan<T>(cursor: bigint, target: object, start: () => Iterator<T>, count: number): { next: bigint; items: T[] } {
    let it: Iterator<T>;
    if (cursor === 0n) {
      it = start();
    } else {
      const entry = this.live.get(cursor);
      if (!entry || entry.target !== target) return { next: 0n, items: [] };
      this.live.delete(cursor);
      it = entry.it as Iterator<T>;
    }
    const items: T[] = [];
    for (;;) {
      if (items.length >= count) {
        const id = this.allocate();
        this.live.set(id, { target, it });
        if (this.live.size > MAX_LIVE_CURSORS) this.live.delete(this.live.keys().next().value!);
        return { next: id, items };
      }
      const r = it.next();
      if (r.done) return { next: 0n, items };
      items.push(r.value);
    }
  }

  private allocate(): bigint {
    // Spread the numbers out a little so that they look like cursors rather
    // than a counter, while staying deterministic.
    const id = (this.nextId * 2654435761n) % 18446744073709551557n;
    this.nextId++;
    return id === 0n ? this.allocate() : id;
  }

  clear(): void {
    this.live.clear();
  }
}

/**
 * Redis's parseScanCursorOrReply: strtoul semantics (a sign is allowed and
 * wraps, leading zeros are fine, the empty string is 0), no leading space,
 * nothing after the digits up to the first NUL byte (the cursor is read as
 * a C string), and at most 2^64-1. Returns null when invalid.
 */
export function parseScanCursor(s: string): bigint | null {
  if (s.length > 0 && /^[\t\n\v\f\r ]/.test(s)) return null;
  const m = /^([+-]?)(\d*)$/.exec(cString(s));
  if (!m) return null;
  if (m[2] === '') return m[1] === '' ? 0n : null;
  let v = BigInt(m[2]!);
  if (v > 18446744073709551615n) return null;
  if (m[1] === '-') v = (18446744073709551616n - v) % 18446744073709551616n;
  return v;
}
