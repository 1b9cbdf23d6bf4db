import { describe, expect, it } from 'vitest';
import { LatencyHistogram, linearRows, logRows, percentileRows } from '../../../emulator/numbers/latency-histogram.js';
import { fullReport, testFigures } from '../../../emulator/programs/benchmark-report.js';

/** redis-benchmark's histogram: 10 us .. 3 s, with `precision` significant figures. */
function histogram(values: number[], precision = 3): LatencyHistogram {
  const h = new LatencyHistogram(10, 3_000_000, precision);
  for (const v of values) h.record(Math.min(v, 3_000_000));
  return h;
}

/** A fixed spread of latencies with a few spikes and one beyond the 3 s cap. */
function spread(): number[] {
  const v: number[] = [];
  for (let i = 0; i < 1000; i++) {
    let x = 20 + Math.floor((((i * 7919) % 997) * ((i % 7) + 1)) / 3);
    if (i % 97 === 0) x = 2500 + i * 13;
    if (i === 500) x = 4_000_000;
    v.push(x);
  }
  return v;
}

/** The distribution and summary lines of a report, without the header. */
function sections(h: LatencyHistogram): string {
  const report = fullReport(0, { title: 'T', finished: h.totalCount, clients: 1, dataSize: 3, keepAlive: 1, hostConfig: null, threads: 0 }, h, testFigures(h, h.totalCount, 1000));
  const lines = report.split('\n');
  const from = lines.indexOf('Latency by percentile distribution:');
  return [...lines.slice(from, lines.indexOf('Summary:')), lines[lines.length - 2]!].join('\n');
}

