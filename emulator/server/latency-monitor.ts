/**
 * The latency monitor (src/latency.c): for each kind of event that can
 * hold the server's thread (a slow command, a fork, an fsync the thread
 * waits for...), the latest 160 seconds that had a spike of at least
 * `latency-monitor-threshold` milliseconds, one sample per second (the
 * worst of that second), and the worst ever seen.
 */

/** Samples kept per event (LATENCY_TS_LEN). */
export const LATENCY_SAMPLES = 160;

export interface LatencySample {
  /** Unix seconds; 0 marks a slot never used. */
  timeS: number;
  latencyMs: number;
}

export class LatencySeries {
  /** The slot the next sample goes to. */
  idx = 0;
  /** The worst latency since the series began. */
  maxMs = 0;
  readonly samples: LatencySample[] = Array.from({ length: LATENCY_SAMPLES }, () => ({ timeS: 0, latencyMs: 0 }));

  /** The samples in use, oldest first. */
  inOrder(): LatencySample[] {
    const out: LatencySample[] = [];
    for (let j = 0; j < LATENCY_SAMPLES; j++) {
      const s = this.samples[(this.idx + j) % LATENCY_SAMPLES]!;
      if (s.timeS !== 0) out.push(s);
    }
    return out;
  }

  /** The most recent sample's slot (used or not). */
  get last(): LatencySample {
    return this.samples[(this.idx + LATENCY_SAMPLES - 1) % LATENCY_SAMPLES]!;
  }
}

export class LatencyMonitor {
  /** Event name to its series, in the order the events first happened. */
  readonly events = new Map<string, LatencySeries>();

  /**
   * latencyAddSampleIfNeeded: records `latencyMs` for `event` when the
   * monitor is on (threshold above 0) and the latency reaches it.
   */
  addSampleIfNeeded(event: string, latencyMs: number, thresholdMs: number, nowS: number): void {
    if (thresholdMs === 0 || latencyMs < thresholdMs) return;
    this.addSample(event, latencyMs, nowS);
  }

  /** latencyAddSample: a second keeps only its worst sample. */
  addSample(event: string, latencyMs: number, nowS: number): void {
    let ts = this.events.get(event);
    if (ts === undefined) {
      ts = new LatencySeries();
      this.events.set(event, ts);
    }
    if (latencyMs > ts.maxMs) ts.maxMs = latencyMs;
    const prev = ts.last;
    if (prev.timeS === nowS) {
      if (latencyMs > prev.latencyMs) prev.latencyMs = latencyMs;
      return;
    }
    const slot = ts.samples[ts.idx]!;
    slot.timeS = nowS;
    slot.latencyMs = latencyMs;
    ts.idx = (ts.idx + 1) % LATENCY_SAMPLES;
  }

  /** Forgets one event (by name, any case) or all of them; returns how many were forgotten. */
  reset(event?: string): number {
    let n = 0;
    for (const name of [...this.events.keys()]) {
      if (event === undefined || name.toLowerCase() === event.toLowerCase()) {
        this.events.delete(name);
        n++;
      }
    }
    return n;
  }
}

/** What LATENCY DOCTOR reads off one event's samples (analyzeLatencyForEvent). */
export interface LatencyStats {
  allTimeHighMs: number;
  avgMs: number;
  minMs: number;
  maxMs: number;
  /** Mean absolute deviation from the average. */
  madMs: number;
  samples: number;
  /** Seconds from the oldest sample to now (at least 1 when there are samples). */
  periodS: number;
}

/** Averages and deviations in whole milliseconds, as Redis's unsigned integers compute them. */
export function analyzeLatency(ts: LatencySeries | undefined, nowS: number): LatencyStats {
  const st: LatencyStats = { allTimeHighMs: ts?.maxMs ?? 0, avgMs: 0, minMs: 0, maxMs: 0, madMs: 0, samples: 0, periodS: 0 };
  if (ts === undefined) return st;
  let sum = 0;
  let oldest = 0;
  for (const s of ts.samples) {
    if (s.timeS === 0) continue;
    st.samples++;
    if (st.samples === 1) st.minMs = st.maxMs = s.latencyMs;
    else {
      st.minMs = Math.min(st.minMs, s.latencyMs);
      st.maxMs = Math.max(st.maxMs, s.latencyMs);
    }
    sum += s.latencyMs;
    if (oldest === 0 || s.timeS < oldest) oldest = s.timeS;
  }
  if (st.samples === 0) return st;
  st.avgMs = Math.floor(sum / st.samples);
  st.periodS = nowS - oldest || 1;
  let dev = 0;
  for (const s of ts.samples) if (s.timeS !== 0) dev += Math.abs(st.avgMs - s.latencyMs);
  st.madMs = Math.floor(dev / st.samples);
  return st;
}
