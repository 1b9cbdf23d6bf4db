import { describe, expect, it } from 'vitest';
import { parseKeys } from '../../../src/web/terminal/key-input.js';

const kinds = (data: string): string[] => parseKeys(data).map((k) => (k.kind === 'text' ? `text:${k.text}` : k.kind === 'ctrl' ? `ctrl:${k.letter}` : k.kind));

describe('terminal key input', () => {
  it('reads the special keys in their xterm.js spellings', () => {
    expect(kinds('\x1b[A\x1b[B\x1b[C\x1b[D')).toEqual(['up', 'down', 'right', 'left']);
    expect(kinds('\x1b[H\x1b[F\x1bOH\x1bOF\x1b[1~\x1b[4~')).toEqual(['home', 'end', 'home', 'end', 'home', 'end']);
    expect(kinds('\x1b[3~\x7f\x08')).toEqual(['delete', 'backspace', 'backspace']);
    expect(kinds('\x1b[1;5D\x1b[1;5C\x1bb\x1bf\x1b\x7f')).toEqual(['wordLeft', 'wordRight', 'wordLeft', 'wordRight', 'wordRubout']);
  });

  it('reads control keys as Ctrl and a letter', () => {
    expect(kinds('\x01\x05\x0b\x15\x17\x0c\x03\x04')).toEqual(['ctrl:a', 'ctrl:e', 'ctrl:k', 'ctrl:u', 'ctrl:w', 'ctrl:l', 'ctrl:c', 'ctrl:d']);
  });

  it('cuts a pasted block into lines, a CR LF being one line end', () => {
    expect(kinds('SET a 1\r\nGET a\rGET b\n')).toEqual(['text:SET a 1', 'enter', 'text:GET a', 'enter', 'text:GET b', 'enter']);
  });

  it('never passes a control character on as text', () => {
    expect(kinds('a\x1b[31mb\x9bc\x00d')).toEqual(['text:a', 'ignored', 'text:b', 'ignored', 'text:c', 'ignored', 'text:d']);
    expect(kinds('a\tb')).toEqual(['text:a', 'text: ', 'text:b']);
  });

  it('keeps non-ASCII text whole', () => {
    expect(kinds('SET café ☕')).toEqual(['text:SET café ☕']);
  });

  it('reads a Tab alone as the Tab key and an Escape alone as the Escape key', () => {
    expect(kinds('\t')).toEqual(['tab']);
    expect(kinds('\x1b')).toEqual(['escape']);
    expect(kinds('\x1bx')).toEqual(['ignored']);
    expect(kinds('\x12\x07\x14')).toEqual(['ctrl:r', 'ctrl:g', 'ctrl:t']);
  });
});
