import { describe, expect, it } from 'vitest';
import { jsonQuote, jsonQuoteAll } from '../../../emulator/sim/json-quote.js';

describe('jsonQuote', () => {
  it('writes every byte value as JSON.stringify does', () => {
    for (let c = 0; c < 256; c++) {
      const s = `k${String.fromCharCode(c)}v`;
      expect(jsonQuote(s)).toBe(JSON.stringify(s));
    }
  });

  it('writes quotes, backslashes, line separators and surrogates, alone and paired, as JSON.stringify does', () => {
    for (const s of ['', 'a"b', 'a\\b', '\u2028\u2029', '\ud83d\ude00', 'x\ud83d', '\ude00y', '\ufffd', 'plain:key:1']) {
      expect(jsonQuote(s)).toBe(JSON.stringify(s));
    }
  });

  it('writes an array of strings as JSON.stringify does', () => {
    for (const argv of [[], ['SET'], ['SET', 'k"1', 'v\n'], ['ZADD', 'viewed:token', '1767225665.232014', 'item']]) {
      expect(jsonQuoteAll(argv)).toBe(JSON.stringify(argv));
    }
  });
});
