import { describe, expect, it } from 'vitest';
import { formatFigure, listing410, table45 } from '../../../emulator/scenarios/book-figures.js';

/**
 * Redis in Action, listing 4.10 (`redis-benchmark -c 1 -q` on a 2.4 GHz Core
 * 2 Duo) and table 4.5 (a connection per command), in virtual time.
 */
describe('listing 4.10 and table 4.5', () => {
  it('every line of listing 4.10 within 15%, and a connection per command at 25-30% of it, ending in EADDRNOTAVAIL', async () => {
    const listing = listing410({ requests: 5000 });
    expect(listing.figures.length).toBe(15);
    expect(listing.figures.filter((f) => !f.ok).map(formatFigure)).toEqual([]);
    const t45 = await table45(listing.setPerSec);
    expect(t45.figures.filter((f) => !f.ok).map(formatFigure)).toEqual([]);
    expect(t45.error).toBe('Cannot assign requested address');
  }, 120_000);
});
