/**
 * Random command sequences for the randomized differential test: a small key
 * space shared by every type, so that wrong-type errors, conversions and
 * cross-type commands are exercised, with options and bad arguments mixed in.
 */
import fc from 'fast-check';
import type { Compare } from './script.js';

export interface RandomCommand {
  argv: string[];
  compare: Compare;
}

const exact: Compare = { kind: 'exact' };
const unordered: Compare = { kind: 'unordered' };

const key = fc.constantFrom('a', 'b', 'c', 'k\x00\xff', '');
const member = fc.constantFrom('x', 'y', 'z', '1', '2', '10', '-3', '', '\x00', 'a b', '\xff\xfe');
const int = fc.oneof(
  fc.integer({ min: -5, max: 10 }).map(String),
  fc.constantFrom('0', '-0', '+1', '007', '9223372036854775807', '-9223372036854775808', '9223372036854775808', 'abc', ''),
);
const float = fc.oneof(
  fc.constantFrom('0', '1.5', '-2.25', '1e3', 'inf', '-inf', '+inf', 'nan', '0x10', '1e400', '.5', '5.', 'abc', ''),
  fc.integer({ min: -10, max: 10 }).map(String),
);
const value = fc.oneof(member, int, fc.string({ maxLength: 6 }));
const rangeScore = fc.oneof(float, float.map((f) => '(' + f));
const lexBound = fc.constantFrom('-', '+', '[a', '(a', '[x', '(z', '[', 'x', '(');

/** One of several argument lists. */
const choice = (...lists: string[][]): fc.Arbitrary<string[]> => fc.constantFrom<string[]>(...lists);

const cmd = (...parts: Array<fc.Arbitrary<string> | string>): fc.Arbitrary<string[]> =>
  fc.tuple(...parts.map((p) => (typeof p === 'string' ? fc.constant(p) : p)));

function withOptions(base: fc.Arbitrary<string[]>, options: fc.Arbitrary<string[]>): fc.Arbitrary<string[]> {
  return fc.tuple(base, fc.array(options, { maxLength: 3 })).map(([b, opts]) => [...b, ...opts.flat()]);
}

const stringCommands = fc.oneof(
  withOptions(cmd('SET', key, value), fc.oneof(choice(['NX'], ['XX'], ['GET'], ['KEEPTTL']), cmd('EX', int), cmd('PX', int))),
  cmd('GET', key),
  cmd('GETSET', key, value),
  cmd('GETDEL', key),
  cmd('APPEND', key, value),
  cmd('STRLEN', key),
  cmd('GETRANGE', key, int, int),
  cmd('SETRANGE', key, fc.integer({ min: -1, max: 12 }).map(String), value),
  cmd('INCR', key),
  cmd('DECR', key),
  cmd('INCRBY', key, int),
  cmd('DECRBY', key, int),
  cmd('INCRBYFLOAT', key, float),
  cmd('MGET', key, key),
  cmd('MSET', key, value, key, value),
  cmd('MSETNX', key, value, key, value),
  cmd('SETNX', key, value),
);

const listCommands = fc.oneof(
  cmd('LPUSH', key, value, value),
  cmd('RPUSH', key, value),
  cmd('LPUSHX', key, value),
  cmd('RPUSHX', key, value),
  cmd('LPOP', key),
  cmd('RPOP', key, int),
  cmd('LLEN', key),
  cmd('LRANGE', key, int, int),
  cmd('LINDEX', key, int),
  cmd('LSET', key, int, value),
  cmd('LINSERT', key, fc.constantFrom('BEFORE', 'AFTER', 'x'), member, value),
  cmd('LREM', key, int, member),
  cmd('LTRIM', key, int, int),
  withOptions(cmd('LPOS', key, member), fc.oneof(cmd('RANK', int), cmd('COUNT', int), cmd('MAXLEN', int))),
  cmd('LMOVE', key, key, fc.constantFrom('LEFT', 'RIGHT'), fc.constantFrom('LEFT', 'RIGHT', 'UP')),
  cmd('RPOPLPUSH', key, key),
);

const hashCommands = fc.oneof(
  cmd('HSET', key, member, value),
  cmd('HSET', key, member, value, member, value),
  cmd('HSETNX', key, member, value),
  cmd('HGET', key, member),
  cmd('HMGET', key, member, member),
  cmd('HDEL', key, member, member),
  cmd('HEXISTS', key, member),
  cmd('HLEN', key),
  cmd('HSTRLEN', key, member),
  cmd('HKEYS', key),
  cmd('HVALS', key),
  cmd('HGETALL', key),
  cmd('HINCRBY', key, member, int),
  cmd('HINCRBYFLOAT', key, member, float),
);

const setCommands: fc.Arbitrary<RandomCommand> = fc.oneof(
  cmd('SADD', key, member, member).map(e),
  cmd('SREM', key, member).map(e),
  cmd('SISMEMBER', key, member).map(e),
  cmd('SMISMEMBER', key, member, member).map(e),
  cmd('SMEMBERS', key).map(u),
  cmd('SCARD', key).map(e),
  cmd('SMOVE', key, key, member).map(e),
  cmd('SINTER', key, key).map(u),
  cmd('SUNION', key, key).map(u),
  cmd('SDIFF', key, key).map(u),
  cmd('SINTERSTORE', key, key, key).map(e),
  cmd('SUNIONSTORE', key, key, key).map(e),
  cmd('SDIFFSTORE', key, key, key).map(e),
  cmd('SINTERCARD', fc.constantFrom('1', '2', '0', 'x'), key, key).map(e),
);

