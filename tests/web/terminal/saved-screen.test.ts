import { describe, expect, it } from 'vitest';
import { redisCliAssist } from '../../../src/web/terminal/redis-cli-assist.js';
import { Screen } from './screen.js';
import { storeHarness } from '../store-harness.js';

describe('a terminal saved and shown again', () => {
  it('keeps each line typed as one line, however wide the screen that shows it again', async () => {
    const h = storeHarness();
    const t = h.open(undefined, 80);
    await h.run(50);
    await redisCliAssist(() => true).ready;
    // Typed key by key, each key draws the line again with its grey hint.
    for (const ch of 'SET greeting hello') t.session.input(ch);
    t.session.input('\r');
    await h.run(100);
    for (const ch of 'GET greeting') t.session.input(ch);
    t.session.input('\r');
    await h.run(100);
    expect(t.lines()).toEqual(['redis:6379> SET greeting hello', 'OK', 'redis:6379> GET greeting', '"hello"', 'redis:6379>']);

    const saved = h.store.saveTerminal(t.id)!;
    for (const cols of [80, 62, 40]) {
      const again = new Screen(cols);
      again.write(saved.screen);
      expect(again.text(), `shown again ${cols} columns wide`).toEqual(['redis:6379> SET greeting hello', 'OK', 'redis:6379> GET greeting', '"hello"']);
    }
    expect(saved.history).toEqual(['SET greeting hello', 'GET greeting']);
  });
});
