import { describe, expect, it } from 'vitest';
import { isClearScreen, terminalText } from '../../../src/web/terminal/sanitize.js';
import { utf8ToBytes } from '../../../emulator/resp/bytes.js';

describe('terminal output from the world', () => {
  it('passes plain text, newlines, carriage returns and tabs through', () => {
    expect(terminalText('OK\n"1"\r\n\tx')).toBe('OK\n"1"\r\n\tx');
  });

  it('shows escape sequences in data in caret notation instead of obeying them', () => {
    expect(terminalText('\x1b[31mred\x1b[0m\n')).toBe('^[[31mred^[[0m\n');
    expect(terminalText('\x1b]0;title\x07')).toBe('^[]0;title^G');
    expect(terminalText('a\x00b\x7fc\x08')).toBe('a^@b^?c^H');
  });

  it('decodes UTF-8 and makes C1 controls visible too', () => {
    expect(terminalText(utf8ToBytes('café ☕'))).toBe('café ☕');
    // U+009B is a one-character CSI to a terminal.
    expect(terminalText(utf8ToBytes('\u009b31m'))).toBe('M-^[31m');
    expect(terminalText('\xff\xfe')).toBe('\ufffd\ufffd');
  });

  it('recognises only a whole clear-screen write as one', () => {
    expect(isClearScreen('\x1b[H\x1b[2J')).toBe(true);
    expect(isClearScreen('\x1b[H\x1b[2J\x1b[3J')).toBe(true);
    expect(isClearScreen('x\x1b[H\x1b[2J')).toBe(false);
  });
});