const zsetCommands = fc.oneof(
  withOptions(cmd('ZADD', key), choice(['NX'], ['XX'], ['GT'], ['LT'], ['CH'], ['INCR'])).chain((b) =>
    fc.tuple(float, member).map(([s, m]) => [...b, s, m]),
  ),
  cmd('ZADD', key, float, member, float, member),
  cmd('ZINCRBY', key, float, member),
  cmd('ZREM', key, member),
  cmd('ZSCORE', key, member),
  cmd('ZMSCORE', key, member, member),
  cmd('ZCARD', key),
  cmd('ZCOUNT', key, rangeScore, rangeScore),
  cmd('ZLEXCOUNT', key, lexBound, lexBound),
  cmd('ZRANK', key, member),
  cmd('ZREVRANK', key, member),
  withOptions(cmd('ZRANGE', key, int, int), choice(['WITHSCORES'], ['REV'])),
  withOptions(cmd('ZRANGE', key, rangeScore, rangeScore, 'BYSCORE'), fc.oneof(choice(['WITHSCORES'], ['REV']), cmd('LIMIT', int, int))),
  withOptions(cmd('ZRANGE', key, lexBound, lexBound, 'BYLEX'), fc.oneof(choice(['REV']), cmd('LIMIT', int, int))),
  cmd('ZRANGEBYSCORE', key, rangeScore, rangeScore),
  cmd('ZREVRANGEBYLEX', key, lexBound, lexBound),
  cmd('ZREMRANGEBYRANK', key, int, int),
  cmd('ZREMRANGEBYSCORE', key, rangeScore, rangeScore),
  cmd('ZREMRANGEBYLEX', key, lexBound, lexBound),
  cmd('ZPOPMIN', key),
  cmd('ZPOPMAX', key, int),
  withOptions(cmd('ZUNIONSTORE', key, '2', key, key), fc.oneof(cmd('WEIGHTS', float, float), cmd('AGGREGATE', fc.constantFrom('SUM', 'MIN', 'MAX', 'X')))),
  cmd('ZINTERSTORE', key, '2', key, key),
  cmd('ZDIFFSTORE', key, '2', key, key),
  cmd('ZINTERCARD', '2', key, key),
);

const bit = fc.constantFrom('0', '1', '2', 'x');
const bitOffset = fc.oneof(fc.integer({ min: -1, max: 40 }).map(String), fc.constantFrom('4294967296', 'x'));
const bitmapCommands = fc.oneof(
  cmd('SETBIT', key, bitOffset, bit),
  cmd('GETBIT', key, bitOffset),
  withOptions(cmd('BITCOUNT', key), fc.oneof(cmd(int, int), cmd(int, int, fc.constantFrom('BIT', 'BYTE', 'X')))),
  withOptions(cmd('BITPOS', key, bit), fc.oneof(cmd(int), cmd(int, int), cmd(int, int, fc.constantFrom('BIT', 'BYTE')))),
  cmd('BITOP', fc.constantFrom('AND', 'OR', 'XOR', 'NOT', 'NAND'), key, key),
  cmd('BITOP', 'NOT', key, key),
  withOptions(
    cmd('BITFIELD', key),
    fc.oneof(
      cmd('GET', fc.constantFrom('u8', 'i5', 'u63', 'i64', 'u64', 'x'), fc.constantFrom('0', '3', '#1', '-1')),
      cmd('SET', fc.constantFrom('u8', 'i16'), fc.constantFrom('0', '#2'), int),
      cmd('INCRBY', fc.constantFrom('u2', 'i8'), fc.constantFrom('0', '5'), int),
      cmd('OVERFLOW', fc.constantFrom('WRAP', 'SAT', 'FAIL', 'X')),
    ),
  ),
);

const genericCommands: fc.Arbitrary<RandomCommand> = fc.oneof(
  cmd('DEL', key, key).map(e),
  cmd('EXISTS', key, key).map(e),
  cmd('TYPE', key).map(e),
  cmd('RENAME', key, key).map(e),
  cmd('RENAMENX', key, key).map(e),
  withOptions(cmd('COPY', key, key), choice(['REPLACE'], ['DB', '1'])).map(e),
  withOptions(cmd('EXPIRE', key, fc.constantFrom('100', '1000', '0', '-1', 'x')), choice(['NX'], ['XX'], ['GT'], ['LT'])).map(e),
  cmd('PERSIST', key).map(e),
  cmd('TTL', key).map(e),
  cmd('TOUCH', key).map(e),
  cmd('OBJECT', 'ENCODING', key).map(e),
  cmd('DBSIZE').map(e),
  cmd('KEYS', fc.constantFrom('*', 'a*', '?', '[ab]', '*\x00*')).map(u),
);

const txCommands: fc.Arbitrary<RandomCommand> = choice(['MULTI'], ['EXEC'], ['DISCARD'], ['WATCH', 'a'], ['WATCH', 'b', 'c'], ['UNWATCH']).map(e);

const junk = choice(['FOO'], ['GET'], ['SET', 'a'], ['LPUSH', 'a'], ['ZADD', 'a', '1'], ['HSET', 'a', 'f']).map(e);

function e(argv: string[]): RandomCommand {
  return { argv, compare: exact };
}
function u(argv: string[]): RandomCommand {
  return { argv, compare: unordered };
}

export const randomCommand: fc.Arbitrary<RandomCommand> = fc.oneof(
  { weight: 4, arbitrary: stringCommands.map(e) },
  { weight: 4, arbitrary: listCommands.map(e) },
  { weight: 4, arbitrary: hashCommands.map(e) },
  { weight: 4, arbitrary: setCommands },
  { weight: 5, arbitrary: zsetCommands.map(e) },
  { weight: 3, arbitrary: genericCommands },
  { weight: 2, arbitrary: bitmapCommands.map(e) },
  { weight: 1, arbitrary: txCommands },
  { weight: 1, arbitrary: junk },
);
