/**
 * Where a benchmark's time goes: V8 CPU profiles (the format of Node's
 * `--cpu-prof` and of the inspector's Profiler domain) reduced to the few
 * functions with the most self time, for the rows that fall short of their
 * goal. A profile is taken in a separate run after the measured ones, so the
 * figures themselves are never taken under the profiler.
 */
import { Session } from 'node:inspector';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

/** V8's names for samples outside any JavaScript function. */
const IDLE = '(idle)';

/** The file a function is in (its line is left out: under tsx or in a bundle it is not the source's). */
function shortPlace(url: string): string {
  if (url === '') return '';
  return url.replace(/^file:\/\//, '').split('/').pop() ?? url;
}

export interface Frame {
  name: string;
  /** The function's file, '' for V8's own entries (GC, program). */
  place: string;
  /** Share of the busy samples (idle ones left out), 0..1. */
  share: number;
}

/**
 * The functions with the most self time, as shares of the busy samples.
 * Samples of the same function (name and place) under different callers are
 * added up, as a profiler's bottom-up view does.
 */
export function topFrames(profile: CpuProfile, n = 6): { frames: Frame[]; busy: number; idle: number } {
  const hits = new Map<number, number>();
  if (profile.samples && profile.samples.length > 0) {
    for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  } else {
    for (const node of profile.nodes) if (node.hitCount) hits.set(node.id, node.hitCount);
  }
  const byFunction = new Map<string, { name: string; place: string; hits: number }>();
  let busy = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const h = hits.get(node.id) ?? 0;
    if (h === 0) continue;
    const { functionName, url } = node.callFrame;
    if (functionName === IDLE) {
      idle += h;
      continue;
    }
    busy += h;
    const name = functionName === '' ? '(anonymous)' : functionName;
    const place = shortPlace(url);
    const key = `${name}\0${place}`;
    const entry = byFunction.get(key);
    if (entry) entry.hits += h;
    else byFunction.set(key, { name, place, hits: h });
  }
  const frames = [...byFunction.values()]
    .sort((a, b) => b.hits - a.hits)
    .slice(0, n)
    .map((f) => ({ name: f.name, place: f.place, share: busy === 0 ? 0 : f.hits / busy }));
  return { frames, busy, idle };
}

/** One line: "12.3% writeLatin1String · 8.1% (garbage collector) · 5.0% call (dispatch.ts:40) ...". */
export function describeFrames(profile: CpuProfile, n = 6): string {
  const { frames, busy, idle } = topFrames(profile, n);
  if (busy === 0) return 'no busy samples in the profile';
  const parts = frames.map((f) => `${(f.share * 100).toFixed(1)}% ${f.name}${f.place ? ` (${f.place})` : ''}`);
  const idleShare = idle / (busy + idle);
  return `${parts.join(' · ')}${idleShare >= 0.05 ? `; idle ${(idleShare * 100).toFixed(0)}% of the samples` : ''}`;
}

/** A Profiler domain's way in: the inspector's session in this process, or a browser page's CDP session. */
export type ProfilerSend = (method: string, params?: object) => Promise<unknown>;

/** Starts the sampling profiler, a sample every `intervalUs` microseconds. */
export async function startProfiler(send: ProfilerSend, intervalUs: number): Promise<void> {
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: intervalUs });
  await send('Profiler.start');
}

/** Stops the profiler and returns what it sampled. */
export async function stopProfiler(send: ProfilerSend): Promise<CpuProfile> {
  return ((await send('Profiler.stop')) as { profile: CpuProfile }).profile;
}

/** Runs `fn` in this process under V8's sampling profiler (every 0.2 ms) and returns its profile with its value. */
export async function profiled<T>(fn: () => T | Promise<T>): Promise<{ value: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  const send: ProfilerSend = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  try {
    await startProfiler(send, 200);
    let value: T;
    try {
      value = await fn();
    } catch (e) {
      await stopProfiler(send);
      throw e;
    }
    return { value, profile: await stopProfiler(send) };
  } finally {
    session.disconnect();
  }
}

/** The profile a process started with `--cpu-prof --cpu-prof-dir=<dir>` wrote there at its exit. */
export function readProfileDir(dir: string): CpuProfile {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no .cpuprofile written in ${dir}`);
  return JSON.parse(readFileSync(join(dir, files.sort().at(-1)!), 'utf8')) as CpuProfile;
}
