import { describe, expect, it } from 'vitest';
import {
  addLongDouble,
  formatLongDoubleHuman,
  fromInteger,
  isInfinite,
  parseLongDouble,
} from '../../../emulator/numbers/long-double.js';

/** What INCRBYFLOAT answers for a key holding `value` incremented by `by`. */
function incrbyfloat(value: string, by: string): string {
  const a = parseLongDouble(value);
  const b = parseLongDouble(by);
  if (a === null || b === null) return '-ERR value is not a valid float';
  const sum = addLongDouble(a, b);
  if (isInfinite(sum)) return '-ERR increment would produce NaN or Infinity';
  return formatLongDoubleHuman(sum);
}

describe('long double (INCRBYFLOAT arithmetic)', () => {
  // [value, increment, reply], each reply read from redis-server 7.0.15 on
  // x86-64 (SET k value; INCRBYFLOAT k increment).
  const cases: Array<[string, string, string]> = [
    ["0", "0.1", "0.1"],
    ["0.1", "0.2", "0.3"],
    ["0.1", "0.7", "0.8"],
    ["10.5", "0.1", "10.6"],
    ["3.0e3", "200", "3200"],
    ["5.0e3", "2.0e2", "5200"],
    ["1.5", "-1.5", "0"],
    ["0", "-0", "0"],
    ["-0", "-0", "0"],
    ["1", "1e-17", "1.00000000000000001"],
    ["0", "1e-17", "0.00000000000000001"],
    ["0", "5e-18", "0"],
    ["0", "5.000000000000001e-18", "0.00000000000000001"],
    ["0", "-5e-18", "0"],
    ["0", "-6e-18", "-0.00000000000000001"],
    ["0", "1.5e-17", "0.00000000000000002"],
    ["0", "2.5e-17", "0.00000000000000002"],
    ["9223372036854775807", "1", "9223372036854775808"],
    ["-9223372036854775808", "-1", "-9223372036854775809"],
    ["18446744073709551615", "1", "18446744073709551616"],
    ["18446744073709551617", "0", "18446744073709551616"],
    ["123456789012345678901234567890", "0.5", "123456789012345678899921813504"],
    ["1e30", "1", "1000000000000000000024696061952"],
    ["1e20", "0.1", "100000000000000000000"],
    ["0", "1e50", "100000000000000000003583830118858923890798487404544"],
    ["1.0000000000000000001", "0", "1"],
    ["0x10", "0x.8", "16.5"],
    ["0X1P3", "0", "8"],
    ["0x1p-3", "1", "1.125"],
    [".5", "5.", "5.5"],
    ["+1", "-2", "-1"],
    ["1E2", "1e+2", "200"],
    ["00012", "0", "12"],
    ["3.6e-4951", "3.6e-4951", "0"],
    ["1e-4950", "-1e-4950", "0"],
    ["1e4932", "1e4932", "-ERR increment would produce NaN or Infinity"],
    ["inf", "1", "-ERR increment would produce NaN or Infinity"],
    ["-inf", "1", "-ERR increment would produce NaN or Infinity"],
    ["inf", "-inf", "-ERR increment would produce NaN or Infinity"],
    ["nan", "1", "-ERR value is not a valid float"],
    ["1", "NaN", "-ERR value is not a valid float"],
    ["abc", "1", "-ERR value is not a valid float"],
    ["1", "", "-ERR value is not a valid float"],
    ["1", " 1", "-ERR value is not a valid float"],
    ["1", "1 ", "-ERR value is not a valid float"],
    ["1", "1e", "-ERR value is not a valid float"],
    ["1", "0x", "-ERR value is not a valid float"],
    ["1", ".", "-ERR value is not a valid float"],
    ["1", "1e5000", "-ERR value is not a valid float"],
    ["1", "1e-5000", "-ERR value is not a valid float"],
    ["1", "0e-5000", "1"],
    ["1", "0x1p", "-ERR value is not a valid float"],
    ["1", "infinit", "-ERR value is not a valid float"],
    ["1", "Infinity", "-ERR increment would produce NaN or Infinity"],
    ["2.5", "0.00000000000000001", "2.50000000000000001"],
    ["0.33333333333333333333", "0.33333333333333333333", "0.66666666666666667"],
    ["1", "-0.99999999999999999", "0.00000000000000001"],
    ["100", "-100.000000000000000001", "0"],
    ["123.456", "-23.456", "100"],
    ["1e17", "0.3", "100000000000000000.296875"],
    ["1e16", "0.3", "10000000000000000.2998046875"],
    ["12345678.9", "0.05", "12345678.9499999999998181"],
  ];

  it('INCRBYFLOAT agrees with the real server', () => {
    for (const [value, by, reply] of cases) {
      expect([value, by, incrbyfloat(value, by)]).toEqual([value, by, reply]);
    }
  });

  it('INCRBYFLOAT near the largest long double prints every integer digit', () => {
    const r = incrbyfloat('1.18973149535723176502e+4932', '-1');
    expect(r.length).toBe(4933);
    expect(r.slice(0, 24)).toBe('118973149535723176502126');
    expect(r.slice(-10)).toBe('1989770240');
  });

  it('parses only what strtold parses to a finite non-NaN value', () => {
    for (const s of ['', ' 1', '1 ', '1e', '0x', '.', 'nan', '1\0', '1e5000', '-1e-5000', '0x1p', '1.5.5', 'abc']) {
      expect([s, parseLongDouble(s)]).toEqual([s, null]);
    }
    expect(parseLongDouble('0.'.padEnd(5119, '0'))).not.toBeNull();
    expect(parseLongDouble('0.'.padEnd(5120, '0'))).toBeNull();
    expect(isInfinite(parseLongDouble('-Infinity')!)).toBe(true);
  });

  it('converts int64 values exactly', () => {
    const big = fromInteger(9223372036854775807n);
    expect(formatLongDoubleHuman(big)).toBe('9223372036854775807');
    expect(formatLongDoubleHuman(fromInteger(-42))).toBe('-42');
    expect(formatLongDoubleHuman(fromInteger(0))).toBe('0');
  });
});
