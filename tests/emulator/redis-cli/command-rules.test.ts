import { describe, expect, it } from 'vitest';
import { isSensitiveCommand, parseRepeat, printsVerbatim } from '../../../emulator/redis-cli/command-rules.js';

describe('redis-cli command rules', () => {
  it('prints INFO, CLIENT LIST and friends verbatim', () => {
    expect(printsVerbatim(['info'])).toBe(true);
    expect(printsVerbatim(['INFO', 'server'])).toBe(true);
    expect(printsVerbatim(['client', 'LIST'])).toBe(true);
    expect(printsVerbatim(['memory', 'doctor'])).toBe(true);
    expect(printsVerbatim(['latency', 'doctor', 'x'])).toBe(false);
    expect(printsVerbatim(['cluster', 'nodes'])).toBe(true);
    expect(printsVerbatim(['get', 'info'])).toBe(false);
  });

  it('keeps passwords out of the history', () => {
    expect(isSensitiveCommand(['AUTH', 'pw'])).toBe(true);
    expect(isSensitiveCommand(['config', 'set', 'requirepass', 'x'])).toBe(true);
    expect(isSensitiveCommand(['config', 'set', 'maxmemory', '1'])).toBe(false);
    expect(isSensitiveCommand(['hello', '3', 'setname', 'n', 'auth', 'u', 'p'])).toBe(true);
    expect(isSensitiveCommand(['hello', '3', 'setname', 'n', 'x'])).toBe(false);
    expect(isSensitiveCommand(['set', 'auth', 'x'])).toBe(false);
  });

  it('reads a leading repeat count like strtol', () => {
    expect(parseRepeat(['3', 'incr', 'x'])).toBe(3);
    expect(parseRepeat(['3'])).toBe(null);
    expect(parseRepeat(['0', 'incr', 'x'])).toBe('invalid');
    expect(parseRepeat(['-1', 'incr', 'x'])).toBe('invalid');
    expect(parseRepeat(['', 'incr', 'x'])).toBe('invalid');
    expect(parseRepeat(['99999999999999999999', 'incr', 'x'])).toBe('invalid');
    expect(parseRepeat([' 2', 'incr', 'x'])).toBe(2);
    expect(parseRepeat(['2x', 'incr', 'x'])).toBe(null);
    expect(parseRepeat(['incr', 'x'])).toBe(null);
  });
});
