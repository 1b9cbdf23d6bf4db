import { compareReplies } from './compare.js';
import type { Backend } from './backends.js';
import type { Step } from './script.js';

export interface Mismatch {
  line: number;
  text: string;
  real: string;
  emulator: string;
  why: string;
}

/** Runs the steps against both backends in lockstep and collects disagreements. */
export async function runDifferential(steps: Step[], real: Backend, emu: Backend): Promise<Mismatch[]> {
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

/** A readable report of mismatches. */
export function formatMismatches(file: string, ms: Mismatch[]): string {
  return ms
    .map((m) => `${file}:${m.line}: ${m.text}\n  ${m.why}\n  real:     ${JSON.stringify(m.real)}\n  emulator: ${JSON.stringify(m.emulator)}`)
    .join('\n');
}
