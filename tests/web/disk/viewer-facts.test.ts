import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatCount } from '../../../src/web/disk/disk-view.js';
import { RdbSummary } from '../../../src/web/disk/file-summaries.js';
import { RdbFacts } from '../../../src/web/disk/rdb-view.js';

describe("the file viewer's figures", () => {
  afterEach(() => vi.restoreAllMocks());

  it('group thousands as the English number format does', () => {
    const counts = [0, 7, 42, 999, 1000, 1001, 65535, 999999, 1000000, 1234567, 24777878, 2 ** 31, Number.MAX_SAFE_INTEGER, -1, -1234567];
    // Numbers of every length from 1 to 16 digits, from a fixed sequence.
    let x = 20261127;
    for (let i = 0; i < 200; i++) {
      x = (x * 48271) % 2147483647;
      counts.push(Math.floor((x / 2147483647) * 10 ** (i % 16)));
    }
    for (const n of counts) expect(formatCount(n), String(n)).toBe(n.toLocaleString('en'));
  });

  it("are written without the browser's number formatting, whose first use loads its locale's data in one long task", () => {
    const summary = new RdbSummary();
    summary.version = 10;
    summary.keys = 1_000_000;
    summary.dbs.set(0, { keys: 1_000_000, expires: 12_345 });
    summary.types.set('string', 1_000_000);
    const formatted = vi.spyOn(Number.prototype, 'toLocaleString');
    const html = renderToStaticMarkup(createElement(RdbFacts, { summary, size: 24_777_878, done: false }));
    expect(formatted).not.toHaveBeenCalled();
    expect(html).toContain('1,000,000 keys in db0: 1,000,000 (12,345 with TTL)');
    expect(html).toContain('string 1,000,000');
  });
});
