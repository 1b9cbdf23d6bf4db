import { VerbatimReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { RedisServer } from '../server/server.js';
import { analyzeLatency, type LatencySeries } from '../server/latency-monitor.js';
import { noSamplesError } from './latency.js';
import type { Handler } from '../server/command-table.js';

/**
 * LATENCY DOCTOR and LATENCY GRAPH: the latency samples turned into text.
 * DOCTOR follows the analysis of src/latency.c createLatencyReport (which
 * figures it reads, which advice each kind of event calls for, in which
 * order) in words of our own; GRAPH draws the samples as Redis's
 * sparklines do (src/sparkline.c), character for character.
 */

/** The advice LATENCY DOCTOR can give, in the order it gives it. */
type Advice =
  | 'better-vm'
  | 'slowlog-enable'
  | 'slowlog-tune'
  | 'slowlog-inspect'
  | 'scheduler'
  | 'local-disk'
  | 'ssd'
  | 'data-writeback'
  | 'disk-contention'
  | 'no-appendfsync-on-rewrite'
  | 'relax-fsync'
  | 'write-load'
  | 'hz'
  | 'large-objects'
  | 'mass-eviction';

const ADVICE_ORDER: readonly Advice[] = [
  'better-vm',
  'slowlog-enable',
  'slowlog-tune',
  'slowlog-inspect',
  'scheduler',
  'local-disk',
  'ssd',
  'data-writeback',
  'disk-contention',
  'no-appendfsync-on-rewrite',
  'relax-fsync',
  'write-load',
  'hz',
  'large-objects',
  'mass-eviction',
];

/** Which advice each kind of event calls for. */
const ADVICE_FOR_EVENT: Readonly<Record<string, readonly Advice[]>> = {
  'fast-command': ['scheduler'],
  'aof-write-pending-fsync': ['local-disk', 'disk-contention', 'ssd', 'data-writeback'],
  'aof-write-active-child': ['no-appendfsync-on-rewrite', 'data-writeback', 'ssd'],
  'aof-write-alone': ['local-disk', 'data-writeback', 'ssd'],
  'aof-fsync-always': ['relax-fsync'],
  'aof-fstat': ['disk-contention', 'local-disk'],
  'rdb-unlink-temp-file': ['disk-contention', 'local-disk'],
  'aof-rewrite-diff-write': ['write-load', 'data-writeback', 'ssd', 'local-disk'],
  'aof-rename': ['write-load', 'data-writeback', 'ssd', 'local-disk'],
  'expire-cycle': ['hz', 'large-objects'],
  'eviction-del': ['large-objects'],
  'eviction-cycle': ['mass-eviction'],
};

function adviceText(a: Advice, server: RedisServer): string | null {
  const threshold = server.config.getNumber('latency-monitor-threshold');
  switch (a) {
    case 'better-vm':
      return 'Forking is slow here. On a virtual machine, a hypervisor that forks faster helps (Xen is known to be slow at it); so can another kind of instance from the same provider.';
    case 'slowlog-enable':
      return `The slow log is off, so the slow commands cannot be named: turn it on with 'CONFIG SET slowlog-log-slower-than ${threshold * 1000}'.`;
    case 'slowlog-tune':
      return `The slow log only keeps commands slower than the latency threshold; to see the commands behind these spikes, use 'CONFIG SET slowlog-log-slower-than ${threshold * 1000}'.`;
    case 'slowlog-inspect':
      return 'SLOWLOG GET names the commands that took too long: look there for what to change.';
    case 'scheduler':
      return 'Even fast commands were slow: the machine does not give Redis the CPU when it needs it. Lower the load on the machine, give Redis a machine of its own, or measure its intrinsic latency with redis-cli --intrinsic-latency 100.';
    case 'local-disk':
      return 'Keep the files of persistence on a local disk: network disks are slow, above all for the append-only file.';
    case 'ssd':
      return 'Solid-state disks sync faster and shorten snapshots and rewrites; consider them once the rest is done.';
    case 'data-writeback':
      return 'An ext3/ext4 file system mounted with data=writeback writes faster than data=ordered, at the price of a possibly torn last command in the append-only file after a hard crash.';
    case 'disk-contention':
      return 'Other programs busy with the same disk (another Redis among them) slow Redis down: move them, or Redis, elsewhere.';
    case 'no-appendfsync-on-rewrite':
      return "If the data allows it, 'no-appendfsync-on-rewrite yes' skips the fsyncs while a child writes a snapshot or rewrites the append-only file, when the disk is busiest.";
    case 'relax-fsync':
      return server.config.get('appendfsync') === 'always'
        ? "appendfsync is 'always': every write waits for the disk. 'everysec' is much faster, at the risk of about a second of writes."
        : null;
    case 'write-load':
      return 'The append-only file stalled while it was renamed or caught up at the end of a rewrite: heavy write traffic does that. Fewer, larger commands help.';
    case 'hz':
      return server.config.getNumber('hz') < 100 ? "Keys expire in smaller steps with 'CONFIG SET hz 100'." : null;
    case 'large-objects':
      return 'Deleting a very large value (by DEL, expiry or eviction) holds the server until it is freed: split large values into smaller keys.';
    case 'mass-eviction':
      return 'A sudden lack of memory (maxmemory lowered, a large SORT STORE or set operation) makes Redis evict many keys at once.';
  }
}

/** "terrible", "poor", "good" or "excellent": how fast the last fork copied memory. */
function forkQuality(gbPerS: number): string {
  return gbPerS < 10 ? 'terrible' : gbPerS < 25 ? 'poor' : gbPerS < 100 ? 'good' : 'excellent';
}

/** The report LATENCY DOCTOR gives. */
export function latencyReport(server: RedisServer): string {
  const monitor = server.latency;
  const threshold = server.config.getNumber('latency-monitor-threshold');
  if (monitor.events.size === 0 && threshold === 0) {
    return "The latency monitor is off on this server. Turn it on with 'CONFIG SET latency-monitor-threshold <milliseconds>': Redis then records every event that holds it for at least that long.\n";
  }
  const nowS = server.unixSeconds();
  const advice = new Set<Advice>();
  let advices = 0;
  let out = '';
  let n = 0;
  for (const [event, ts] of monitor.events) {
    n++;
    if (n === 1) out += 'Latency spikes were recorded on this server:\n\n';
    const st = analyzeLatency(ts, nowS);
    out += `${n}. ${event}: ${st.samples} spikes, ${st.avgMs} ms on average (mean deviation ${st.madMs} ms), one every ${(st.periodS / st.samples).toFixed(2)} s; the worst ever ${ts.maxMs} ms.`;
    let calls: readonly Advice[] = ADVICE_FOR_EVENT[event.toLowerCase()] ?? [];
    if (event.toLowerCase() === 'fork') {
      const rate = server.forkRateGbPerS;
      const quality = forkQuality(rate);
      out += ` Forks copy ${rate.toFixed(2)} GB a second (${quality}).`;
      if (rate < 25) calls = ['better-vm'];
    } else if (event.toLowerCase() === 'command') {
      const slowerThan = server.config.getNumber('slowlog-log-slower-than');
      const extra: Advice[] = [];
      if (slowerThan < 0) extra.push('slowlog-enable');
      else if (Math.trunc(slowerThan / 1000) > threshold) extra.push('slowlog-tune');
      calls = [...extra, 'slowlog-inspect', 'large-objects'];
    }
    for (const a of calls) advice.add(a);
    advices += calls.length;
    out += '\n';
  }
  if (n === 0 && advices === 0) return out + 'No latency spike has been recorded since the server started (or since LATENCY RESET).\n';
  if (advices === 0) return out + '\nThese spikes have no simple remedy that the report knows of.\n';
  out += '\nWhat may help:\n\n';
  for (const a of ADVICE_ORDER) {
    if (!advice.has(a)) continue;
    const text = adviceText(a, server);
    if (text !== null) out += `- ${text}\n`;
  }
  return out;
}

function latencyDoctor(c: Client): Reply {
  return new VerbatimReply(latencyReport(c.server));
}

/** LATENCY GRAPH event: the samples as a sparkline of 80 columns and 4 rows, labelled with their age. */
function latencyGraph(c: Client, argv: string[]): Reply {
  const ts = c.server.latency.events.get(argv[2]!);
  if (ts === undefined) return noSamplesError(argv[2]!);
  return new VerbatimReply(latencyGraphText(argv[2]!, ts, c.server.unixSeconds()));
}

/** How long ago, as the graph labels it: 12s, 5m, 3h, 2d. */
function ageLabel(elapsedS: number): string {
  if (elapsedS < 60) return `${elapsedS}s`;
  if (elapsedS < 3600) return `${Math.trunc(elapsedS / 60)}m`;
  if (elapsedS < 86400) return `${Math.trunc(elapsedS / 3600)}h`;
  return `${Math.trunc(elapsedS / 86400)}d`;
}

const GRAPH_COLUMNS = 80;
const GRAPH_ROWS = 4;
/** The filled sparkline's characters, lowest first; a full cell below the top is '|'. */
const FILL = '_o#';

export function latencyGraphText(event: string, ts: LatencySeries, nowS: number): string {
  const samples = ts.inOrder().map((s) => ({ value: s.latencyMs, label: ageLabel(nowS - s.timeS) }));
  let low = 0;
  let high = 0;
  samples.forEach((s, i) => {
    if (i === 0) low = high = s.value;
    else {
      high = Math.max(high, s.value);
      low = Math.min(low, s.value);
    }
  });
  let out = `${event} - high ${high} ms, low ${low} ms (all time high ${ts.maxMs} ms)\n${'-'.repeat(GRAPH_COLUMNS)}\n`;
  for (let j = 0; j < samples.length; j += GRAPH_COLUMNS) {
    if (j !== 0) out += '\n';
    out += sparklineRows(samples, low, high, j, Math.min(GRAPH_COLUMNS, samples.length - j));
  }
  return out;
}

/**
 * One band of a sparkline (sparklineRenderRange with the fill style): the
 * value's height in steps of a third of a row, drawn bottom-up over the
 * rows, then after a blank line each sample's label written downwards.
 */
function sparklineRows(samples: ReadonlyArray<{ value: number; label: string }>, min: number, max: number, offset: number, len: number): string {
  const steps = FILL.length * GRAPH_ROWS;
  const range = max - min === 0 ? 1 : max - min;
  let out = '';
  for (let row = 0; ; row++) {
    let any = false;
    let chars = '';
    if (row < GRAPH_ROWS) {
      for (let j = 0; j < len; j++) {
        const rel = samples[j + offset]!.value - min;
        let step = Math.trunc(Math.trunc(rel * steps) / range);
        step = Math.min(Math.max(step, 0), steps - 1);
        const idx = step - (GRAPH_ROWS - row - 1) * FILL.length;
        any = true;
        chars += idx >= 0 && idx < FILL.length ? FILL[idx] : idx >= FILL.length ? '|' : ' ';
      }
    } else if (row - GRAPH_ROWS < 1) {
      // The blank line between the graph and its labels.
      any = true;
      chars = ' '.repeat(len);
    } else {
      const at = row - GRAPH_ROWS - 1;
      for (let j = 0; j < len; j++) {
        const label = samples[j + offset]!.label;
        if (label.length > at) {
          any = true;
          chars += label[at];
        } else chars += ' ';
      }
    }
    if (!any) break;
    out += chars + '\n';
  }
  return out;
}

export const latencyReportCommands: Record<string, Handler> = {
  'latency|doctor': latencyDoctor,
  'latency|graph': latencyGraph,
};