describe('latency histogram', () => {
  it('buckets like HdrHistogram with 3 significant figures from 10 us', () => {
    const h = new LatencyHistogram(10, 3_000_000, 3);
    // Below 16384 us values are counted in steps of 8 us.
    expect(h.countsLen).toBe(10240);
    expect([h.lowestEquivalent(31), h.highestEquivalent(31)]).toEqual([24, 31]);
    expect([h.lowestEquivalent(16384), h.highestEquivalent(16384)]).toEqual([16384, 16399]);
    expect(h.highestEquivalent(3_000_000)).toBe(3_000_319);
    expect(h.medianEquivalent(100)).toBe(100);
  });

  it('answers percentiles with the bound of the bucket they fall in', () => {
    const h = histogram([31, 29, 45, 100, 2500, 5000, 17000, 33, 33, 33]);
    expect(h.valueAtPercentile(50)).toBe(39);
    expect(h.valueAtPercentile(0)).toBe(24);
    expect(h.min()).toBe(24);
    expect(h.max()).toBe(17007);
  });

  // Expected text printed by the real deps/hdr_histogram compiled with the
  // same iteration and printing as redis-benchmark's showLatencyReport.
  it('prints the rows the real library prints for a small set', () => {
    expect(sections(histogram([31, 29, 45, 100, 2500, 5000, 17000, 33, 33, 33]))).toBe(
      [
        'Latency by percentile distribution:',
        '0.000% <= 0.031 milliseconds (cumulative count 2)',
        '50.000% <= 0.039 milliseconds (cumulative count 5)',
        '75.000% <= 2.503 milliseconds (cumulative count 8)',
        '87.500% <= 5.007 milliseconds (cumulative count 9)',
        '93.750% <= 17.007 milliseconds (cumulative count 10)',
        '100.000% <= 17.007 milliseconds (cumulative count 10)',
        '',
        'Cumulative distribution of latencies:',
        '70.000% <= 0.103 milliseconds (cumulative count 7)',
        '80.000% <= 3.103 milliseconds (cumulative count 8)',
        '90.000% <= 5.103 milliseconds (cumulative count 9)',
        '100.000% <= 17.103 milliseconds (cumulative count 10)',
        '',
        '        2.481     0.024     0.039    17.007    17.007    17.007',
      ].join('\n'),
    );
  });

  it('prints the rows the real library prints for a wide spread, including its doubled last row', () => {
    expect(sections(histogram(spread()))).toBe(
      [
        'Latency by percentile distribution:',
        '0.000% <= 0.023 milliseconds (cumulative count 3)',
        '50.000% <= 0.575 milliseconds (cumulative count 507)',
        '75.000% <= 1.023 milliseconds (cumulative count 754)',
        '87.500% <= 1.447 milliseconds (cumulative count 875)',
        '93.750% <= 1.799 milliseconds (cumulative count 939)',
        '96.875% <= 1.975 milliseconds (cumulative count 972)',
        '98.438% <= 2.007 milliseconds (cumulative count 985)',
        '99.219% <= 7.551 milliseconds (cumulative count 993)',
        '99.609% <= 12.591 milliseconds (cumulative count 997)',
        '99.805% <= 15.111 milliseconds (cumulative count 999)',
        '99.902% <= 3000.319 milliseconds (cumulative count 1000)',
        '100.000% <= 3000.319 milliseconds (cumulative count 1000)',
        '',
        'Cumulative distribution of latencies:',
        '10.300% <= 0.103 milliseconds (cumulative count 103)',
        '17.800% <= 0.207 milliseconds (cumulative count 178)',
        '35.000% <= 0.303 milliseconds (cumulative count 350)',
        '42.300% <= 0.407 milliseconds (cumulative count 423)',
        '46.300% <= 0.503 milliseconds (cumulative count 463)',
        '55.100% <= 0.607 milliseconds (cumulative count 551)',
        '65.000% <= 0.703 milliseconds (cumulative count 650)',
        '70.700% <= 0.903 milliseconds (cumulative count 707)',
        '74.300% <= 1.007 milliseconds (cumulative count 743)',
        '80.400% <= 1.103 milliseconds (cumulative count 804)',
        '81.700% <= 1.207 milliseconds (cumulative count 817)',
        '84.600% <= 1.303 milliseconds (cumulative count 846)',
        '85.600% <= 1.407 milliseconds (cumulative count 856)',
        '88.300% <= 1.503 milliseconds (cumulative count 883)',
        '91.600% <= 1.607 milliseconds (cumulative count 916)',
        '93.200% <= 1.703 milliseconds (cumulative count 932)',
        '94.300% <= 1.807 milliseconds (cumulative count 943)',
        '96.000% <= 1.903 milliseconds (cumulative count 960)',
        '98.500% <= 2.007 milliseconds (cumulative count 985)',
        '98.800% <= 2.103 milliseconds (cumulative count 988)',
        '98.900% <= 3.103 milliseconds (cumulative count 989)',
        '99.000% <= 4.103 milliseconds (cumulative count 990)',
        '99.100% <= 5.103 milliseconds (cumulative count 991)',
        '99.200% <= 7.103 milliseconds (cumulative count 992)',
        '99.300% <= 8.103 milliseconds (cumulative count 993)',
        '99.400% <= 9.103 milliseconds (cumulative count 994)',
        '99.500% <= 10.103 milliseconds (cumulative count 995)',
        '99.600% <= 12.103 milliseconds (cumulative count 996)',
        '99.700% <= 13.103 milliseconds (cumulative count 997)',
        '99.800% <= 14.103 milliseconds (cumulative count 998)',
        '99.900% <= 16.103 milliseconds (cumulative count 999)',
        '100.000% <= 3000.319 milliseconds (cumulative count 1000)',
        '100.000% <= 3000.319 milliseconds (cumulative count 1000)',
        '',
        '        3.754     0.016     0.575     1.823     3.767  3000.319',
      ].join('\n'),
    );
  });

  it('--precision 1 keeps one significant figure', () => {
    // The real library's summary for the same spread at 1 significant figure.
    const lines = sections(histogram(spread(), 1)).split('\n');
    expect(lines[lines.length - 1]).toBe('        3.705     0.016     0.575     1.855     3.839  3014.655');
  });

  it('an empty histogram walks to a single 100% row', () => {
    const h = histogram([]);
    expect(percentileRows(h)).toEqual([{ percentile: 100, value: 0, cumulative: 0 }]);
    expect(linearRows(h)).toEqual([]);
    expect(Number.isNaN(h.mean())).toBe(true);
    expect(h.valueAtPercentile(50)).toBe(7);
  });
});

describe('logarithmic rows (LATENCY HISTOGRAM buckets)', () => {
  it('reports powers of two from 1024 ns at the highest value of the slot holding each level', () => {
    // Redis's command histograms: 1 ns to 1 s, two significant digits.
    const h = new LatencyHistogram(1, 1_000_000_000, 2);
    for (const ns of [900, 1000, 3000, 3000, 50_000]) h.record(ns);
    const growing = logRows(h, 1024, 2).filter((r, i, all) => r.cumulative > (i === 0 ? 0 : all[i - 1]!.cumulative));
    expect(growing.map((r) => [Math.floor(r.value / 1000), r.cumulative])).toEqual([
      [1, 2],
      [4, 4],
      [66, 5],
    ]);
  });

  it('has no rows for an empty histogram', () => {
    expect(logRows(new LatencyHistogram(1, 1_000_000_000, 2), 1024, 2)).toEqual([]);
  });
});
