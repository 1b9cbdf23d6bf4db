import { describe, expect, it } from 'vitest';
import { Trace } from '../../../emulator/sim/trace.js';

/** The trace's digest as documented: two interleaved FNV-1a hashes over each entry's line `<t> <source> <kind> <text>\n`. */
function referenceHash(lines: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < lines.length; i++) {
    const c = lines.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ (c + 0x9e), 0x01000193) ^ (a >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

describe('the trace', () => {
  it("hashes each entry's line: time, source, kind and text, each followed by a space or a newline", () => {
    let now = 0;
    const trace = new Trace(() => now);
    const entries: Array<[number, string, string, string]> = [
      [0, 'sim', 'host', 'A core2duo'],
      [15, 'A', 'cmd', '3 "SET" "k" "v"'],
      [1_234_567, 'app', 'ack', 'A:6379 master 0 "OK" ["SET","k","v"]'],
      [1_234_568, 'net', 'partition', 'A <-> B'],
      [1_234_569, 'A', 'log', ''],
    ];
    let lines = '';
    for (const [t, source, kind, text] of entries) {
      now = t;
      trace.add(source, kind, text, t === 15 ? 7 : undefined);
      lines += `${t} ${source} ${kind} ${text}\n`;
      expect(trace.hash()).toBe(referenceHash(lines));
    }
    expect(trace.count).toBe(entries.length);
  });
});
