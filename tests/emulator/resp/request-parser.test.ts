import { describe, expect, it } from 'vitest';
import { ProtocolError, RequestParser } from '../../../emulator/resp/request-parser.js';

const bytes = (s: string): Uint8Array => Uint8Array.from(s, (ch) => ch.charCodeAt(0));

function parseAll(input: string | string[]): Array<string[] | ProtocolError> {
  const p = new RequestParser();
  const out: Array<string[] | ProtocolError> = [];
  for (const chunk of Array.isArray(input) ? input : [input]) {
    p.feed(bytes(chunk));
    for (let r = p.next(); r !== null; r = p.next()) {
      out.push(r);
      if (r instanceof ProtocolError) return out;
    }
  }
  return out;
}

describe('RequestParser', () => {
  it('parses a multibulk command', () => {
    expect(parseAll('*2\r\n$3\r\nGET\r\n$1\r\nk\r\n')).toEqual([['GET', 'k']]);
  });

  it('parses pipelined commands split at every byte', () => {
    const wire = '*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\nPING\r\n';
    expect(parseAll(wire.split(''))).toEqual([['PING'], ['SET', 'k', ''], ['PING']]);
  });

  it('keeps binary arguments intact', () => {
    expect(parseAll('*1\r\n$4\r\n\x00\r\n\xff\r\n')).toEqual([['\x00\r\n\xff']]);
  });

  it('assembles a large bulk argument from many chunks', () => {
    const big = 'x'.repeat(100_000);
    const wire = `*2\r\n$3\r\nSET\r\n$${big.length}\r\n${big}\r\n`;
    const chunks: string[] = [];
    for (let i = 0; i < wire.length; i += 1000) chunks.push(wire.slice(i, i + 1000));
    const out = parseAll(chunks);
    expect(out).toHaveLength(1);
    expect((out[0] as string[])[1]).toHaveLength(100_000);
  });

  it('parses inline commands with quotes, and skips empty lines', () => {
    expect(parseAll('set "a b" \'c\'\r\n\r\nping\n')).toEqual([['set', 'a b', 'c'], ['ping']]);
  });

  it('ignores empty and negative multibulk counts', () => {
    expect(parseAll('*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n')).toEqual([['PING']]);
  });

  it('answers Redis protocol errors', () => {
    const err = (s: string) => (parseAll(s).at(-1) as ProtocolError).reply;
    expect(err('*x\r\n')).toBe('Protocol error: invalid multibulk length');
    expect(err('*3000000000\r\n')).toBe('Protocol error: invalid multibulk length');
    expect(err('*1\r\n+PING\r\n')).toBe("Protocol error: expected '$', got '+'");
    expect(err('*1\r\n$-5\r\n')).toBe('Protocol error: invalid bulk length');
    expect(err('*1\r\n$abc\r\n')).toBe('Protocol error: invalid bulk length');
    expect(err('set "a\r\n')).toBe('Protocol error: unbalanced quotes in request');
    expect(err('x'.repeat(70_000))).toBe('Protocol error: too big inline request');
    expect(err('*' + '1'.repeat(70_000))).toBe('Protocol error: too big mbulk count string');
  });

  it('makes a string of each argument only, not of the headers that count them', () => {
    const made: string[] = [];
    const p = new RequestParser({
      decode: (a, start = 0, end = a.length) => {
        const s = String.fromCharCode(...a.subarray(start, end));
        made.push(s);
        return s;
      },
    });
    p.feed(bytes('*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n$3\r\nxxx\r\n*+2\r\n$3\r\nGET\r\n$1\r\nk\r\n'));
    expect(p.next()).toEqual(['SET', 'key:__rand_int__', 'xxx']);
    expect(made).toEqual(['SET', 'key:__rand_int__', 'xxx']);
    // A count that is not plain digits is read as string2ll reads it: no sign.
    expect(p.next()).toEqual(new ProtocolError('Protocol error: invalid multibulk length'));
  });

  it('is dead after a protocol error', () => {
    const p = new RequestParser();
    p.feed(bytes('*x\r\n*1\r\n$4\r\nPING\r\n'));
    expect(p.next()).toBeInstanceOf(ProtocolError);
    expect(p.next()).toBeNull();
  });
});

describe('RequestParser reading a multibulk count', () => {
  it('reads the multibulk count as string2ll does: 0, negative, leading zeros, signs, overflow', () => {
    expect(parseAll('*0\r\n*-1\r\n*-5\r\n*1\r\n$4\r\nPING\r\n')).toEqual([['PING']]);
    expect(parseAll('*01\r\n$4\r\nPING\r\n')).toEqual([new ProtocolError('Protocol error: invalid multibulk length')]);
    expect(parseAll('*+1\r\n$4\r\nPING\r\n')).toEqual([new ProtocolError('Protocol error: invalid multibulk length')]);
    expect(parseAll('*2147483648\r\n')).toEqual([new ProtocolError('Protocol error: invalid multibulk length')]);
    expect(parseAll('*99999999999999999999\r\n')).toEqual([new ProtocolError('Protocol error: invalid multibulk length')]);
    expect(parseAll('*1x\r\n')).toEqual([new ProtocolError('Protocol error: invalid multibulk length')]);
  });
});
