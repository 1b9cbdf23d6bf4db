/**
 * The house rule that keeps the emulator deterministic: nothing inside
 * emulator/ reaches for the wall clock, global randomness, timers, the DOM
 * or Node. Time comes from emulator/sim's Clock, randomness from its Random.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../../emulator');

const BANNED: Array<[RegExp, string]> = [
  [/\bDate\.now\b/, 'use the simulated Clock (emulator/sim/clock.ts)'],
  [/\bnew Date\(/, 'use the simulated Clock (emulator/sim/clock.ts)'],
  [/\bMath\.random\b/, 'use the seeded Random (emulator/sim/random.ts)'],
  [/\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b|\bqueueMicrotask\b/, 'schedule on the simulated clock'],
  [/\bperformance\.now\b/, 'use the simulated Clock'],
  [/(^|[^.\w])(window|document)\./, 'no DOM in emulator/'],
  [/(^|[^.\w/-])process\./, 'no Node in emulator/'],
  [/\brequire\(/, 'no Node in emulator/'],
  [/from ['"](node:|fs|net|path|os|crypto|child_process|react|@xterm)/, 'no Node or UI imports in emulator/'],
  [/from ['"][./]*\/src\//, 'emulator/ must not import from src/'],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.ts') ? [p] : [];
  });
}

describe('emulator/ stays inside the simulation', () => {
  it('uses no wall clock, global randomness, timers, DOM or Node', () => {
    const hits: string[] = [];
    for (const f of files(root)) {
      const lines = readFileSync(f, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/^\s*(\/\/|\/?\*)/.test(line)) return;
        for (const [re, why] of BANNED) {
          if (re.test(line)) hits.push(`${relative(root, f)}:${i + 1}: ${line.trim()}  -> ${why}`);
        }
      });
    }
    expect(hits.join('\n')).toBe('');
  });
});
