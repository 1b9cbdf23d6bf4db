/**
 * A chart a cell asks for by reporting it: report(name, spec) with a value
 * of this shape is drawn as grouped bars, each group a category and each
 * series one bar per group, beside a table of the same numbers.
 *
 *   report('table 4.4', {
 *     chart: 'bars', title: 'Calls per second', unit: 'calls/s', log: true,
 *     groups: ['Unix socket', 'localhost'],
 *     series: [
 *       { label: 'book, plain', values: [3761, 3257], reference: true },
 *       { label: 'yours, plain', values: [4255, 3773] },
 *     ],
 *   });
 *
 * `reference` series (the book's figures) are drawn in muted colours.
 */
export interface BarChart {
  readonly title: string;
  readonly unit: string;
  readonly log: boolean;
  readonly groups: readonly string[];
  readonly series: readonly BarSeries[];
}

export interface BarSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  readonly reference: boolean;
}

const MAX_GROUPS = 50;
const MAX_SERIES = 12;

/** The chart a report's value describes, or null when it is not one. */
export function parseBarChart(v: unknown): BarChart | null {
  if (!isRecord(v) || v.chart !== 'bars') return null;
  const groups = v.groups;
  const series = v.series;
  if (!Array.isArray(groups) || groups.length === 0 || groups.length > MAX_GROUPS) return null;
  if (!Array.isArray(series) || series.length === 0 || series.length > MAX_SERIES) return null;
  const out: BarSeries[] = [];
  for (const s of series as unknown[]) {
    if (!isRecord(s) || !Array.isArray(s.values)) return null;
    const values = groups.map((_, i) => {
      const x = (s.values as unknown[])[i];
      return typeof x === 'number' && Number.isFinite(x) ? x : null;
    });
    out.push({ label: text(s.label, `series ${out.length + 1}`), values, reference: s.reference === true });
  }
  return {
    title: text(v.title, ''),
    unit: text(v.unit, ''),
    log: v.log === true,
    groups: groups.map((g, i) => text(g, `group ${i + 1}`)),
    series: out,
  };
}

function text(x: unknown, fallback: string): string {
  return typeof x === 'string' && x.length > 0 ? x.slice(0, 200) : fallback;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A number as the table shows it: three significant digits at least, thousands grouped. */
export function formatFigure(x: number | null): string {
  if (x === null) return '–';
  const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2;
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
