import { describe, expect, it } from 'vitest';
import { storeHarness } from '../store-harness.js';
import { editorOnScreen } from './editor-setup.js';

/** A value as long as a large paste: 200 KB. */
const BIG = 'v'.repeat(200 * 1024);

describe('a pasted line of 200 KB', () => {
  it('goes into the line whole, is drawn once, and is submitted as it was pasted', () => {
    const { editor, screen, events, type } = editorOnScreen();
    let written = 0;
    const count = screen.write.bind(screen);
    screen.write = (s: string) => {
      written += s.length;
      count(s);
    };
    type(`SET big ${BIG}`);
    expect(editor.line).toBe(`SET big ${BIG}`);
    type('!', '\r');
    expect(events).toEqual([{ kind: 'submit', line: `SET big ${BIG}!` }]);
    // Drawn once, not again for the key typed after it nor for Enter.
    expect(written).toBeLessThan(2 * BIG.length);
    expect(screen.text().join('')).toBe(`127.0.0.1:6379> SET big ${BIG}!`);
  });

  it('is sent by a page terminal, and so is a paste of many keys', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    t.session.input(`SET big ${BIG}\r`);
    await h.run(100);
    // A tab in a paste is a blank: a hundred thousand of them are as many keys.
    t.session.input(`STRLEN${'\t'.repeat(100_000)}big\r`);
    await h.run(100);
    const lines = t.lines();
    expect(lines.slice(-2)).toEqual([`(integer) ${BIG.length}`, 'redis:6379>']);
    expect(lines.at(-3)).toMatch(/ big$/);
  });
});
