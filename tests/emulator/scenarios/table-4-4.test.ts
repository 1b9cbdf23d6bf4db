import { describe, expect, it } from 'vitest';
import { formatFigure, table44 } from '../../../emulator/scenarios/book-figures.js';

/**
 * Redis in Action, table 4.4, reproduced in virtual time: the network-bound
 * rows within 15% of the book, the pipelined-to-plain ratio within 25% on
 * every row. Deterministic: no wall clock is involved.
 */
describe('table 4.4: update_token with and without a pipeline', () => {
  it('every figure is within its tolerance', async () => {
    const figures = await table44({ durationS: (row) => (row === 'vpn' ? 30 : 1) });
    expect(figures.length).toBe(12);
    const bad = figures.filter((f) => !f.ok).map(formatFigure);
    expect(bad).toEqual([]);
  }, 60_000);
});
