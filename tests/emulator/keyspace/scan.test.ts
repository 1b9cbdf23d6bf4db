import { describe, expect, it } from 'vitest';
import { ScanCursors, parseScanCursor } from '../../../emulator/keyspace/scan.js';

describe('parseScanCursor (strtoul)', () => {
  it('accepts what strtoul accepts in full', () => {
    expect(parseScanCursor('0')).toBe(0n);
    expect(parseScanCursor('')).toBe(0n);
    expect(parseScanCursor('007')).toBe(7n);
    expect(parseScanCursor('+5')).toBe(5n);
    expect(parseScanCursor('-0')).toBe(0n);
    expect(parseScanCursor('-1')).toBe(18446744073709551615n);
    expect(parseScanCursor('18446744073709551615')).toBe(18446744073709551615n);
    expect(parseScanCursor('12\x00junk')).toBe(12n);
  });

  it('refuses spaces, signs alone, junk and overflow', () => {
    for (const bad of [' 0', '\t0', '0 ', '+', '-', 'abc', '0x10', '1.5', '18446744073709551616', '-18446744073709551616']) {
      expect(parseScanCursor(bad)).toBeNull();
    }
  });
});

describe('ScanCursors', () => {
  it('returns every element present for the whole scan, with cursor 0 at the end', () => {
    const cursors = new ScanCursors();
    const m = new Map<string, number>();
    for (let i = 0; i < 100; i++) m.set(`k${i}`, i);
    const seen = new Set<string>();
    let cursor = 0n;
    let calls = 0;
    do {
      const r = cursors.scan(cursor, m, () => m.keys(), 7);
      for (const k of r.items) seen.add(k);
      // Changes during the scan: deletes of seen keys, inserts of new ones.
      if (calls === 3) {
        m.delete('k0');
        m.set('new', 0);
      }
      cursor = r.next;
      calls++;
    } while (cursor !== 0n && calls < 1000);
    for (let i = 1; i < 100; i++) expect(seen.has(`k${i}`)).toBe(true);
    expect(calls).toBeLessThan(20);
  });

  it('an unknown cursor, or one for another collection, ends the scan', () => {
    const cursors = new ScanCursors();
    const a = new Map([['x', 1], ['y', 2]]);
    const b = new Map([['z', 1]]);
    expect(cursors.scan(12345n, a, () => a.keys(), 10)).toEqual({ next: 0n, items: [] });
    const r = cursors.scan(0n, a, () => a.keys(), 1);
    expect(r.items).toEqual(['x']);
    expect(cursors.scan(r.next, b, () => b.keys(), 10)).toEqual({ next: 0n, items: [] });
  });

  it('a scan that fits in COUNT finishes in one call', () => {
    const cursors = new ScanCursors();
    const s = new Set(['a', 'b', 'c']);
    expect(cursors.scan(0n, s, () => s.values(), 10)).toEqual({ next: 0n, items: ['a', 'b', 'c'] });
  });
});
