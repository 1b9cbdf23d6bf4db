import { describe, expect, it } from 'vitest';
import { atoi, formatFixed, spaces } from '../../../emulator/programs/c-format.js';

describe('C number formatting', () => {
  // Each expectation is what glibc's printf prints for the same double.
  it('%.Nf breaks exact ties towards the even digit', () => {
    expect(formatFixed(0.0625, 3)).toBe('0.062');
    expect(formatFixed(0.1875, 3)).toBe('0.188');
    expect(formatFixed(0.125, 2)).toBe('0.12');
    expect(formatFixed(0.375, 2)).toBe('0.38');
    expect(formatFixed(2.5, 0)).toBe('2');
    expect(formatFixed(3.5, 0)).toBe('4');
    expect(formatFixed(-0.125, 2)).toBe('-0.12');
    expect(formatFixed(98.4375, 3)).toBe('98.438');
  });

  it('%.Nf rounds values that are not ties to the nearest', () => {
    expect(formatFixed(0.0005, 3)).toBe('0.001');
    expect(formatFixed(1.0005, 3)).toBe('1.000');
    expect(formatFixed(12345.675, 2)).toBe('12345.67');
    expect(formatFixed(99.8046875, 3)).toBe('99.805');
  });

  it('infinities and NaN print as glibc prints them on x86-64', () => {
    expect(formatFixed(Infinity, 2)).toBe('inf');
    expect(formatFixed(NaN, 3)).toBe('-nan');
    expect(formatFixed(Infinity, 3, 9)).toBe('      inf');
  });

  it('%W.Nf pads on the left', () => {
    expect(formatFixed(0.031, 3, 9)).toBe('    0.031');
    expect(formatFixed(3000.319, 3, 9)).toBe(' 3000.319');
    expect(spaces(0)).toBe(' ');
    expect(spaces(3)).toBe('   ');
  });

  it('atoi parses like glibc', () => {
    expect(atoi('42')).toBe(42);
    expect(atoi('  -7x')).toBe(-7);
    expect(atoi('+3')).toBe(3);
    expect(atoi('abc')).toBe(0);
    expect(atoi('')).toBe(0);
    expect(atoi('4294967297')).toBe(1);
    expect(atoi('99999999999999999999')).toBe(-1);
  });
});
