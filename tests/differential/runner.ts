import { compareReplies } from './compare.js';
import type { Backend } from './backends.js';
import type { Step } from './script.js';

export interface Mismatch {
  /** Which emulator disagreed, when several run beside the real server. */
  backend?: string;
  line: number;
  text: string;
  real: string;
  emulator: string;
  why: string;
}

/**
 * Runs the steps against the real server and one or more emulator backends
 * in lockstep; each emulator's replies are compared with the real ones.
 */
export async function runDifferential(steps: Step[], real: Backend, emu: Backend | Record<string, Backend>): Promise<Mismatch[]> {
  if (!isBackend(emu)) return runMany(steps, real, emu);
  const out: Mismatch[] = [];
  for (const step of steps) {
    if (step.kind === 'sleep') {
      await Promise.all([real.sleep(step.ms), emu.sleep(step.ms)]);
      continue;
    }
    if (step.kind === 'raw') {
      const [a, b] = await Promise.all([real.raw(step.client, step.bytes), emu.raw(step.client, step.bytes)]);
      if (a.bytes !== b.bytes || a.closed !== b.closed) {
        out.push({
          line: step.line,
          text: step.text,
          real: JSON.stringify(a),
          emulator: JSON.stringify(b),
          why: a.closed !== b.closed ? 'connection state differs' : 'bytes differ',
        });
      }
      continue;
    }
    if (step.kind === 'drain') {
      const [a, b] = await Promise.all([real.drain(step.client), emu.drain(step.client)]);
      if (a !== b) out.push({ line: step.line, text: step.text, real: a, emulator: b, why: 'received bytes differ' });
      continue;
    }
    if (step.kind === 'reply') {
      const [a, b] = await Promise.all([real.nextReply(step.client), emu.nextReply(step.client)]);
      const why = compareReplies(a, b, step.compare);
      if (why) out.push({ line: step.line, text: step.text, real: a, emulator: b, why });
      continue;
    }
    if (step.async) {
      await real.send(step.client, step.argv);
      await emu.send(step.client, step.argv);
      continue;
    }
    const a = await real.command(step.client, step.argv);
    const b = await emu.command(step.client, step.argv);
    const why = compareReplies(a, b, step.compare);
    if (why) out.push({ line: step.line, text: step.text, real: a, emulator: b, why });
  }
  return out;
}

function isBackend(x: Backend | Record<string, Backend>): x is Backend {
  return typeof (x as Backend).command === 'function';
}

/** One real server, several emulators: the real reply of each step is compared with each. */
async function runMany(steps: Step[], real: Backend, emus: Record<string, Backend>): Promise<Mismatch[]> {
  const names = Object.keys(emus);
  const tee: Backend = {
    command: (c, argv) => real.command(c, argv),
    send: (c, argv) => real.send(c, argv),
    nextReply: (c) => real.nextReply(c),
    drain: (c) => real.drain(c),
    raw: (c, b) => real.raw(c, b),
    sleep: (ms) => real.sleep(ms),
    close: () => real.close(),
  };
  // Record the real side's answers once, then replay them against each emulator.
  const answers: unknown[] = [];
  const recorder: Backend = {
    command: async (c, argv) => record(await tee.command(c, argv)),
    send: async (c, argv) => record(await tee.send(c, argv)),
    nextReply: async (c) => record(await tee.nextReply(c)),
    drain: async (c) => record(await tee.drain(c)),
    raw: async (c, b) => record(await tee.raw(c, b)),
    sleep: async (ms) => record(await tee.sleep(ms)),
    close: async () => {},
  };
  function record<T>(v: T): T {
    answers.push(v);
    return v;
  }
  const out: Mismatch[] = [];
  const first = await runDifferential(steps, recorder, emus[names[0]!]!);
  for (const m of first) out.push({ ...m, backend: names[0] });
  for (const name of names.slice(1)) {
    let i = 0;
    const next = async <T>(): Promise<T> => answers[i++] as T;
    const replay: Backend = {
      command: () => next(),
      send: () => next(),
      nextReply: () => next(),
      drain: () => next(),
      raw: () => next(),
      sleep: () => next(),
      close: async () => {},
    };
    for (const m of await runDifferential(steps, replay, emus[name]!)) out.push({ ...m, backend: name });
  }
  return out;
}

/**
 * Runs the steps on the real side and on every emulator backend at the same
 * time, step by step, comparing each emulator's answer with the real one:
 * for backends whose time goes to waiting on servers (real processes, the
 * emulator over TCP), the run takes as long as the slowest, not the sum.
 */
export async function runSideBySide(steps: Step[], real: Backend, emus: Record<string, Backend>): Promise<Mismatch[]> {
  const names = Object.keys(emus);
  const all = [real, ...names.map((n) => emus[n]!)];
  const out: Mismatch[] = [];
  const each = async <T>(f: (b: Backend) => Promise<T>, differ: (a: T, b: T) => string | null, step: Step, show: (x: T) => string): Promise<void> => {
    const [a, ...rest] = await Promise.all(all.map(f));
    rest.forEach((b, i) => {
      const why = differ(a!, b);
      if (why) out.push({ backend: names[i], line: step.line, text: step.text, real: show(a!), emulator: show(b), why });
    });
  };
  for (const step of steps) {
    if (step.kind === 'sleep') await Promise.all(all.map((b) => b.sleep(step.ms)));
    else if (step.kind === 'raw') {
      const differ = (a: { bytes: string; closed: boolean }, b: { bytes: string; closed: boolean }): string | null =>
        a.closed !== b.closed ? 'connection state differs' : a.bytes !== b.bytes ? 'bytes differ' : null;
      await each((b) => b.raw(step.client, step.bytes), differ, step, (x) => JSON.stringify(x));
    } else if (step.kind === 'drain') {
      await each((b) => b.drain(step.client), (a, b) => (a === b ? null : 'received bytes differ'), step, (x) => x);
    } else if (step.kind === 'reply') {
      await each((b) => b.nextReply(step.client), (a, b) => compareReplies(a, b, step.compare), step, (x) => x);
    } else if (step.async) await Promise.all(all.map((b) => b.send(step.client, step.argv)));
    else await each((b) => b.command(step.client, step.argv), (a, b) => compareReplies(a, b, step.compare), step, (x) => x);
  }
  return out;
}

/** A readable report of mismatches. */
export function formatMismatches(file: string, ms: Mismatch[]): string {
  return ms
    .map((m) => `${file}:${m.line}${m.backend ? ` [${m.backend}]` : ''}: ${m.text}\n  ${m.why}\n  real:     ${JSON.stringify(m.real)}\n  emulator: ${JSON.stringify(m.emulator)}`)
    .join('\n');
}
