import { describe, expect, it } from 'vitest';
import { hintClearing, hintPainting, redisCliCompleter, redisCliHint, type PromptLine } from '../../src/node/line-assist.js';
import { Screen } from '../web/terminal/screen.js';

const PROMPT = '127.0.0.1:6379> ';

/** A screen showing what readline draws: the prompt and the line, the cursor at `cursor`. */
function drawn(line: string, cursor: number, cols = 80): { screen: Screen; at: PromptLine } {
  const screen = new Screen(cols);
  screen.write(PROMPT + line + '\r' + `\x1b[${PROMPT.length + cursor}C`);
  return { screen, at: { line, cursor, promptWidth: PROMPT.length, cols } };
}

describe('npm run cli: completion and hints on readline', () => {
  it("completes with redis-cli's whole lines", () => {
    expect(redisCliCompleter('client no')).toEqual([['CLIENT NO-EVICT'], 'client no']);
    expect(redisCliCompleter('config set appendfsync a')).toEqual([['config set appendfsync always'], 'config set appendfsync a']);
  });

  it('draws the hint after the line, cut at the row, and leaves the cursor where it was', () => {
    const { screen, at } = drawn('GET', 1, 24);
    screen.write(hintPainting(at, redisCliHint('GET')));
    expect(screen.text()).toEqual([PROMPT + 'GET key']);
    expect(screen.grey()).toBe(' key');
    expect(screen.col).toBe(PROMPT.length + 1);
    const wide = drawn('SET', 3, 30);
    wide.screen.write(hintPainting(wide.at, redisCliHint('SET')));
    expect(wide.screen.grey()).toBe(' key value ');
  });

  it('replaces the old hint, and clears it before Enter', () => {
    const { screen, at } = drawn('SET', 3);
    screen.write(hintPainting(at, redisCliHint('SET')));
    // readline echoes a typed blank over the hint's first column.
    screen.write(' ');
    const next = { ...at, line: 'SET ', cursor: 4 };
    screen.write(hintPainting(next, redisCliHint('SET ')));
    expect(screen.grey()).toMatch(/^key value \[NX\|XX\]/);
    screen.write(hintClearing(next));
    expect(screen.grey()).toBe('');
    expect(screen.text()).toEqual([PROMPT + 'SET']);
  });

  it('draws nothing for a line that does not fit on the row', () => {
    const { at } = drawn('SET key value', 13, 24);
    expect(hintPainting(at, ' [NX|XX]')).toBe('');
  });
});
