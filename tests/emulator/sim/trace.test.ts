import { describe, expect, it } from 'vitest';
import { TextLaterEntry, Trace, type TraceHash } from '../../../emulator/sim/trace.js';
import { World } from '../../../emulator/world/world.js';

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

  it('hashes a text given as pieces as it hashes the same text given whole, and makes the text only when it is read, once', () => {
    let made = 0;
    class Words extends TextLaterEntry {
      constructor(private readonly words: string[]) {
        super();
      }
      hashInto(h: TraceHash): void {
        this.words.forEach((w, i) => {
          if (i > 0) h.char(0x20);
          h.chars(w);
        });
      }
      protected makeText(): string {
        made++;
        return this.words.join(' ');
      }
    }
    let now = 0;
    const whole = new Trace(() => now);
    const lazy = new Trace(() => now);
    const lines: string[][] = [['3', '"SET"', '"k"', '"v"'], [], ['A:6379', 'master', '0', '"OK"', '["SET","k","v"]']];
    for (const [i, words] of lines.entries()) {
      now = 10 * i;
      whole.add('A', 'cmd', words.join(' '), 7);
      lazy.addText('A', 'cmd', new Words(words), 7);
      expect(lazy.hash()).toBe(whole.hash());
    }
    expect(made).toBe(0);
    expect(lazy.count).toBe(whole.count);
    expect(lazy.entries.map((e) => [e.t, e.source, e.kind, e.text, e.socket])).toEqual(whole.entries.map((e) => [e.t, e.source, e.kind, e.text, e.socket]));
    expect(lazy.entries.map((e) => e.text)).toEqual(lines.map((w) => w.join(' ')));
    expect(made, 'each text made once, however often it is read').toBe(lines.length);
  });

  it("hashes a world's command lines and acknowledgements as the lines read back: quotes, escapes, cut arguments, long lists", async () => {
    const world = new World({ seed: 11 });
    world.addHost('A', 'core2duo');
    world.addHost('app');
    world.link('app', 'A', 'lan');
    world.startRedis('A');
    const r = world.connect({ from: 'app', to: 'A:6379' });
    await world.settle(r.call('SET', 'k"\\', 'x'.repeat(41)));
    await world.settle(r.call('SET', 'caf\u00e9 \ud83d\ude00', '\n'.repeat(3) + 'y'.repeat(45)));
    await world.settle(r.call('RPUSH', 'l', '1', '2', '3', '4', '5', '6', '7', '8'));
    await world.settle(r.call('GET', 'k"\\'));
    const kinds = new Set(world.trace.entries.map((e) => e.kind));
    expect(kinds).toContain('cmd');
    expect(kinds).toContain('ack');
    expect(world.trace.entries.length).toBe(world.trace.count);
    expect(world.trace.hash()).toBe(referenceHash(world.trace.entries.map((e) => `${e.t} ${e.source} ${e.kind} ${e.text}\n`).join('')));
  });

  it('hashes nothing when made with hashing off, keeps the same entries, and refuses to give a hash', () => {
    const on = new Trace(() => 5);
    Trace.hashByDefault = false;
    let off: Trace;
    try {
      off = new Trace(() => 5);
    } finally {
      Trace.hashByDefault = true;
    }
    for (const t of [on, off]) {
      t.add('a', 'cmd', '"SET" "k" "v"');
      t.add('b', 'ack', 'x', 3);
    }
    expect(off.hashing).toBe(false);
    expect(off.entries).toEqual(on.entries);
    expect(off.count).toBe(on.count);
    expect(() => off.hash()).toThrow(/does not hash/);
    expect(new Trace(() => 0).hashing).toBe(true);
  });
});
