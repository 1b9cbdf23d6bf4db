import { describe, expect, it } from 'vitest';
import { splitArgs } from '../../../emulator/resp/split-args.js';

describe('splitArgs (sdssplitargs)', () => {
  it('splits on blanks', () => {
    expect(splitArgs('  set  a   b ')).toEqual(['set', 'a', 'b']);
    expect(splitArgs('')).toEqual([]);
  });

  it('handles double quotes with escapes', () => {
    expect(splitArgs('"a\\nb" "\\x41\\x00" "q\\"" "\\z"')).toEqual(['a\nb', 'A\x00', 'q"', 'z']);
  });

  it('handles single quotes', () => {
    expect(splitArgs("'it\\'s' 'a\\nb'")).toEqual(["it's", 'a\\nb']);
  });

  it('rejects unbalanced quotes and text glued to a closing quote', () => {
    expect(splitArgs('"abc')).toBeNull();
    expect(splitArgs("'abc")).toBeNull();
    expect(splitArgs('"a"b')).toBeNull();
  });

  it('keeps \\v and \\f inside a word, like Redis', () => {
    expect(splitArgs('a\vb c')).toEqual(['a\vb', 'c']);
  });

  it('stops at a NUL byte, as a C string does', () => {
    expect(splitArgs('a b\x00c d')).toEqual(['a', 'b']);
  });
});
