import { describe, expect, it } from 'vitest';
import { editorOnScreen } from './editor-setup.js';

const HISTORY = ['SET a 1', 'GET a', 'SET b 2', 'INCR n'];
const CTRL_R = '\x12';

describe('reverse search (Ctrl-R)', () => {
  it("shows readline's prompt with the text searched for and the newest line holding it", () => {
    const { screen, editor, type } = editorOnScreen({ history: HISTORY });
    type(CTRL_R);
    expect(screen.text()).toEqual(["(reverse-i-search)`':"]);
    type('SET');
    expect(screen.text()).toEqual(["(reverse-i-search)`SET': SET b 2"]);
    expect(editor.line).toBe('SET b 2');
    // The cursor sits where the text was found.
    expect(screen.col).toBe("(reverse-i-search)`SET': ".length);
  });

  it('Ctrl-R again finds an older line; past the oldest it says it failed and keeps the line', () => {
    const { screen, type } = editorOnScreen({ history: HISTORY });
    type(CTRL_R, 'SET', CTRL_R);
    expect(screen.text()).toEqual(["(reverse-i-search)`SET': SET a 1"]);
    type(CTRL_R);
    expect(screen.text()).toEqual(["(failed reverse-i-search)`SET': SET a 1"]);
    expect(screen.bells).toBe(1);
  });

  it('narrows as more is typed and widens with Backspace', () => {
    const { screen, type } = editorOnScreen({ history: HISTORY });
    type(CTRL_R, 'a');
    expect(screen.text()).toEqual(["(reverse-i-search)`a': GET a"]);
    type(' 1');
    expect(screen.text()).toEqual(["(reverse-i-search)`a 1': SET a 1"]);
    type('x');
    expect(screen.text()).toEqual(["(failed reverse-i-search)`a 1x': SET a 1"]);
    type('\x7f\x7f\x7f');
    expect(screen.text()).toEqual(["(reverse-i-search)`a': GET a"]);
  });

  it('Enter runs the line found, left on the screen after the normal prompt', () => {
    const { screen, events, type } = editorOnScreen({ history: HISTORY });
    type(CTRL_R, 'GET', '\r');
    expect(events).toEqual([{ kind: 'submit', line: 'GET a' }]);
    expect(screen.text()).toEqual(['127.0.0.1:6379> GET a']);
  });

  it('Escape and Ctrl-G give up and bring back the line as it was', () => {
    for (const cancel of ['\x1b', '\x07']) {
      const { screen, editor, type } = editorOnScreen({ history: HISTORY });
      type('DEL x', CTRL_R, 'INCR', cancel);
      expect(editor.line).toBe('DEL x');
      expect(screen.text()).toEqual(['127.0.0.1:6379> DEL x [key ...]']);
    }
  });

  it('an arrow keeps the line found for editing, at the normal prompt', () => {
    const { screen, editor, events, type } = editorOnScreen({ history: HISTORY });
    type(CTRL_R, 'b 2', '\x1b[C', '\x05\x7f5\r');
    expect(editor.line).toBe('SET b 5');
    expect(events).toEqual([{ kind: 'submit', line: 'SET b 5' }]);
    expect(screen.text()[0]).toBe('127.0.0.1:6379> SET b 5');
  });

  it('Up after a search goes on from the line found', () => {
    const { editor, type } = editorOnScreen({ history: HISTORY });
    type(CTRL_R, 'GET', '\x1b[A');
    expect(editor.line).toBe('SET a 1');
  });

  it('Ctrl-R Ctrl-R searches again for the last text', () => {
    const { editor, type } = editorOnScreen({ history: HISTORY });
    type(CTRL_R, 'INCR', '\x1b');
    type(CTRL_R, CTRL_R);
    expect(editor.line).toBe('INCR n');
  });

  it('Ctrl-C gives up the search and the line', () => {
    const { screen, editor, events, type } = editorOnScreen({ history: HISTORY });
    type('PING', CTRL_R, 'SET', '\x03');
    expect(events).toEqual([{ kind: 'interrupt' }]);
    editor.finish('^C');
    expect(screen.text()).toEqual(['127.0.0.1:6379> PING^C']);
  });
});
