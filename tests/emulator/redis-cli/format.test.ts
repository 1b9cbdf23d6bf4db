import { describe, expect, it } from 'vitest';
import { formatReply, formatReplyRaw, formatReplyTTY, repr, UnknownReplyTypeError } from '../../../emulator/redis-cli/format.js';
import {
  BigNumberReply,
  BoolReply,
  DoubleReply,
  ErrorReply,
  MapReply,
  NULL_ARRAY,
  OK,
  PushReply,
  SetReply,
  VerbatimReply,
} from '../../../emulator/resp/reply.js';

describe('redis-cli reply formatting', () => {
  it('quotes strings with sdscatrepr escapes', () => {
    expect(repr('a"b\\c\n\r\t\x07\x08')).toBe('"a\\"b\\\\c\\n\\r\\t\\a\\b"');
    expect(repr('\x00\x01\x1b\x7f\x80\xff')).toBe('"\\x00\\x01\\x1b\\x7f\\x80\\xff"');
    expect(repr("it's ok ~")).toBe('"it\'s ok ~"');
    expect(repr('')).toBe('""');
  });

  it('prints scalars like redis-cli in a terminal', () => {
    expect(formatReplyTTY('hello')).toBe('"hello"\n');
    expect(formatReplyTTY(1)).toBe('(integer) 1\n');
    expect(formatReplyTTY(-9223372036854775808n)).toBe('(integer) -9223372036854775808\n');
    expect(formatReplyTTY(null)).toBe('(nil)\n');
    expect(formatReplyTTY(NULL_ARRAY)).toBe('(nil)\n');
    expect(formatReplyTTY(OK)).toBe('OK\n');
    expect(formatReplyTTY(new ErrorReply('ERR syntax error'))).toBe('(error) ERR syntax error\n');
    expect(formatReplyTTY(new DoubleReply(1.5))).toBe('(double) 1.5\n');
    expect(formatReplyTTY(new DoubleReply(-Infinity))).toBe('(double) -inf\n');
    expect(formatReplyTTY(BoolReply.TRUE)).toBe('(true)\n');
    expect(formatReplyTTY(new VerbatimReply('line 1\r\nline 2'))).toBe('line 1\r\nline 2\n');
  });

  it('numbers nested arrays and indents them under their parent', () => {
    expect(formatReplyTTY([1, [2, [3, 'a']], [], 'x'])).toBe(
      '1) (integer) 1\n2) 1) (integer) 2\n   2) 1) (integer) 3\n      2) "a"\n3) (empty array)\n4) "x"\n',
    );
  });

  it('pads indexes to the width of the largest one', () => {
    const out = formatReplyTTY(Array.from({ length: 10 }, (_, i) => String(i)));
    expect(out.split('\n')[0]).toBe(' 1) "0"');
    expect(out.split('\n')[9]).toBe('10) "9"');
  });

  it('prints maps with => and breaks the line before a multi-line value', () => {
    expect(formatReplyTTY(new MapReply(['a', 1, 'b', [1, 2]]))).toBe(
      '1# "a" => (integer) 1\n2# "b" => \n   1) (integer) 1\n   2) (integer) 2\n',
    );
    expect(formatReplyTTY(new MapReply(['a', [1]]))).toBe('1# "a" => 1) (integer) 1\n');
  });

  it('prints sets with ~ and names empty aggregates by type', () => {
    expect(formatReplyTTY(new SetReply(['x', 'y']))).toBe('1~ "x"\n2~ "y"\n');
    expect(formatReplyTTY(new SetReply([]))).toBe('(empty set)\n');
    expect(formatReplyTTY(new MapReply([]))).toBe('(empty hash)\n');
    expect(formatReplyTTY(new PushReply([]))).toBe('(empty push)\n');
  });

  it('cuts status and error text at a NUL byte, as a C string would', () => {
    expect(formatReplyTTY(new ErrorReply('ERR a\x00b'))).toBe('(error) ERR a\n');
    expect(formatReplyRaw(new ErrorReply('ERR a\x00b'))).toBe('ERR a\x00b\n');
  });

  it('prints --raw output without quotes, one element per line', () => {
    expect(formatReply(['a', 1, null, ['b']], 'raw')).toBe('a\n1\n\nb\n');
    expect(formatReply(new MapReply(['k', 'v', 'k2', 'v2']), 'raw')).toBe('k v\nk2 v2\n');
    expect(formatReply(new ErrorReply('ERR x'), 'raw')).toBe('ERR x\n\n');
    expect(formatReply(BoolReply.FALSE, 'raw')).toBe('(false)\n');
  });

  it('prints the text of INFO-like replies as is in both modes', () => {
    expect(formatReply('# Server\r\nredis_version:7.0.15\r\n', 'tty', true)).toBe('# Server\r\nredis_version:7.0.15\r\n');
  });

  it('refuses big numbers the way redis-cli 7.0 does', () => {
    expect(() => formatReplyTTY(new BigNumberReply('1234'))).toThrow(UnknownReplyTypeError);
    expect(() => formatReplyTTY(new BigNumberReply('1234'))).toThrow('Unknown reply type: 13');
  });
});
