import { describe, expect, it } from 'vitest';
import { BASH_HISTORY, LineHistory, REDIS_CLI_HISTORY, historyRulesFor } from '../../../src/web/terminal/line-history.js';
import { editorOnScreen } from './editor-setup.js';

describe('terminal history', () => {
  it("keeps redis-cli's lines as linenoise does: the last 100, a line equal to the one before left out", () => {
    const h = new LineHistory(REDIS_CLI_HISTORY);
    expect(h.add('SET a 1')).toBe(true);
    expect(h.add('SET a 1')).toBe(false);
    expect(h.add('GET a')).toBe(true);
    expect(h.add('SET a 1')).toBe(true);
    expect(h.add('   ')).toBe(false);
    expect(h.lines()).toEqual(['SET a 1', 'GET a', 'SET a 1']);
    for (let i = 0; i < 150; i++) h.add(`INCR n${i}`);
    expect(h.lines()).toHaveLength(100);
    expect(h.lines()[0]).toBe('INCR n50');
  });

  it("keeps bash's lines as Debian's .bashrc asks: 1000 of them, none that starts with a blank", () => {
    expect(historyRulesFor('bash')).toBe(BASH_HISTORY);
    expect(historyRulesFor('redis-cli')).toBe(REDIS_CLI_HISTORY);
    const h = new LineHistory(BASH_HISTORY);
    expect(h.add(' cat secret')).toBe(false);
    for (let i = 0; i < 1200; i++) h.add(`echo ${i}`);
    expect(h.length).toBe(1000);
    h.setRules(REDIS_CLI_HISTORY);
    expect(h.length).toBe(100);
    expect(h.at(99)).toBe('echo 1199');
  });

  it('takes a saved history back as it was saved', () => {
    const h = new LineHistory();
    h.set(['SET a 1', 'SET a 1', 'GET a']);
    expect(h.lines()).toEqual(['SET a 1', 'SET a 1', 'GET a']);
  });

  it('finds the newest line holding a text, at its last occurrence', () => {
    const h = new LineHistory();
    h.set(['SET a a', 'GET b', 'SET c 1']);
    expect(h.searchBack('a', 2)).toEqual({ index: 0, at: 6 });
    expect(h.searchBack('SET', 2)).toEqual({ index: 2, at: 0 });
    expect(h.searchBack('SET', 1)).toEqual({ index: 0, at: 0 });
    expect(h.searchBack('x', 2)).toBeNull();
  });

  it('keeps edits to a recalled line while browsing, and drops them at the next prompt', () => {
    const { editor, type } = editorOnScreen({ history: ['SET a 1', 'GET a'] });
    type('DEL z', '\x1b[A', '\x1b[A', '\x7f9', '\x1b[B', '\x1b[A');
    expect(editor.line).toBe('SET a 9');
    type('\x1b[B\x1b[B');
    expect(editor.line).toBe('DEL z');
    editor.start('> ');
    type('\x1b[A\x1b[A');
    expect(editor.line).toBe('SET a 1');
  });

  it('Ctrl-T swaps the characters around the cursor as linenoise does', () => {
    const { editor, type } = editorOnScreen();
    type('GTE', '\x1b[D', '\x14');
    expect(editor.line).toBe('GET');
    type('\x01\x14');
    expect(editor.line).toBe('GET');
    type('\x1b[C\x14');
    expect(editor.line).toBe('EGT');
  });
});
