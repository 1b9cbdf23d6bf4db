import { f32, formatFixed, spaces } from './c-format.js';
import { linearRows, percentileRows, type DistributionRow, type LatencyHistogram } from '../numbers/latency-histogram.js';

/**
 * What redis-benchmark 7.0.15 prints after each test, in its three forms
 * (src/redis-benchmark.c showLatencyReport), and its progress line. The
 * figures go through the same C `float` arithmetic as the tool's, so the
 * digits printed are the ones it would print for the same latencies.
 */

/** The figures of one finished test, as the tool computes them. */
export interface TestFigures {
  /** Requests per second: replies counted over the test's whole milliseconds. */
  rps: number;
  /** Seconds as printed ("completed in %.2f seconds"). */
  seconds: number;
  avgMs: number;
  minMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** `hdr value / 1000.0f`: the value to a float, divided as floats. */
function ms(us: number): number {
  return f32(f32(us) / 1000);
}

export function testFigures(h: LatencyHistogram, finished: number, totalMs: number): TestFigures {
  return {
    rps: f32(f32(finished) / f32(f32(totalMs) / 1000)),
    seconds: f32(f32(totalMs) / 1000),
    avgMs: f32(h.mean() / 1000),
    minMs: ms(h.min()),
    p50Ms: ms(h.valueAtPercentile(50)),
    p95Ms: ms(h.valueAtPercentile(95)),
    p99Ms: ms(h.valueAtPercentile(99)),
    maxMs: ms(h.max()),
  };
}

/** The host's persistence settings fetched with CONFIG GET before the tests. */
export interface HostConfig {
  save: string;
  appendonly: string;
}

export interface ReportHeader {
  title: string;
  finished: number;
  clients: number;
  dataSize: number;
  keepAlive: number;
  hostConfig: HostConfig | null;
  threads: number;
}

function rowLine(r: DistributionRow): string {
  return `${formatFixed(r.percentile, 3, 3)}% <= ${formatFixed(ms(r.value), 3)} milliseconds (cumulative count ${r.cumulative})\n`;
}

/** Rows of a distribution, leaving out those that add nothing (same count), but always the last. */
function rowLines(rows: DistributionRow[], total: number): string {
  let out = '';
  let previous = -1;
  for (const r of rows) {
    if (r.cumulative !== previous || r.cumulative === total) out += rowLine(r);
    previous = r.cumulative;
  }
  return out;
}

/** The full report ("====== SET ======" ... "Summary:"), after `pad` clears the progress line. */
export function fullReport(pad: number, head: ReportHeader, h: LatencyHistogram, f: TestFigures): string {
  let out = `${spaces(pad)}\r====== ${head.title} ======\n`;
  out += `  ${head.finished} requests completed in ${formatFixed(f.seconds, 2)} seconds\n`;
  out += `  ${head.clients} parallel clients\n`;
  out += `  ${head.dataSize} bytes payload\n`;
  out += `  keep alive: ${head.keepAlive}\n`;
  if (head.hostConfig !== null) {
    out += `  host configuration "save": ${head.hostConfig.save}\n`;
    out += `  host configuration "appendonly": ${head.hostConfig.appendonly}\n`;
  }
  out += `  multi-thread: ${head.threads > 0 ? 'yes' : 'no'}\n`;
  if (head.threads > 0) out += `  threads: ${head.threads}\n`;
  out += '\nLatency by percentile distribution:\n';
  out += rowLines(percentileRows(h), h.totalCount);
  out += '\nCumulative distribution of latencies:\n';
  out += rowLines(linearRows(h), h.totalCount);
  out += '\nSummary:\n';
  out += `  throughput summary: ${formatFixed(f.rps, 2)} requests per second\n`;
  out += '  latency summary (msec):\n';
  out += '    ' + ['avg', 'min', 'p50', 'p95', 'p99', 'max'].map((s) => s.padStart(9)).join(' ') + '\n';
  const cols = [f.avgMs, f.minMs, f.p50Ms, f.p95Ms, f.p99Ms, f.maxMs];
  out += '    ' + cols.map((v) => formatFixed(v, 3, 9)).join(' ') + '\n';
  return out;
}

/** The -q line. */
export function quietLine(pad: number, title: string, f: TestFigures): string {
  return `${spaces(pad)}\r${title}: ${formatFixed(f.rps, 2)} requests per second, p50=${formatFixed(f.p50Ms, 3)} msec\n`;
}

export const CSV_HEADER =
  '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"\n';

/** One --csv row. */
export function csvRow(title: string, f: TestFigures): string {
  const cols = [f.avgMs, f.minMs, f.p50Ms, f.p95Ms, f.p99Ms, f.maxMs].map((v) => `"${formatFixed(v, 3)}"`);
  return `"${title}","${formatFixed(f.rps, 2)}",${cols.join(',')}\n`;
}

/** The state the progress line keeps between prints. */
export interface ProgressState {
  /** Milliseconds of the previous print; 0 before the first, as in the tool. */
  previousTickMs: number;
  /** Replies counted at the previous print of this test. */
  previousFinished: number;
  /** Length of the previous progress line, which the next output overwrites. */
  lastPrintedBytes: number;
}

/**
 * The line the tool rewrites in place every 250 ms while a test runs (also
 * when its output is not a terminal), ending in a carriage return.
 * `recentMeanUs` is the mean latency since the previous print (NaN when
 * none), `overallMeanUs` since the test began.
 */
export function progressLine(
  title: string,
  nowMs: number,
  startMs: number,
  finished: number,
  recentMeanUs: number,
  overallMeanUs: number,
  state: ProgressState,
): string {
  const dt = f32(f32(nowMs - startMs) / 1000);
  const rps = f32(f32(finished) / dt);
  const instantDt = f32(f32(nowMs - state.previousTickMs) / 1000);
  const instantRps = f32(f32(finished - state.previousFinished) / instantDt);
  state.previousTickMs = nowMs;
  state.previousFinished = finished;
  const line =
    `${title}: rps=${formatFixed(instantRps, 1)} (overall: ${formatFixed(rps, 1)}) ` +
    `avg_msec=${formatFixed(recentMeanUs / 1000, 3)} (overall: ${formatFixed(overallMeanUs / 1000, 3)})\r`;
  const out = `${spaces(state.lastPrintedBytes)}\r${line}`;
  state.lastPrintedBytes = line.length;
  return out;
}
