import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeCommand, encodeCommandsToArray, encodedCommandLength, encodedCommandPieces, encodeReply, putEncodedCommand } from '../../../emulator/resp/encode.js';
import { byteStringToArray } from '../../../emulator/sim/network.js';
import {
  BoolReply,
  DoubleReply,
  ErrorReply,
  MapReply,
  NULL_ARRAY,
  OK,
  SetReply,
  VerbatimReply,
  errorReply,
} from '../../../emulator/resp/reply.js';
import { ReplyParser } from '../../../emulator/resp/reply-parser.js';

describe('encodeReply', () => {
  it('encodes the RESP2 types', () => {
    expect(encodeReply('ab', 2)).toBe('$2\r\nab\r\n');
    expect(encodeReply(-5, 2)).toBe(':-5\r\n');
    expect(encodeReply(9223372036854775807n, 2)).toBe(':9223372036854775807\r\n');
    expect(encodeReply(null, 2)).toBe('$-1\r\n');
    expect(encodeReply(NULL_ARRAY, 2)).toBe('*-1\r\n');
    expect(encodeReply([], 2)).toBe('*0\r\n');
    expect(encodeReply(['a', 1, null], 2)).toBe('*3\r\n$1\r\na\r\n:1\r\n$-1\r\n');
    expect(encodeReply(OK, 2)).toBe('+OK\r\n');
    expect(encodeReply(new ErrorReply('ERR x'), 2)).toBe('-ERR x\r\n');
  });

  it('folds RESP3 types into RESP2 the way Redis does', () => {
    expect(encodeReply(new DoubleReply(1.1), 2)).toBe('$18\r\n1.1000000000000001\r\n');
    expect(encodeReply(new DoubleReply(-Infinity), 2)).toBe('$4\r\n-inf\r\n');
    expect(encodeReply(new MapReply(['k', 'v']), 2)).toBe('*2\r\n$1\r\nk\r\n$1\r\nv\r\n');
    expect(encodeReply(new SetReply(['a']), 2)).toBe('*1\r\n$1\r\na\r\n');
    expect(encodeReply(BoolReply.TRUE, 2)).toBe(':1\r\n');
    expect(encodeReply(new VerbatimReply('hi'), 2)).toBe('$2\r\nhi\r\n');
  });

  it('encodes RESP3', () => {
    expect(encodeReply(null, 3)).toBe('_\r\n');
    expect(encodeReply(NULL_ARRAY, 3)).toBe('_\r\n');
    expect(encodeReply(new DoubleReply(1.5), 3)).toBe(',1.5\r\n');
    expect(encodeReply(new DoubleReply(Infinity), 3)).toBe(',inf\r\n');
    expect(encodeReply(new MapReply(['k', 1]), 3)).toBe('%1\r\n$1\r\nk\r\n:1\r\n');
    expect(encodeReply(new SetReply(['a']), 3)).toBe('~1\r\n$1\r\na\r\n');
    expect(encodeReply(BoolReply.FALSE, 3)).toBe('#f\r\n');
    expect(encodeReply(new VerbatimReply('hi'), 3)).toBe('=6\r\ntxt:hi\r\n');
  });

  it('makes error text safe like addReplyErrorFormat', () => {
    expect(errorReply('bad\r\nthing').message).toBe('ERR bad  thing');
    expect(errorReply('-WRONGTYPE x').message).toBe('WRONGTYPE x');
  });

  it('round-trips through the reply parser, byte for byte', () => {
    const replies = [['a', [1, null, new MapReply(['x', new DoubleReply(2)])]], new SetReply([]), NULL_ARRAY];
    for (const proto of [2, 3] as const) {
      for (const r of replies) {
        const wire = encodeReply(r, proto);
        const p = new ReplyParser();
        p.feed(wire);
        expect(p.nextRaw()).toBe(wire);
      }
    }
  });
});

describe('encodeCommand', () => {
  it('frames any command as a RESP array of bulk strings, for counts and lengths on both sides of the made-once headers', () => {
    const arg = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ minLength: 250, maxLength: 300 }), fc.constant(''));
    fc.assert(
      fc.property(fc.array(arg, { minLength: 1, maxLength: 20 }), (argv) => {
        let expected = `*${argv.length}\r\n`;
        for (const a of argv) expected += `$${a.length}\r\n${a}\r\n`;
        expect(encodeCommand(argv)).toBe(expected);
      }),
      { numRuns: 200 },
    );
    expect(encodeCommand(['SET', 'k', ''])).toBe('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n');
  });

  it('knows the framed length without framing, and frames many commands into parts for one join', () => {
    const arg = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ minLength: 250, maxLength: 1100 }), fc.constant(''));
    fc.assert(
      fc.property(fc.array(fc.array(arg, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 4 }), (commands) => {
        const parts = new Array<string>(commands.reduce((n, argv) => n + encodedCommandPieces(argv), 0));
        let at = 0;
        for (const argv of commands) {
          expect(encodedCommandLength(argv)).toBe(encodeCommand(argv).length);
          at = putEncodedCommand(argv, parts, at);
        }
        expect(at).toBe(parts.length);
        expect(parts.join('')).toBe(commands.map(encodeCommand).join(''));
      }),
      { numRuns: 200 },
    );
  });

  it('puts a command in two pieces per argument, its beginning made once for a run of the same command', () => {
    const parts = new Array<string>(12);
    expect(putEncodedCommand(['SET', 'key:1', 'a'], parts, 0)).toBe(6);
    expect(putEncodedCommand(['SET', 'key:2', 'bb'], parts, 6)).toBe(12);
    expect(parts).toEqual(['*3\r\n$3\r\nSET', '\r\n$5\r\n', 'key:1', '\r\n$1\r\n', 'a', '\r\n', '*3\r\n$3\r\nSET', '\r\n$5\r\n', 'key:2', '\r\n$2\r\n', 'bb', '\r\n']);
  });
});

describe('encodeCommandsToArray', () => {
  it("writes a flight of commands as the bytes of encodeCommand's frames, for counts and lengths of one to four digits", () => {
    const arg = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ minLength: 95, maxLength: 105 }), fc.string({ minLength: 995, maxLength: 1005 }), fc.constant(''));
    fc.assert(
      fc.property(fc.array(fc.array(arg, { minLength: 1, maxLength: 12 }), { maxLength: 4 }), (argvs) => {
        expect(encodeCommandsToArray(argvs)).toEqual(byteStringToArray(argvs.map(encodeCommand).join('')));
      }),
      { numRuns: 150 },
    );
    const wide = Array.from({ length: 10 }, (_, i) => String(i));
    expect(encodeCommandsToArray([wide])).toEqual(byteStringToArray(encodeCommand(wide)));
  });
});
