import { describe, expect, it } from 'vitest';
import { CFile, strtol, strtolValue } from '../../../../emulator/persistence/aof/c-stdio.js';

const bytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

describe('C stdio over bytes', () => {
  it('strtolValue agrees with strtol, exact digits as numbers and long ones as strtol gives them', () => {
    const cases = [
      '3\r\n', '0', '', '-', '+', '-0', '  \t42abc', '\v\f-17', '+9', 'x12', '12\x0034',
      '999999999999999', '1000000000000000', '-999999999999999', '9007199254740993',
      '9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809',
      '00000000000000000000042', '99999999999999999999999999',
    ];
    for (const text of cases) {
      const b = bytes(`$${text}`);
      const v = strtolValue(b, 1, b.length);
      expect(BigInt(v), JSON.stringify(text)).toBe(strtol(b, 1).value);
      if (typeof v === 'bigint') expect(text.replace(/[^0-9]/g, '').length, JSON.stringify(text)).toBeGreaterThan(15);
    }
  });

  it('strtolValue reads the end of its range as the end of the string', () => {
    const b = bytes('*12345\r\n');
    expect(strtolValue(b, 1, 4)).toBe(123);
  });

  it('fgetsEnd and skip move and set end of file as fgets and fread do', () => {
    const text = bytes('line one\nsecond\nlast without newline');
    const a = new CFile(text);
    const b = new CFile(text);
    for (const n of [5, 1024, 3, 1024, 1024, 1024]) {
      const start = a.pos;
      const end = a.fgetsEnd(n);
      const line = b.fgets(n);
      expect(end < 0 ? null : Array.from(text.subarray(start, end))).toEqual(line === null ? null : Array.from(line));
      expect([a.pos, a.eof]).toEqual([b.pos, b.eof]);
    }
    const c = new CFile(text);
    const d = new CFile(text);
    for (const n of [4, 0, 10, 100, 2]) {
      expect(c.skip(n)).toBe(d.fread(n).length);
      expect([c.pos, c.eof]).toEqual([d.pos, d.eof]);
    }
  });
});
