import { describe, expect, it } from 'vitest';
import { parseKeys } from '../../../src/web/terminal/key-input.js';
import { LineEditor, type EditorEvent } from '../../../src/web/terminal/line-editor.js';
import { REDIS_CLI_HISTORY } from '../../../src/web/terminal/line-history.js';
import { Screen } from './screen.js';

function setup(cols = 40, prompt = '127.0.0.1:6379> ') {
  const screen = new Screen(cols);
  const editor = new LineEditor((s) => screen.write(s), cols);
  editor.start(prompt);
  const events: EditorEvent[] = [];
  const type = (data: string): void => {
    for (const k of parseKeys(data)) {
      const e = editor.handle(k);
      if (e !== null) events.push(e);
    }
  };
  return { screen, editor, events, type };
}

describe('line editor', () => {
  it('inserts, moves and deletes anywhere in the line', () => {
    const { editor, screen, type } = setup();
    type('SET k v');
    type('\x1b[D\x1b[D'); // after "k"
    type('ey');
    expect(editor.line).toBe('SET key v');
    type('\x7f'); // Backspace
    expect(editor.line).toBe('SET ke v');
    type('\x1b[3~'); // Delete
    expect(editor.line).toBe('SET kev');
    type('\x01X\x05Y'); // Ctrl-A, Ctrl-E
    expect(editor.line).toBe('XSET kevY');
    type('\x1b[H\x1b[3~\x1b[F\x7f'); // Home, Delete, End, Backspace
    expect(editor.line).toBe('SET kev');
    expect(screen.text()).toEqual(['127.0.0.1:6379> SET kev']);
    expect(screen.col).toBe('127.0.0.1:6379> SET kev'.length);
  });

  it('kills to the end, to the start, and the word before the cursor', () => {
    const { editor, type } = setup();
    type('SET key value');
    type('\x17'); // Ctrl-W
    expect(editor.line).toBe('SET key ');
    type('\x01\x1b[C\x1b[C\x1b[C\x0b'); // Ctrl-A, three Rights, Ctrl-K
    expect(editor.line).toBe('SET');
    type('\x05 a b\x1b[D\x15'); // Ctrl-E, text, Left, Ctrl-U
    expect(editor.line).toBe('b');
  });

  it('submits the line on Enter and leaves it on the screen', () => {
    const { events, screen, editor, type } = setup();
    type('PING\r');
    expect(events).toEqual([{ kind: 'submit', line: 'PING' }]);
    expect(editor.editing).toBe(false);
    expect(screen.text()).toEqual(['127.0.0.1:6379> PING']);
    expect([screen.row, screen.col]).toEqual([1, 0]);
  });

  it('Ctrl-D ends the input on an empty line and deletes under the cursor otherwise', () => {
    const a = setup();
    a.type('\x04');
    expect(a.events).toEqual([{ kind: 'eof' }]);
    const b = setup();
    b.type('ab\x01\x04');
    expect(b.editor.line).toBe('b');
    expect(b.events).toEqual([]);
  });

  it('Ctrl-C is reported to the terminal', () => {
    const { events, type } = setup();
    type('GET a\x03');
    expect(events).toEqual([{ kind: 'interrupt' }]);
  });

  it('browses the history with Up and Down and keeps the line being typed', () => {
    const { editor, type } = setup();
    editor.addHistory('SET a 1');
    editor.addHistory('GET a');
    editor.addHistory('GET a'); // not twice in a row
    editor.addHistory('   '); // not blank lines
    expect(editor.historyLines()).toEqual(['SET a 1', 'GET a']);
    type('DEL');
    type('\x1b[A');
    expect(editor.line).toBe('GET a');
    type('\x1b[A\x1b[A');
    expect(editor.line).toBe('SET a 1');
    type('\x1b[B');
    expect(editor.line).toBe('GET a');
    type('\x1b[B');
    expect(editor.line).toBe('DEL');
    type('\x10'); // Ctrl-P
    expect(editor.line).toBe('GET a');
  });

  it("keeps at most linenoise's 100 lines", () => {
    const { editor } = setup();
    expect(REDIS_CLI_HISTORY.maxLines).toBe(100);
    for (let i = 0; i < 105; i++) editor.addHistory(`INCR n${i}`);
    expect(editor.historyLines()).toHaveLength(100);
    expect(editor.historyLines()[0]).toBe('INCR n5');
  });

  it('edits a line that wraps past the width of the terminal', () => {
    const { editor, screen, type } = setup(20, 'redis:6379> ');
    type('SET key value');
    expect(screen.text()).toEqual(['redis:6379> SET key', 'value']);
    expect([screen.row, screen.col]).toEqual([1, 5]);
    // Back across the wrap, then insert: the rest of the line moves down.
    type('\x1b[D'.repeat(6) + 'XY');
    expect(editor.line).toBe('SET keyXY value');
    expect(screen.text()).toEqual(['redis:6379> SET keyX', 'Y value']);
    expect([screen.row, screen.col]).toEqual([1, 1]);
    type('\x01');
    expect([screen.row, screen.col]).toEqual([0, 12]);
    type('\x05\r');
    expect([screen.row, screen.col]).toEqual([2, 0]);
  });

  it('handles a line that ends exactly at the last column', () => {
    const { screen, type } = setup(20, 'redis:6379> ');
    type('12345678');
    expect(screen.text()).toEqual(['redis:6379> 12345678']);
    expect([screen.row, screen.col]).toEqual([1, 0]);
    type('\x7f');
    expect(screen.text()).toEqual(['redis:6379> 1234567']);
    expect([screen.row, screen.col]).toEqual([0, 19]);
    type('8\r');
    expect([screen.row, screen.col]).toEqual([1, 0]);
  });

  it('counts wide characters as two columns', () => {
    const { screen, type } = setup(40, '> ');
    type('SET 名前 v');
    type('\x1b[D\x1b[D');
    expect(screen.col).toBe(2 + 'SET '.length + 4);
  });

  it('Ctrl-L clears the screen and draws the prompt and the line again', () => {
    const { screen, type } = setup(40, '> ');
    screen.write('');
    type('GET a\x0c');
    expect(screen.text()).toEqual(['> GET a']);
    expect(screen.row).toBe(0);
  });

  it('hides the prompt for output and shows it again with the line', () => {
    const { screen, editor, type } = setup(40, '> ');
    type('GET a');
    editor.hide();
    screen.write('message\n');
    editor.show();
    expect(screen.text()).toEqual(['message', '> GET a']);
  });
});
