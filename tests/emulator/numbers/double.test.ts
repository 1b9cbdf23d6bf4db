import { describe, expect, it } from 'vitest';
import { formatDouble, parseDouble } from '../../../emulator/numbers/double.js';

describe('formatDouble (%.17g)', () => {
  it('prints like glibc printf %.17g', () => {
    const cases: Array<[number, string]> = [
      [1.1, '1.1000000000000001'],
      [0.1, '0.10000000000000001'],
      [1e17, '1e+17'],
      [1e16, '10000000000000000'],
      [123.456, '123.456'],
      [1e-5, '1.0000000000000001e-05'],
      [0.0001, '0.0001'],
      [-2.5e-300, '-2.5e-300'],
      [3, '3'],
      [1 / 3, '0.33333333333333331'],
      [-0, '-0'],
      [Infinity, 'inf'],
      [-Infinity, '-inf'],
      [5e-324, '4.9406564584124654e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
    ];
    for (const [d, s] of cases) expect(formatDouble(d)).toBe(s);
  });
});

describe('parseDouble (string2d)', () => {
  it('accepts what strtod accepts over the whole string', () => {
    expect(parseDouble('1.5')).toBe(1.5);
    expect(parseDouble('.5')).toBe(0.5);
    expect(parseDouble('5.')).toBe(5);
    expect(parseDouble('-1e3')).toBe(-1000);
    expect(parseDouble('inf')).toBe(Infinity);
    expect(parseDouble('-Infinity')).toBe(-Infinity);
    expect(parseDouble('0x10')).toBe(16);
    expect(parseDouble('0x1.8p1')).toBe(3);
  });

  it('rejects what Redis rejects', () => {
    for (const s of ['', ' 1', '1 ', 'abc', '1e', 'nan', '1e400', '-1e400', '1e-400', '0b1', '0o7', '1_0', '0x']) {
      expect(parseDouble(s), s).toBeNull();
    }
  });
});
